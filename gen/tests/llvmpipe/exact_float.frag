#version 450
// Single correctly rounded operations, min/max, compares, selects, floor, clamp, step,
// conversions: both engines must agree bit for bit (no multiply feeds an add, so no fusion).
layout(location = 0) in vec4 x;
layout(location = 1) in vec4 y;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out ivec4 o3;

void main() {
    o0 = vec4(x.x + y.x, x.y - y.y, x.z * y.z, -x.w);
    o1 = vec4(min(x.x, y.y), max(x.y, y.z), abs(x.z), x.w < y.w ? x.x : y.x);
    o2 = vec4(floor(x.x), clamp(x.y, -1.0, 1.0), step(y.z, x.z), (x.x == y.x || x.y >= y.y) ? 1.0 : 0.0);
    o3 = ivec4(int(x.x * 100.0), int(floor(y.y * 7.0)), x.z > y.z ? 1 : 0, int(uint(abs(y.w) * 1000.0)));
}
