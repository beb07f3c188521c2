#version 450
// The rasteriser's built-ins (gl_FragCoord, gl_FrontFacing, gl_SampleID) as the JSON gives
// them, gl_FragDepth beyond [0, 1], an integer output beside a float one, and a uniform
// block with an instance name.
layout(location = 0) in vec2 v;
layout(location = 0) out vec4 color;
layout(location = 2) out uvec2 ids;
layout(binding = 3) uniform Look { vec3 tint; float gain; } look;

void main() {
    color = vec4(gl_FragCoord.xy - v - look.tint.xy, gl_FrontFacing ? gl_FragCoord.z : -gl_FragCoord.w, v.x * look.gain);
    ids = uvec2(uint(gl_SampleID) * 3u, gl_FrontFacing ? 7u : 9u);
    gl_FragDepth = v.y * 4.0 - 1.0;
}
