//! The fragment launcher (`frag_launch`): one [`QuadFrag`] becomes one warp launch of a
//! one-quad shader core (`rtl/shader`), with the fragment-stage built-ins computed here in
//! fixed function and the inputs of the perspective-correct varyings handed to a prologue the
//! core runs before the fragment shader ([`fragment_prologue`]).
//!
//! # Where the barycentrics are computed (issue 13 §1, step 1)
//! The frame model (`sim/models/tile/frame/fragment.rs`) launches a fragment warp with
//! `r0, r1` = the pixel centre, `r2` = the D24 depth as binary32, `r3` = `gl_FragCoord.w`
//! interpolated, `r4` = front facing, `r5` = the sample, `r(8 + k)` = varying word `k`, the
//! last two by `raster::barycentrics` and `raster::interpolate`: binary32 `mul`, `add`, `rcp`,
//! `fma` of D6 in a fixed order. Those are shader-core instructions (`fmul`, `fadd`, `rcp`,
//! `ffma`, bit-exact with the model's `fp32`), so the **core** computes them: the launcher
//! writes `f_i` (the quad's `bary`), `rw_i` and the primitive id into eight scratch registers
//! at the top of the register file, and the prologue (prepended to every fragment shader by
//! the driver) runs the model's operations in the model's order, loads the three vertices'
//! varying words from the primitive buffer with `ldg`, and zeroes its scratch registers before
//! the shader's first instruction (which then sees the interpreter's start state). Only what
//! needs no floating-point unit is fixed function here: the pixel centres (exact integers
//! + 0.5) and the depth conversion ([`unorm24_to_f32`]).
//!
//! # Launch (per quad, in this order, one register of all four lanes per transfer)
//! `r0` x, `r1` y (`tile·16 + 2·q + i + 0.5`), `r2` depth (lane's sample 0), `r4` front facing,
//! `rS..rS+2` = `f_0, f_1, f_2` per lane, `rS+3..rS+5` = `rw_0..rw_2`, `rS+6` = primitive id,
//! with `S = scratch`; the last transfer carries `pc = state · 2^entry_log2` (the draw state's
//! program: the driver loads program `s` at that word), the helper lanes (pixels with no
//! covered sample) and `warp_id` 0 (the model's). `r5` (sample) and `r3` are not
//! sent (0, and computed by the prologue).
//!
//! # Sample-rate shading (4× MSAA)
//! A draw state whose bit is set in `sample_shading` (its fragment shader reads
//! `gl_SampleID`) runs once per sample `k` that some pixel of the quad covers, in increasing
//! `k`, as the frame model's `shade_quads` does: one warp each, with `r2` = the depth of the
//! lane's sample `k`, a twelfth transfer `r5` = `k`, the helpers the pixels that do not cover
//! sample `k`, and for the export collector the coverage of sample `k`'s lanes only (so its
//! outputs go to that sample); only the last of the quad's launches retires it. With one
//! sample per pixel the bit is ignored (sample 0 is pixel-rate shading).
use super::raster::int_to_f32;
use super::{QuadFrag, TileCfg, PRIM_BITS, STATE_BITS, TILE_COORD_BITS};
use crate::fp::fma::leading_zeros;
use crate::shader::{LaunchRec, ShaderCfg};
use rendergen_hdl::{cat, cat_lsb_first, index_select, Bundle, Io, Module, Sig, Stream};

/// Launch transfers per quad.
pub const TRANSFERS: u32 = 11;
/// Launch transfers per sample of a sample-rate shaded quad (`r5` added).
pub const SAMPLE_TRANSFERS: u32 = 12;
/// Scratch registers the launcher and the prologue use (at the top of the register file).
pub const SCRATCH_REGS: u32 = 8;

/// Parameters of [`frag_launch`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FragCfg {
    /// The tile engine's per-tile configuration (samples, render targets).
    pub tile: TileCfg,
    /// The shader core (`quads` must be 1: a warp is one quad).
    pub core: ShaderCfg,
    /// Program `s` starts at word `s · 2^entry_log2`, 0 ..= 16. Default 8.
    pub entry_log2: u32,
    /// Draw states with their own blend state per render target and late-depth flag (the
    /// entries of the engine's `blend_<s>_<rt>_*` and `late_depth` configuration), 1 ..= 16;
    /// a draw state beyond them blends as state 0 and is early-depth tested. Default 4.
    pub states: u32,
}

