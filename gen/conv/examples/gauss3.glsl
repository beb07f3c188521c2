#version 450
// A 3×3 Gaussian blur written the way a fragment shader does it: one texelFetch per tap
// around the pixel, weighted and summed. `rendergen conv IN.png -o OUT.png --shader gauss3.glsl`
// converts it to the collective fetch (4 raw broadcast footprints per quad instead of 36
// filtered fetches) and checks that both programs give the same image.
layout(location = 0) out vec4 colour;
layout(binding = 0) uniform texture2D image;
layout(binding = 1) uniform sampler nearest;

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 s = vec4(0.0);
    s += texelFetch(sampler2D(image, nearest), p + ivec2(-1, -1), 0) * 0.0625;
    s += texelFetch(sampler2D(image, nearest), p + ivec2( 0, -1), 0) * 0.125;
    s += texelFetch(sampler2D(image, nearest), p + ivec2( 1, -1), 0) * 0.0625;
    s += texelFetch(sampler2D(image, nearest), p + ivec2(-1,  0), 0) * 0.125;
    s += texelFetch(sampler2D(image, nearest), p,                 0) * 0.25;
    s += texelFetch(sampler2D(image, nearest), p + ivec2( 1,  0), 0) * 0.125;
    s += texelFetch(sampler2D(image, nearest), p + ivec2(-1,  1), 0) * 0.0625;
    s += texelFetch(sampler2D(image, nearest), p + ivec2( 0,  1), 0) * 0.125;
    s += texelFetch(sampler2D(image, nearest), p + ivec2( 1,  1), 0) * 0.0625;
    colour = s;
}
