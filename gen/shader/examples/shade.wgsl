// A WGSL fragment shader: struct output, texture, select, integer maths.
struct Out {
    @location(0) color: vec4<f32>,
    @location(1) @interpolate(flat) id: u32,
}

struct Material {
    tint: vec4<f32>,
    roughness: f32,
    levels: u32,
}

@group(0) @binding(0) var<uniform> material: Material;
@group(0) @binding(1) var base: texture_2d<f32>;
@group(0) @binding(2) var base_sampler: sampler;

@fragment
fn main(@builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32>, @builtin(front_facing) front: bool) -> Out {
    var o: Out;
    let t = textureSample(base, base_sampler, uv);
    let q = floor(t.rgb * f32(material.levels)) / f32(material.levels);
    o.color = vec4<f32>(select(q * 0.5, q, front) * material.tint.rgb, 1.0 - material.roughness);
    o.id = u32(pos.x) + u32(pos.y) * 16u;
    return o;
}
