#version 450
// Integer arithmetic, shifts, logic, compares and selects: both engines must agree bit for bit.
layout(location = 0) flat in ivec4 a;
layout(location = 1) flat in uvec4 b;
layout(location = 2) flat in int s;
layout(location = 0) out ivec4 oi;
layout(location = 1) out uvec4 ou;
layout(location = 2) out ivec4 oc;

void main() {
    int sh = s & 31;
    oi = ivec4(a.x + a.y, a.z - a.w, a.x * a.w, (a.y << sh) ^ (a.z >> sh));
    ou = uvec4((b.x >> uint(sh)) | b.y, b.z * b.w, b.x & ~b.w, b.y - b.z);
    int flags = int(min(b.x, b.y) > max(b.z, b.w)) + (int(a.x == a.y) << 1) + (int(b.z != b.w) << 2)
        + (int(a.w <= a.z) << 3);
    oc = ivec4(min(a.x, a.y), max(a.z, a.w), a.x < a.z ? abs(a.y) : -a.w, flags);
}
