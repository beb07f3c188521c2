#version 450
// Tile shader: deferred lighting in the tile buffer, one thread per pixel, every sample;
// the G-buffer's write-out is turned off, the lit image is written out averaged.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, rgba8) uniform image2DArray albedo_rt;
layout(binding = 1, rgba16f) uniform image2DArray normal_rt;
layout(binding = 2, rgba16f) uniform image2DArray position_rt;
layout(binding = 3, rgba8) uniform image2DArray lit_rt;
layout(binding = 15, r32ui) uniform uimage2D writeout;
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
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    // The threads of an edge tile's pixels off screen have nothing to light (and would read
    // the light list for nothing): only the pixels on screen are written out.
    if (p.x < int(screen.x) && p.y < int(screen.y)) {
        for (uint s = 0u; s < samples; s++) {
            ivec3 q = ivec3(p, int(s));
            vec4 a = imageLoad(albedo_rt, q);
            vec4 n = imageLoad(normal_rt, q);
            vec4 w = imageLoad(position_rt, q);
            imageStore(lit_rt, q, vec4(shade(a.rgb, n.xyz, w.xyz, n.w), 1.0));
        }
    }
    if (gl_LocalInvocationIndex == 0u) {
        imageStore(writeout, ivec2(0, 0), uvec4(0u));
        imageStore(writeout, ivec2(1, 0), uvec4(0u));
        imageStore(writeout, ivec2(2, 0), uvec4(0u));
        imageStore(writeout, ivec2(3, 0), uvec4(1u));
    }
}