impl Default for FragCfg {
    fn default() -> Self {
        FragCfg {
            tile: TileCfg::default(),
            core: ShaderCfg::default(),
            entry_log2: 8,
            states: 4,
        }
    }
}

impl FragCfg {
    /// The first scratch register (`regs − 8`).
    pub fn scratch(&self) -> u32 {
        self.core.regs - SCRATCH_REGS
    }

    /// Checks the parameters (errors name them and their range); false if any is bad.
    pub fn check(&self, m: &mut Module) -> bool {
        let quads_ok = self.core.quads == 1
            || m.param_error(
                "core.quads",
                self.core.quads as u64,
                "1 (one quad per fragment warp)",
            );
        let regs_ok = m.check_param("core.regs", self.core.regs as u64, 16..=256);
        let entry_ok = m.check_param("entry_log2", self.entry_log2 as u64, 0..=16);
        let states_ok = m.check_param("states", self.states as u64, 1..=16);
        self.tile.check(m) & quads_ok & regs_ok & entry_ok & states_ok
    }
}

/// A launched quad, for the export collector (in launch order).
#[derive(Bundle, Clone, Debug, PartialEq)]
pub struct Launched<T = Sig> {
    /// The warp slot the core gave it.
    pub slot: T,
    /// Quad column.
    pub qx: T,
    /// Quad row.
    pub qy: T,
    /// Lanes to write (after the depth test; one sample's lanes for a sample launch).
    pub coverage: T,
    /// Draw state.
    pub state: T,
    /// Late depth (the quad's [`QuadFrag::late`]).
    pub late: T,
    /// `VkCompareOp` of the late depth test.
    pub depth_op: T,
    /// The late depth test writes.
    pub depth_write: T,
    /// D24 depth of each pixel's sample 0: a late-depth pixel's depth when its shader
    /// exports none (the frame model's rule).
    pub depth: [T; 4],
    /// The quad's last launch (its retirement): always, but for the sample launches of a
    /// sample-rate shaded quad before its last.
    pub last: T,
}

impl Launched<u32> {
    /// The shape for `cfg`.
    pub fn shape(cfg: &FragCfg) -> Launched<u32> {
        Launched {
            slot: cfg.core.slot_bits(),
            qx: 3,
            qy: 3,
            coverage: cfg.tile.lanes() as u32,
            state: STATE_BITS,
            late: 1,
            depth_op: 3,
            depth_write: 1,
            depth: [super::DEPTH_BITS; 4],
            last: 1,
        }
    }
}

/// What [`frag_launch`] takes.
#[derive(Io)]
pub struct FragIn {
    /// Quads from the rasteriser (after early depth).
    pub quad: Stream<QuadFrag>,
    /// The current tile's column and row ([`TILE_COORD_BITS`] each).
    pub tile: [Sig; 2],
    /// The slot the core puts the launch on `launch` into.
    pub launch_slot: Sig,
    /// The export collector has a free entry: a launch may start.
    pub room: Sig,
    /// Configuration: bit `s` (of `2^STATE_BITS`) set when draw state `s` shades per sample.
    pub sample_shading: Sig,
}

/// What [`frag_launch`] gives.
#[derive(Io)]
pub struct FragOut {
    /// Launch transfers for the core.
    pub launch: Stream<LaunchRec>,
    /// The quads launched, in order (a push per quad, at its last transfer).
    pub launched: Stream<Launched>,
}

