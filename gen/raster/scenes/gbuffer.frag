#version 450
// G-buffer pass: albedo (a checker when `checker` is 1), normal (w = 1 marks geometry), position.
layout(location = 0) in vec3 world_position;
layout(location = 1) in vec3 world_normal;
layout(binding = 1) uniform Material {
    vec4 base_colour;
    vec4 checker_colour;
    float checker;
};
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;
layout(location = 2) out vec4 position;
void main() {
    float cell = fract(0.5 * (floor(world_position.x) + floor(world_position.z))) * 2.0;
    albedo = mix(base_colour, checker_colour, cell * checker);
    normal = vec4(normalize(world_normal), 1.0);
    position = vec4(world_position, 1.0);
}
