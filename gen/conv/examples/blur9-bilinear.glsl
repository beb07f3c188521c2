#version 450
// A horizontal 9-tap Gaussian in 5 samples using the bilinear filter (the common "linear
// sampling" optimisation: each off-centre sample sits between two texels so the filter blends
// them). The image must be 64 pixels wide (the 1/64 below); the kernel-shader pass recognises
// the bilinear samples, builds both variants of ¶94 (odd count) and its helper selects the one
// with the bilinear reversal: 9 raw taps blended with the exact fractions.
layout(location = 0) out vec4 colour;
layout(binding = 0) uniform texture2D image;
layout(binding = 1) uniform sampler linear;

void main() {
    const float texel = 1.0 / 64.0;
    vec2 c = gl_FragCoord.xy;
    vec4 s = texture(sampler2D(image, linear), c * texel) * 0.2270270270;
    s += texture(sampler2D(image, linear), (c + vec2( 1.3846153846, 0.0)) * texel) * 0.3162162162;
    s += texture(sampler2D(image, linear), (c + vec2(-1.3846153846, 0.0)) * texel) * 0.3162162162;
    s += texture(sampler2D(image, linear), (c + vec2( 3.2307692308, 0.0)) * texel) * 0.0702702703;
    s += texture(sampler2D(image, linear), (c + vec2(-3.2307692308, 0.0)) * texel) * 0.0702702703;
    colour = s;
}