/// `d / (2^24 − 1)` rounded to binary64, then to binary32 (the model's
/// `(d as f64 / DEPTH_MAX as f64) as f32`), bit for bit.
///
/// The quotient's binary expansion is the 24-bit pattern of `d` repeated forever, so the
/// binary64 rounding never ties (a 1 always follows): the 53 bits after the leading one plus
/// the next bit; then binary32 rounding to nearest even of that. Combinational.
pub fn unorm24_to_f32(m: &mut Module, d: Sig) -> Sig {
    let pattern = cat(&[d, d, d, d]); // 96 bits, bit 95 = d's MSB
    let lz = leading_zeros(m, d).resize(5);
    let norm = pattern.shl(lz.zext(7));
    let sig53 = norm.bits(95, 43);
    let round = norm.bit(42);
    let f64_sig = sig53.add_full(round.zext(53)); // 54 bits
    let carry64 = f64_sig.bit(53);
    let m24 = f64_sig.bits(52, 29);
    let guard = f64_sig.bit(28);
    let sticky = f64_sig.bits(27, 0).any();
    let up = guard & (sticky | m24.bit(0));
    let rounded = m24.add_full(up.zext(24)); // 25 bits
    let carry32 = carry64 | rounded.bit(24);
    let mantissa = carry64.mux(m.lit(0, 23), rounded.bits(22, 0));
    let exponent = m.lit(126, 8) - lz.zext(8) + carry32.zext(8);
    let bits = cat(&[m.lit(0, 1), exponent, mantissa]);
    let one = m.lit(0x3F80_0000, 32);
    let max = (1u64 << 24) - 1;
    d.eq(0).mux(m.lit(0, 32), d.eq(max).mux(one, bits))
}

/// `n + 0.5` as binary32 for an unsigned integer `n` below 2^23 (exact).
fn centre_f32(m: &mut Module, n: Sig) -> Sig {
    let twice = cat(&[n, m.lit(1, 1)]).zext(32); // 2n + 1, positive
    let f = int_to_f32(m, twice);
    // Halve: the exponent minus one (2n + 1 ≥ 1 is a normal number).
    cat(&[f.bit(31), f.bits(30, 23) - 1, f.bits(22, 0)])
}

/// Bits of `x`, least significant first.
fn bits_of(x: Sig) -> Vec<Sig> {
    (0..x.width()).map(|i| x.bit(i)).collect()
}

/// Which sample a quad's launch is for, with 4 samples: the lowest sample some pixel covers
/// from `from` on; whether another follows it.
fn next_sample(m: &mut Module, coverage: Sig, from: Sig) -> (Sig, Sig) {
    let present: Vec<Sig> = (0..4u32)
        .map(|k| (0..4u32).fold(m.lit(0, 1), |a, p| a | coverage.bit(4 * p + k)))
        .collect();
    let present = cat_lsb_first(&present);
    let at_or_above = index_select(
        from,
        &[0b1111u64, 0b1110, 0b1100, 0b1000].map(|v| m.lit(v, 4)),
    );
    let left = present & at_or_above;
    let first = left.bit(0).mux(
        m.lit(0, 2),
        left.bit(1)
            .mux(m.lit(1, 2), left.bit(2).mux(m.lit(2, 2), m.lit(3, 2))),
    );
    let more = (left & (left - 1u64)).any();
    (first, more)
}

