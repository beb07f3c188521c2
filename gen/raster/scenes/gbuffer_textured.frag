#version 450
// G-buffer pass of a textured mesh: albedo = base_colour × the texture at the world position's
// xz (scaled and offset by `uv_transform`), normal (w = 1 marks geometry), position.
layout(location = 0) in vec3 world_position;
layout(location = 1) in vec3 world_normal;
layout(binding = 1) uniform Material {
    vec4 base_colour;
    vec4 uv_transform; // uv = xz · (x, y) + (z, w)
};
layout(binding = 2) uniform texture2D albedo_texture;
layout(binding = 3) uniform sampler albedo_sampler;
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;
layout(location = 2) out vec4 position;
void main() {
    vec2 uv = world_position.xz * uv_transform.xy + uv_transform.zw;
    albedo = base_colour * texture(sampler2D(albedo_texture, albedo_sampler), uv);
    normal = vec4(normalize(world_normal), 1.0);
    position = vec4(world_position, 1.0);
}
