#version 450
// Quad derivatives: fine ones agree on every lane; plain dFdx (coarse in the compiler) on the
// quad's top row, plain dFdy on its left column (llvmpipe's are always fine).
layout(location = 0) in vec2 uv;
layout(location = 1) in float h;
layout(location = 0) out vec4 fused;
layout(location = 1) out vec4 exact;

void main() {
    float f = uv.x * uv.y + h;
    fused = vec4(dFdxFine(f), dFdyFine(f), dFdx(f), dFdy(f));
    exact = vec4(fwidthFine(uv.x), dFdxFine(gl_FragCoord.x * h), dFdx(uv.y), dFdy(h));
}
