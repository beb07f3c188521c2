#version 450
// Divergent control flow: a loop with break and continue, early return, discard,
// derivatives.
layout(location = 0) in float x;
layout(location = 0) out vec4 result;

float iterate(float v) {
    float acc = 0.0;
    for (int i = 0; i < 16; i++) {
        if (acc > v) break;
        if ((i & 1) == 1) continue;
        acc += float(i) * 0.5;
    }
    return acc;
}

void main() {
    if (x < 0.0) discard;
    float a = iterate(x);
    result = vec4(a, dFdx(x), dFdy(x), 1.0);
    if (a > 10.0) return;
    result.w = 0.5;
}
