#version 450
// A compute-stage program (convolution shaders are compute programs): thread ids come from
// the launch. Without storage buffers it has no outputs; it shows the thread-id ABI.
layout(local_size_x = 4, local_size_y = 4) in;
void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 16u + gl_LocalInvocationIndex;
    float w = float(i) * 0.25;
    if (w > 2.0) { w = 2.0; }
}
