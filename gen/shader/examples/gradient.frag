#version 450
// A fragment shader: uniforms, built-ins, mix/smoothstep/pow, a texture.
layout(location = 0) in vec2 uv;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec4 color;

layout(binding = 0) uniform Params {
    vec3 light_dir;
    float exposure;
    vec4 sky;
    vec4 ground;
};
layout(binding = 1) uniform texture2D albedo;
layout(binding = 2) uniform sampler albedo_sampler;

void main() {
    vec3 n = normalize(normal);
    float ndl = max(dot(n, normalize(light_dir)), 0.0);
    vec4 base = mix(ground, sky, smoothstep(-0.2, 0.2, n.y));
    vec4 tex = texture(sampler2D(albedo, albedo_sampler), uv);
    float glow = pow(ndl, 8.0) * exposure;
    color = vec4(base.rgb * (0.2 + 0.8 * ndl) + glow, base.a) * tex.a;
}
