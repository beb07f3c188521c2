//! The fragment side's pieces against the frame model's formulas: the prologue the core runs
//! (`rendergen_rtl::tile::frag::fragment_prologue`) on the shader interpreter (bit-exact with
//! the RTL core) against `raster::barycentrics`/`interpolate`, and the launcher's depth
//! conversion (`unorm24_to_f32`) in simulation against `(d as f64 / DEPTH_MAX as f64) as f32`.
use rendergen_hdl::Design;
use rendergen_rtl::tile::frag::{fragment_prologue, relocate, unorm24_to_f32, SCRATCH_REGS};
use rendergen_shader_isa::asm::assemble;
use rendergen_sim::kit::Rng;
use rendergen_sim::models::shader::{self, Env, Launch, SpecRequest, TexRequest};
use rendergen_sim::models::tile::raster::{barycentrics, edge_f32, interpolate};
use rendergen_sim::models::tile::DEPTH_MAX;
use rendergen_sim::Simulator;

/// The primitive buffer as the prologue's `ldg` sees it (binding 5).
struct PrimEnv {
    words: Vec<u32>,
}

const BINDING: u32 = 5;

impl Env for PrimEnv {
    fn load(&mut self, _lane: usize, addr: u32) -> u32 {
        assert_eq!(addr >> 24, BINDING, "a load outside the primitive buffer");
        self.words[(addr & 0xFF_FFFF) as usize / 4]
    }
    fn store(&mut self, _lane: usize, _addr: u32, _value: u32) {
        panic!("the prologue stores nothing");
    }
    fn uniform(&mut self, _index: u32) -> u32 {
        panic!("the prologue reads no uniform");
    }
    fn texture(&mut self, _req: &TexRequest) -> [[u32; 4]; 4] {
        panic!("no texture");
    }
    fn special(&mut self, _req: &SpecRequest) -> u32 {
        panic!("no special port");
    }
}

/// A random binary32 of moderate magnitude (either sign), sometimes zero.
fn value(rng: &mut Rng) -> u32 {
    match rng.below(10) {
        0 => 0,
        _ => {
            let m = rng.below(1 << 23) as u32;
            let e = 100 + rng.below(50) as u32;
            (rng.below(2) as u32) << 31 | e << 23 | m
        }
    }
}

#[test]
fn prologue_matches_the_model_bit_for_bit() {
    let mut rng = Rng::new(0xF4A6);
    let regs = 64u32;
    let scratch = regs - SCRATCH_REGS;
    for varyings in [0u32, 1, 3] {
        let slots_max = varyings.max(2);
        let vstride = 1 + 4 * slots_max;
        let stride = 3 * vstride;
        let prims = 5u32;
        let words: Vec<u32> = (0..prims * stride).map(|_| value(&mut rng)).collect();
        let pro = fragment_prologue(scratch, varyings, BINDING << 24, stride, vstride);
        let mut prog = pro.clone();
        prog.push(assemble("end").unwrap()[0]);
        let mut env = PrimEnv {
            words: words.clone(),
        };
        for _ in 0..200 {
            let prim = rng.below(prims as u64) as u32;
            let rw: [f32; 3] =
                std::array::from_fn(|_| 1.0 / (0.5 + rng.below(1000) as f32 / 100.0));
            let mut launch = Launch::new(1);
            let mut edges = Vec::new();
            for lane in 0..4 {
                let e: [i64; 3] = std::array::from_fn(|_| rng.below(1 << 40) as i64 - (1 << 38));
                edges.push(e);
                let mut r = vec![0u32; regs as usize];
                r[0] = 0x4000_0000 + lane;
                r[1] = 0x4100_0000 + lane;
                r[2] = 0x3F00_0000;
                r[4] = 1;
                for k in 0..3 {
                    r[(scratch + k) as usize] = edge_f32(e[k as usize]);
                    r[(scratch + 3 + k) as usize] = rw[k as usize].to_bits();
                }
                r[(scratch + 6) as usize] = prim;
                launch.regs.push(r);
            }
            let out = shader::run(&prog, &shader::Config::default(), &launch, &mut env);
            assert!(out.error.is_none(), "{:?}", out.error);
            for (lane, edge) in edges.iter().enumerate() {
                let r = &out.regs[lane];
                let b = barycentrics(edge.map(edge_f32), rw);
                assert_eq!(r[3], interpolate(b, rw.map(f32::to_bits)), "w, lane {lane}");
                let base = (prim * stride) as usize;
                for k in 0..4 * varyings as usize {
                    let v: [u32; 3] =
                        std::array::from_fn(|i| words[base + i * vstride as usize + 1 + k]);
                    assert_eq!(r[8 + k], interpolate(b, v), "varying word {k}, lane {lane}");
                }
                assert_eq!(r[0], 0x4000_0000 + lane as u32, "r0 kept");
                assert_eq!(r[4], 1, "front kept");
                for k in 0..SCRATCH_REGS {
                    assert_eq!(
                        r[(scratch + k) as usize],
                        0,
                        "scratch r{} zeroed",
                        scratch + k
                    );
                }
            }
        }
    }
}

#[test]
fn relocation_moves_targets_and_uniforms() {
    use rendergen_shader_isa::Inst;
    let prog = assemble("movi r1, 1\nif r1\nldu r2, 3\nelse\nnop\nendif\nend").unwrap();
    let moved = relocate(&prog, 100, 7);
    let imm = |w: u64| Inst::decode(w).unwrap().imm;
    assert_eq!(imm(moved[0]), imm(prog[0]), "movi untouched");
    assert_eq!(imm(moved[1]), imm(prog[1]) + 100, "if's target moved");
    assert_eq!(imm(moved[2]), 10, "ldu index moved by 7");
    assert_eq!(imm(moved[3]), imm(prog[3]) + 100, "else's target moved");
    assert_eq!(moved[4..], prog[4..], "the rest untouched");
}

#[test]
fn depth_conversion_matches_the_model() {
    let design = Design::build("unorm24", |m| {
        let d = m.input("d", 24);
        let f = unorm24_to_f32(m, d);
        m.output("f", f);
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
    let (i, o) = (sim.input("d").unwrap(), sim.output("f").unwrap());
    let mut rng = Rng::new(0xDE7);
    let mut values: Vec<u32> = (0..24)
        .flat_map(|b| [1 << b, (1 << b) - 1, (1 << b) + 1])
        .collect();
    values.extend([0, DEPTH_MAX, DEPTH_MAX - 1, 0x80_0000, 0x55_5555, 0xAA_AAAA]);
    values.extend((0..20_000).map(|_| rng.below(1 << 24) as u32));
    for d in values {
        let d = d & DEPTH_MAX;
        sim.poke(i, d as u64);
        let want = ((d as f64 / DEPTH_MAX as f64) as f32).to_bits();
        assert_eq!(sim.peek(o) as u32, want, "d = {d:#x}");
    }
}
