#version 450
// Integer and float attributes, gl_VertexIndex/gl_InstanceIndex, integer varyings and a
// std140 block with a vec3/float pair and an ivec2.
layout(location = 0) in vec4 pos;
layout(location = 1) in ivec2 cell;
layout(location = 2) in uint mask;
layout(location = 0) flat out ivec2 tile;
layout(location = 1) flat out uint bits;
layout(location = 2) out vec2 uv;

layout(binding = 1) uniform Grid {
    vec3 origin;
    float size;
    ivec2 tiles;
};

void main() {
    tile = ivec2(cell.x & 3 + tiles.x, (cell.y >> 2) - tiles.y) * (int(gl_VertexIndex) & 7);
    bits = (mask ^ uint(gl_InstanceIndex)) & 0xffffu;
    uv = pos.xy * size + origin.xy;
    gl_Position = vec4(pos.xyz * size + origin, pos.w);
}
