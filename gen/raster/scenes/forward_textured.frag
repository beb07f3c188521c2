#version 450
// Forward shading of a textured mesh: the same lighting straight from the varyings, the albedo
// as gbuffer_textured.frag's.
layout(location = 0) in vec3 world_position;
layout(location = 1) in vec3 world_normal;
layout(binding = 1) uniform Material {
    vec4 base_colour;
    vec4 uv_transform; // uv = xz · (x, y) + (z, w)
};
layout(binding = 2) uniform texture2D albedo_texture;
layout(binding = 3) uniform sampler albedo_sampler;
layout(location = 0) out vec4 lit;
// The lighting both deferred modes share (keep lighting.comp and lighting.frag identical here).
layout(std430, binding = 9) readonly buffer Lights {
    uint light_count;
    vec4 lights[128]; // per light: position and radius, colour
};
layout(binding = 10) uniform Scene {
    vec4 ambient;
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
    vec2 uv = world_position.xz * uv_transform.xy + uv_transform.zw;
    vec4 a = base_colour * texture(sampler2D(albedo_texture, albedo_sampler), uv);
    lit = vec4(shade(a.rgb, normalize(world_normal), world_position, 1.0), 1.0);
}