/// Turns each quad into [`TRANSFERS`] launch transfers (module docs), or a sample-rate shaded
/// quad into [`SAMPLE_TRANSFERS`] per covered sample.
///
/// * **Protocol:** stream rules; quads in order; a launch starts only with `room` (the export
///   collector's free entry; only a launch here fills one, so `room` never falls while a
///   launch is offered); `quad` is taken with its last launch's last transfer, and
///   `launched` is offered at each launch's last transfer (it must not stall: the engine's
///   order FIFO has a place for every warp slot).
/// * **Timing:** one transfer per clock while the core takes them: [`TRANSFERS`] clocks per
///   quad, [`SAMPLE_TRANSFERS`] per covered sample when shading per sample; `launch.valid`
///   and data are combinational from `quad`, `room` and the counters.
/// * **Cost:** a 4-bit transfer counter, a 2-bit sample register, a `2^STATE_BITS`-way bit
///   select of `sample_shading`; the built-ins' converters (four `int_to_f32` per
///   coordinate, four [`unorm24_to_f32`] behind a 4-way depth select with 4 samples).
pub fn frag_launch(m: &mut Module, cfg: &FragCfg, i: FragIn) -> FragOut {
    let FragIn {
        quad,
        tile,
        launch_slot,
        room,
        sample_shading,
    } = i;
    let (valid, q, ready) = quad.split();
    let s = cfg.tile.samples as usize;
    let rw_bits = cfg.core.reg_bits();
    let step = m.reg("step", 4).reset(0);
    let from = m.reg("sample_from", 2).reset(0);
    // Per-sample launches (4 samples only): the sample and whether the quad ends with it.
    let (per_sample, sample, more) = if s == 4 {
        let per_sample = index_select(q.state, &bits_of(sample_shading));
        let (first, more) = next_sample(m, q.coverage, from.q());
        (
            per_sample,
            per_sample.mux(first, m.lit(0, 2)),
            per_sample & more,
        )
    } else {
        (m.lit(0, 1), m.lit(0, 2), m.lit(0, 1))
    };
    let last = per_sample.mux(
        step.q().eq((SAMPLE_TRANSFERS - 1) as u64),
        step.q().eq((TRANSFERS - 1) as u64),
    );

    let coord = |m: &mut Module, t: Sig, qc: Sig, off: u64| {
        let n = cat(&[t.resize(TILE_COORD_BITS), qc, m.lit(off, 1)]); // t·16 + 2q + off
        centre_f32(m, n)
    };
    let xs: Vec<Sig> = (0..4).map(|p| coord(m, tile[0], q.qx, p & 1)).collect();
    let ys: Vec<Sig> = (0..4).map(|p| coord(m, tile[1], q.qy, p >> 1)).collect();
    let zs: Vec<Sig> = (0..4)
        .map(|p| {
            let d = match s {
                4 => index_select(sample, &q.depth[4 * p..4 * p + 4]),
                _ => q.depth[p * s],
            };
            unorm24_to_f32(m, d)
        })
        .collect();
    let all = |v: Sig| vec![v; 4];
    let scratch = cfg.scratch() as u64;
    let mut rows: Vec<(u64, Vec<Sig>)> =
        vec![(0, xs), (1, ys), (2, zs), (4, all(q.front.zext(32)))];
    for k in 0..3 {
        rows.push((scratch + k as u64, (0..4).map(|p| q.bary[p][k]).collect()));
    }
    for k in 0..3 {
        rows.push((scratch + 3 + k as u64, all(q.rw[k])));
    }
    rows.push((scratch + 6, all(q.prim.resize(PRIM_BITS).zext(32))));
    debug_assert_eq!(rows.len() as u32, TRANSFERS);
    if s == 4 {
        rows.push((5, all(sample.zext(32))));
    }
    let reg = index_select(
        step.q(),
        &rows.iter().map(|r| m.lit(r.0, rw_bits)).collect::<Vec<_>>(),
    );
    let data: Vec<Sig> = (0..4)
        .map(|lane| {
            let choices: Vec<Sig> = rows.iter().map(|r| r.1[lane]).collect();
            index_select(step.q(), &choices)
        })
        .collect();
    // The lanes of this launch: every sample, or sample `sample`'s of each pixel.
    let coverage = match s {
        4 => {
            let lanes_of = |k: u64| (0..4).fold(0u64, |a, p| a | 1 << (4 * p + k));
            let of_sample = index_select(sample, &[0, 1, 2, 3].map(|k| m.lit(lanes_of(k), 16)));
            q.coverage & per_sample.mux(of_sample, m.lit(0xFFFF, 16))
        }
        _ => q.coverage,
    };
    let helpers = cat_lsb_first(
        &(0..4)
            .map(|p| !coverage.bits((p * s + s - 1) as u32, (p * s) as u32).any())
            .collect::<Vec<_>>(),
    );
    let pc = (q.state.zext(32) << cfg.entry_log2).resize(32);
    let rec = LaunchRec {
        write: m.lit(1, 1),
        reg,
        data,
        last,
        pc,
        helpers,
        warp_id: m.lit(0, 32),
    };
    // `room` is checked at a launch's first transfer only (it cannot fall during one).
    let go = valid & (room | step.q().ne(0u64));
    let (launch, launch_ready) = Stream::offer(m, "launch", go, rec);
    let fire = go & launch_ready;
    let done = fire & last;
    step.next(fire.mux(last.mux(m.lit(0, 4), step.q() + 1), step.q()));
    let quad_done = done & !more;
    from.next(done.mux(more.mux(sample + 1u64, m.lit(0, 2)), from.q()));
    ready.drive(quad_done);
    let info = Launched {
        slot: launch_slot,
        qx: q.qx,
        qy: q.qy,
        coverage,
        state: q.state,
        late: q.late,
        depth_op: q.depth_op,
        depth_write: q.depth_write,
        depth: std::array::from_fn(|p| q.depth[p * s]),
        last: !more,
    };
    let (launched, _always_ready) = Stream::offer(m, "launched", done, info);
    FragOut { launch, launched }
}

