#version 450
// Chains that an implementation may fuse (a·b + c) or reorder, division, square roots and
// normalisation, matrix × vector from a std140 block (mat3 columns, vec3 + float packing,
// a float array with a 16-byte stride).
layout(location = 0) in vec3 p;
layout(location = 1) in vec3 q;
layout(location = 2) in float t;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;

layout(binding = 0) uniform Params {
    mat3 m;
    vec3 axis;
    float scale;
    float weights[3];
    vec2 bias;
};

void main() {
    vec3 v = m * p + axis * scale;
    float d = dot(normalize(p + vec3(0.0, 0.0, 5.0)), normalize(q + vec3(5.0, 0.0, 0.0)));
    vec3 c = cross(p, q);
    o0 = vec4(v, d);
    o1 = vec4(length(c) / (1.0 + t * t), mix(p.x, q.x, fract(t)),
              weights[0] * p.x + weights[1] * p.y + weights[2] * p.z + bias.x,
              smoothstep(-1.0, 1.0, t) * bias.y);
}
