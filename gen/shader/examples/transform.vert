#version 450
// A vertex shader: matrix × vector, gl_Position, varyings, vertex and instance index.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec3 world_normal;
layout(location = 1) out float shade;

layout(binding = 0) uniform Camera {
    mat4 view_proj;
    mat4 model;
    float offset;
};

void main() {
    vec4 world = model * vec4(position, 1.0);
    world.x += offset * float(gl_InstanceIndex);
    gl_Position = view_proj * world;
    world_normal = normalize(mat3(model) * normal);
    shade = float(gl_VertexIndex & 3) / 3.0;
}
