#version 450
// Two-pass lighting: a full-screen pass that reads the written-out G-buffer (storage images
// bound to its surfaces), once per sample (it reads gl_SampleID).
layout(binding = 0, rgba8) uniform image2DArray albedo_rt;
layout(binding = 1, rgba16f) uniform image2DArray normal_rt;
layout(binding = 2, rgba16f) uniform image2DArray position_rt;
layout(location = 0) out vec4 lit;
// The lighting both deferred modes share (keep lighting.comp and lighting.frag identical here).
layout(std430, binding = 9) readonly buffer Lights {
    uint light_count;
    vec4 lights[128]; // per light: position and radius, colour
};
layout(binding = 10) uniform Scene {
    vec4 ambient;
    vec4 screen; // width, height in pixels
    uint samples;
};
vec3 shade(vec3 albedo, vec3 n, vec3 p, float geometry) {
    vec3 c = ambient.rgb * albedo;
    for (uint i = 0u; i < light_count; i++) {
        vec4 l = lights[2u * i];
        vec3 d = l.xyz - p;
        float dist2 = dot(d, d);
        float fall = max(1.0 - dist2 / (l.w * l.w), 0.0);
        float ndl = max(dot(n, d * inversesqrt(max(dist2, 1e-8))), 0.0);
        c += albedo * lights[2u * i + 1u].rgb * (ndl * fall * fall);
    }
    return c * geometry;
}
void main() {
    ivec3 q = ivec3(ivec2(gl_FragCoord.xy), gl_SampleID);
    vec4 a = imageLoad(albedo_rt, q);
    vec4 n = imageLoad(normal_rt, q);
    vec4 w = imageLoad(position_rt, q);
    lit = vec4(shade(a.rgb, n.xyz, w.xyz, n.w), 1.0);
}
