//! Storage images of the tile shader (`ABI.md` "Tile engine images"): `imageLoad` and
//! `imageStore` become `spec` port requests with the documented function codes and address,
//! the write-out control image becomes a write-out request, and what the ABI does not map is a
//! compile error.

use rendergen_shader_compiler::abi::{self, spec_function};
use rendergen_shader_compiler::{compile, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{run, Config, Env, Launch, SpecRequest, TexRequest};

/// A port that holds one 4-channel word per (binding, address) and logs every request.
#[derive(Default)]
struct Port {
    log: Vec<SpecRequest>,
}

impl Env for Port {
    fn load(&mut self, _: usize, _: u32) -> u32 {
        0
    }
    fn store(&mut self, _: usize, _: u32, _: u32) {}
    fn uniform(&mut self, _: u32) -> u32 {
        0
    }
    fn texture(&mut self, _: &TexRequest) -> [[u32; 4]; 4] {
        [[0; 4]; 4]
    }
    fn special(&mut self, r: &SpecRequest) -> u32 {
        self.log.push(*r);
        // Loads answer with a value that encodes the request.
        (r.func << 16) ^ r.a
    }
}

const SRC: &str = "#version 450
layout(local_size_x = 4, local_size_y = 1) in;
layout(binding = 0, rgba8) uniform image2DArray albedo;
layout(binding = 3, r32f) uniform image2D out_rt;
layout(binding = 8, r32ui) uniform uimage2D depth;
layout(binding = 15, r32ui) uniform uimage2D writeout;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy) + ivec2(16, 32);
    vec4 a = imageLoad(albedo, ivec3(p, 2));
    uint d = imageLoad(depth, p).x;
    imageStore(out_rt, p + ivec2(1, 0), vec4(a.y + float(d), 0.0, 0.0, 1.0));
    if (gl_LocalInvocationIndex == 0u) {
        imageStore(writeout, ivec2(0, 0), uvec4(0u));
        imageStore(writeout, ivec2(3, 0), uvec4(1u));
    }
}";

#[test]
fn image_access_becomes_port_requests() {
    let c = compile(
        SRC,
        "t.comp",
        &Options::new(Lang::Glsl(ShaderStage::Compute)),
    )
    .unwrap();
    let names: Vec<(String, u32, u32)> = c
        .interface
        .images
        .iter()
        .map(|i| (i.name.clone(), i.binding, i.channels))
        .collect();
    assert!(names.contains(&("albedo".into(), 0, 4)), "{names:?}");
    assert!(names.contains(&("out_rt".into(), 3, 1)), "{names:?}");
    let mut launch = Launch::new(1);
    launch.regs = (0..4).map(|x| vec![x, 0, 0, x, 0, 0, x]).collect();
    let mut port = Port::default();
    let out = run(&c.words, &Config::default(), &launch, &mut port);
    assert_eq!(out.error, None);
    let addr = |x: u32, y: u32, s: u32| x | y << 14 | s << 28;
    for lane in 0..4u32 {
        let mine: Vec<&SpecRequest> = port
            .log
            .iter()
            .filter(|r| r.lane == lane as usize)
            .collect();
        let loads: Vec<u32> = mine
            .iter()
            .filter(|r| r.func >> 8 == abi::SPEC_LOAD)
            .map(|r| r.func)
            .collect();
        // Albedo: 4 channels at layer (sample) 2; depth: 4 channels.
        for ch in 0..4 {
            assert!(loads.contains(&spec_function(abi::SPEC_LOAD, 0, ch)));
            assert!(loads.contains(&spec_function(abi::SPEC_LOAD, 8, ch)));
        }
        let a_y = mine
            .iter()
            .find(|r| r.func == spec_function(abi::SPEC_LOAD, 0, 1))
            .unwrap();
        assert_eq!(a_y.a, addr(16 + lane, 32, 2));
        let store = mine
            .iter()
            .find(|r| r.func == spec_function(abi::SPEC_STORE, 3, 0))
            .expect("r32f store: one channel");
        assert_eq!(store.a, addr(17 + lane, 32, 0));
        // a.y + float(d): the port's answers, as the shader computes them.
        let ay = f32::from_bits((a_y.func << 16) ^ a_y.a);
        let d = (spec_function(abi::SPEC_LOAD, 8, 0) << 16) ^ addr(16 + lane, 32, 0);
        assert_eq!(store.b, (ay + d as f32).to_bits());
        assert!(!mine
            .iter()
            .any(|r| r.func == spec_function(abi::SPEC_STORE, 3, 1)));
        let wo: Vec<(u32, u32)> = mine
            .iter()
            .filter(|r| r.func >> 8 == abi::SPEC_WRITEOUT)
            .map(|r| (r.a, r.b))
            .collect();
        assert_eq!(
            wo,
            if lane == 0 {
                vec![(0, 0), (3, 1)]
            } else {
                vec![]
            }
        );
    }
}

#[test]
fn coordinates_out_of_range_are_clamped_not_wrapped() {
    let src = "#version 450
layout(local_size_x = 4) in;
layout(binding = 1, rgba8) uniform image2D rt;
void main() { imageStore(rt, ivec2(-1, 20000), vec4(1.0)); }";
    let c = compile(
        src,
        "t.comp",
        &Options::new(Lang::Glsl(ShaderStage::Compute)),
    )
    .unwrap();
    let mut port = Port::default();
    run(&c.words, &Config::default(), &Launch::new(1), &mut port);
    assert_eq!(port.log.len(), 16);
    assert!(port.log.iter().all(|r| r.a == 0x3FFF | 0x3FFF << 14));
}

#[test]
fn unmapped_images_are_errors() {
    let bad_binding = "#version 450
layout(local_size_x = 4) in;
layout(binding = 9, rgba8) uniform image2D rt;
void main() { imageStore(rt, ivec2(0), vec4(1.0)); }";
    let e = compile(
        bad_binding,
        "b.comp",
        &Options::new(Lang::Glsl(ShaderStage::Compute)),
    )
    .unwrap_err();
    assert!(
        e.message.contains("binding 9") && e.message.contains("0..=7"),
        "{e}"
    );
    let bad_format = "#version 450
layout(local_size_x = 4) in;
layout(binding = 1, rgba32f) uniform image2D rt;
void main() { imageStore(rt, ivec2(0), vec4(1.0)); }";
    let e = compile(
        bad_format,
        "f.comp",
        &Options::new(Lang::Glsl(ShaderStage::Compute)),
    )
    .unwrap_err();
    assert!(e.message.contains("format"), "{e}");
}

#[test]
fn wgsl_storage_textures_work_too() {
    let src = "@group(0) @binding(2) var rt: texture_storage_2d<rgba8unorm, read_write>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = textureLoad(rt, vec2<i32>(id.xy));
    textureStore(rt, vec2<i32>(id.xy), c * 0.5);
}";
    let c = compile(src, "t.wgsl", &Options::new(Lang::Wgsl)).unwrap();
    let mut port = Port::default();
    run(&c.words, &Config::default(), &Launch::new(1), &mut port);
    assert_eq!(
        port.log
            .iter()
            .filter(|r| r.func >> 8 == abi::SPEC_LOAD)
            .count(),
        16
    );
    assert_eq!(
        port.log
            .iter()
            .filter(|r| r.func >> 8 == abi::SPEC_STORE)
            .count(),
        16
    );
}
