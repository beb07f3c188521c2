#version 450
// G-buffer pass vertex shader: world position and normal as varyings.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(binding = 0) uniform Transform {
    mat4 model;
    mat4 view_projection;
};
layout(location = 0) out vec3 world_position;
layout(location = 1) out vec3 world_normal;
void main() {
    vec4 p = model * vec4(position, 1.0);
    world_position = p.xyz;
    world_normal = mat3(model) * normal;
    gl_Position = view_projection * p;
}
