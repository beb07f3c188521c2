#version 450
// Special functions: the engines' approximations differ; bounds per output in the test.
layout(location = 0) in float angle;
layout(location = 1) in float pos;
layout(location = 2) in float e;
layout(location = 0) out vec4 trig;
layout(location = 1) out vec4 logexp;
layout(location = 2) out vec3 roots;
layout(location = 3) out vec2 powers;

void main() {
    trig = vec4(sin(angle), cos(angle), sin(angle) * cos(angle), cos(angle * 0.5));
    logexp = vec4(exp2(e), log2(pos), exp(e * 0.5), log(pos));
    roots = vec3(sqrt(pos), inversesqrt(pos), 1.0 / pos);
    powers = vec2(pow(pos, 1.5), pow(pos, -0.75));
}