/// The prologue of a fragment shader for the launcher's register layout: binary32
/// barycentrics and `gl_FragCoord.w` exactly as `sim/models/tile/raster.rs`'s
/// `barycentrics`/`interpolate`, then `4 · varyings` varying words `r(8 + k)` from the
/// primitive buffer, then the scratch registers zeroed. It has no control flow, so the
/// shader after it needs its jump targets moved by its length ([`relocate`]).
///
/// * `scratch`: the first of the eight scratch registers ([`FragCfg::scratch`]).
/// * `prim_base`: the byte address (as the core's `ldg` sees it) of primitive 0's record;
///   `prim_stride`: words per primitive; `vertex_stride`: words per vertex (`rw` then the
///   varying words) — the frame model's primitive buffer layout.
pub fn fragment_prologue(
    scratch: u32,
    varyings: u32,
    prim_base: u32,
    prim_stride: u32,
    vertex_stride: u32,
) -> Vec<u64> {
    let r = |k: u32| format!("r{}", scratch + k);
    let mut a = String::new();
    let mut line = |s: String| {
        a.push_str(&s);
        a.push('\n');
    };
    // p_i = f_i · rw_i; s = (p_0 + p_1) + p_2; r = rcp(s); b_i = p_i · r.
    for k in 0..3 {
        line(format!("fmul {}, {}, {}", r(k), r(k), r(3 + k)));
    }
    line(format!("fadd {}, {}, {}", r(7), r(0), r(1)));
    line(format!("fadd {}, {}, {}", r(7), r(7), r(2)));
    line(format!("rcp {}, {}", r(7), r(7)));
    for k in 0..3 {
        line(format!("fmul {}, {}, {}", r(k), r(k), r(7)));
    }
    // gl_FragCoord.w = fma(b_2, rw_2, fma(b_1, rw_1, b_0 · rw_0)).
    line(format!("fmul {}, {}, {}", r(7), r(0), r(3)));
    line(format!("ffma {}, {}, {}, {}", r(7), r(1), r(4), r(7)));
    line(format!("ffma r3, {}, {}, {}", r(2), r(5), r(7)));
    line(format!(
        "imuli {}, {}, {}",
        r(6),
        r(6),
        4u64 * prim_stride as u64
    ));
    for k in 0..4 * varyings {
        for v in 0..3 {
            let off = prim_base as u64 + 4 * (v * vertex_stride + 1 + k) as u64;
            line(format!("ldg {}, {}, {}", r(3 + v), r(6), off as u32));
        }
        line(format!("fmul {}, {}, {}", r(7), r(0), r(3)));
        line(format!("ffma {}, {}, {}, {}", r(7), r(1), r(4), r(7)));
        line(format!("ffma r{}, {}, {}, {}", 8 + k, r(2), r(5), r(7)));
    }
    for k in 0..SCRATCH_REGS {
        line(format!("movi {}, 0", r(k)));
    }
    rendergen_shader_isa::asm::assemble(&a).expect("the prologue assembles")
}

/// `program` with every control instruction's target moved by `by` words (targets are
/// absolute instruction-memory words: `by` is where the program's first word is loaded, its
/// slot base plus any prologue) and every `ldu` index by `uniforms` (its uniform words start
/// there in the engine's uniform memory).
pub fn relocate(program: &[u64], by: u32, uniforms: u32) -> Vec<u64> {
    use rendergen_shader_isa::{Inst, Opcode};
    program
        .iter()
        .map(|&w| match Inst::decode(w) {
            Ok(mut i) if i.op.format().has_target() => {
                i.imm = i.imm.wrapping_add(by);
                i.encode()
            }
            Ok(mut i) if i.op == Opcode::Ldu => {
                i.imm = i.imm.wrapping_add(uniforms);
                i.encode()
            }
            _ => w,
        })
        .collect()
}
