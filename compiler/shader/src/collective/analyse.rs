//! Recognition of a kernel shader: the checks of the module table, evaluated on the IR.

use super::{LaunchProps, Params, PixelInput, Refusal};
use crate::abi;
use crate::ir::{walk, Op, Program, Stmt, Value};
use crate::opt::eval::eval;
use rendergen_shader_isa::Opcode;
use std::collections::{BTreeSet, HashMap};

/// Where a sample lands relative to its lane's pixel on one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisPos {
    /// Texel offset of the footprint's first texel from the pixel.
    pub offset: i32,
    /// The filter's 8-bit fraction (0: the sample is the texel at `offset`).
    pub frac8: u32,
    /// The coordinate's 16-bit fraction (the position the shader meant, to 2^−16 texel).
    pub frac16: u32,
}

/// One sample of the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The `tex` statement's four answer words.
    pub dst: [Value; 4],
    /// Position on x and y.
    pub pos: [AxisPos; 2],
    /// Per channel, the values of the ABI's conversion `ffma(u2f(dst[c]), 1/65535, −0)`.
    pub conv: [Vec<Value>; 4],
}

impl Sample {
    /// The texel offsets it reads: one (a tap), two or four (a bilinear sample).
    pub fn taps(&self) -> Vec<(i32, i32)> {
        let span = |p: AxisPos| {
            if p.frac8 == 0 {
                vec![p.offset]
            } else {
                vec![p.offset, p.offset + 1]
            }
        };
        let (xs, ys) = (span(self.pos[0]), span(self.pos[1]));
        ys.iter()
            .flat_map(|&y| xs.iter().map(move |&x| (x, y)))
            .collect()
    }

    /// Whether the unit filters it (a non-zero fraction).
    pub fn is_bilinear(&self) -> bool {
        self.pos.iter().any(|p| p.frac8 != 0)
    }
}

/// A window of taps and the patch the quad needs for it (offsets from the quad's top-left
/// pixel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Window index per axis.
    pub index: (i32, i32),
    /// The patch's top-left texel.
    pub x0: i32,
    /// The patch's top row.
    pub y0: i32,
    /// Patch width (even).
    pub w: u32,
    /// Patch height (even).
    pub h: u32,
}

impl Window {
    /// Its 2×2 footprints.
    pub fn footprints(&self) -> u32 {
        self.w / 2 * (self.h / 2)
    }

    /// The sideband's patch code (§A.8): 1 = 4×4, 2 = 2×8, 3 = 8×2, 0 otherwise.
    pub fn patch_code(&self) -> u32 {
        match (self.w, self.h) {
            (4, 4) => 1,
            (2, 8) => 2,
            (8, 2) => 3,
            _ => 0,
        }
    }
}

/// A recognised kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Samples in program order.
    pub samples: Vec<Sample>,
    /// The mip level sampled.
    pub level: u32,
    /// The windows with taps, in order of first use.
    pub windows: Vec<Window>,
    /// Machine instructions of the original.
    pub instructions: usize,
    /// The thresholds used.
    pub params: Params,
    /// The taps' box `(x_min, x_max, y_min, y_max)`.
    pub taps: (i32, i32, i32, i32),
}

impl Analysis {
    /// Samples the filter blends (fraction ≠ 0).
    pub fn bilinear_samples(&self) -> usize {
        self.samples.iter().filter(|s| s.is_bilinear()).count()
    }

    /// Footprints per quad of the collective fetch (= requests to the unit).
    pub fn footprints(&self) -> u32 {
        self.windows.iter().map(|w| w.footprints()).sum()
    }

    /// The bilinear pattern of ¶99: every bilinear sample blends along one axis only and no
    /// texel is read by two samples.
    pub fn bilinear_pattern(&self) -> bool {
        let mut seen = BTreeSet::new();
        self.bilinear_samples() > 0
            && self.samples.iter().all(|s| {
                let one_axis = s.pos[0].frac8 == 0 || s.pos[1].frac8 == 0;
                one_axis && s.taps().into_iter().all(|t| seen.insert(t))
            })
    }

    /// The window holding tap `t`.
    pub fn window_of(&self, t: (i32, i32)) -> usize {
        let k = self.params.window as i32;
        let idx = (
            (t.0 - self.taps.0).div_euclid(k),
            (t.1 - self.taps.2).div_euclid(k),
        );
        self.windows
            .iter()
            .position(|w| w.index == idx)
            .expect("every tap has a window")
    }
}

/// The fields of a sampler word the checks read (`ABI.md` "Sampled textures").
struct Word {
    mode: u32,
    int_coords: bool,
    broadcast: bool,
    linear: bool,
    mip: u32,
    explicit: bool,
    lod: i32,
}

fn decode(w: u32) -> Word {
    Word {
        mode: w & 3,
        int_coords: w & abi::TEX_INT_COORDS != 0,
        broadcast: w >> 3 & 1 == 1,
        linear: w & abi::TEX_LINEAR != 0,
        mip: w >> 11 & 3,
        explicit: w & abi::TEX_EXPLICIT_LOD != 0,
        lod: (w >> 16) as u16 as i16 as i32,
    }
}

/// Definitions and uses of the whole program.
struct Defs<'p> {
    def: HashMap<Value, &'p Op>,
    /// Per value, its users: `Some(dst, op)` for a definition, `None` for anything else.
    users: HashMap<Value, Vec<Option<(Value, &'p Op)>>>,
}

fn defs_of(p: &Program) -> Defs<'_> {
    let mut d = Defs {
        def: HashMap::new(),
        users: HashMap::new(),
    };
    // `walk` hands out references tied to the closure; collect by index instead.
    fn rec<'p>(b: &'p [Stmt], d: &mut Defs<'p>) {
        for s in b {
            match s {
                Stmt::Def { dst, op } => {
                    d.def.insert(*dst, op);
                    for &a in op.args() {
                        d.users.entry(a).or_default().push(Some((*dst, op)));
                    }
                }
                Stmt::If { then, els, .. } => {
                    for v in crate::ir::uses(s) {
                        d.users.entry(v).or_default().push(None);
                    }
                    rec(then, d);
                    rec(els, d);
                }
                Stmt::Loop { body, .. } => {
                    for v in crate::ir::uses(s) {
                        d.users.entry(v).or_default().push(None);
                    }
                    rec(body, d);
                }
                _ => {
                    for v in crate::ir::uses(s) {
                        d.users.entry(v).or_default().push(None);
                    }
                }
            }
        }
    }
    rec(&p.body, &mut d);
    d
}

/// `eval` plus the conversions and reciprocals whose result is exact on the values met here.
fn eval_ext(op: Opcode, a: &[u32]) -> Option<u32> {
    if let Some(v) = eval(op, a) {
        return Some(v);
    }
    let f = f32::from_bits(a[0]);
    let finite = f.is_finite() && a[0] & 0x7F80_0000 != 0 || a[0] & 0x7FFF_FFFF == 0;
    match op {
        Opcode::F2i if finite && f.abs() < 2.0e9 => Some(f.trunc() as i32 as u32),
        Opcode::F2u if finite && (0.0..4.0e9).contains(&f) => Some(f.trunc() as u32),
        Opcode::Floor if finite => Some(f.floor().to_bits()),
        Opcode::Trunc if finite => Some(f.trunc().to_bits()),
        Opcode::Ceil if finite => Some(f.ceil().to_bits()),
        // 1/x is exact for a power of two whose reciprocal is normal
        Opcode::Rcp
            if finite && a[0] & 0x007F_FFFF == 0 && (2..=252).contains(&(a[0] >> 23 & 0xFF)) =>
        {
            Some((1.0 / f).to_bits())
        }
        _ => None,
    }
}

/// Value of `v` with input register `reg` = `word`; `None` if it reads anything else or an
/// operation the pass cannot evaluate exactly.
fn value(
    d: &Defs,
    v: Value,
    reg: u8,
    word: u32,
    memo: &mut HashMap<Value, Option<u32>>,
) -> Option<u32> {
    if let Some(&m) = memo.get(&v) {
        return m;
    }
    let r = match d.def.get(&v)? {
        Op::Const(w) => Some(*w),
        Op::Input(r) if *r == reg => Some(word),
        Op::Copy(x) => value(d, *x, reg, word, memo),
        Op::Alu(code, args) => {
            let mut a = Vec::with_capacity(args.len());
            for &x in args {
                a.push(value(d, x, reg, word, memo)?);
            }
            eval_ext(*code, &a)
        }
        _ => None,
    };
    memo.insert(v, r);
    r
}

/// What `v` reads: input registers, and `None` for anything that is not an input or constant.
fn sources(d: &Defs, v: Value, out: &mut BTreeSet<Option<u8>>, seen: &mut BTreeSet<Value>) {
    if !seen.insert(v) {
        return;
    }
    match d.def.get(&v) {
        Some(Op::Const(_)) => {}
        Some(Op::Input(r)) => {
            out.insert(Some(*r));
        }
        Some(Op::Copy(x)) => sources(d, *x, out, seen),
        Some(Op::Alu(code, args))
            if *code != Opcode::Lane && *code != Opcode::Quad && *code != Opcode::Warp =>
        {
            for &x in args {
                sources(d, x, out, seen);
            }
        }
        _ => {
            out.insert(None);
        }
    }
}

/// The launch register and the pixel's word on axis `axis`.
fn pixel_reg(launch: &LaunchProps, axis: usize) -> u8 {
    match launch.pixel {
        PixelInput::FragCoord => axis as u8,
        PixelInput::Integer { x, y } => [x, y][axis],
    }
}

fn pixel_word(launch: &LaunchProps, p: u32) -> u32 {
    match launch.pixel {
        PixelInput::FragCoord => (p as f32 + 0.5).to_bits(),
        PixelInput::Integer { .. } => p,
    }
}

/// The texture unit's position of coordinate word `w` on an axis (`ABI.md`; the unit's
/// fixed point: `S = floor(s · size · 2^16)`, at level `l` `floor(S · size_l / size)`).
fn position(w: u32, word: &Word, size: u32, size_lvl: u32) -> (i64, u32, u32) {
    if word.int_coords {
        return (w as i32 as i64, 0, 0);
    }
    let s = f32::from_bits(w);
    let big = if s.is_nan() || w & 0x7F80_0000 == 0 {
        0
    } else {
        (s as f64 * size as f64 * 65536.0)
            .floor()
            .clamp(i32::MIN as f64, i32::MAX as f64) as i64
    };
    let u = (big * size_lvl as i64).div_euclid(size as i64);
    if !word.linear {
        return (u >> 16, 0, 0);
    }
    let v = u - (1 << 15);
    (v >> 16, ((v >> 8) & 255) as u32, (v & 0xFFFF) as u32)
}

/// The mip level the samples read, or why it is not a whole level.
fn level(word: &Word, launch: &LaunchProps) -> Result<u32, Refusal> {
    let bad = |s: String| Err(Refusal::NonIntegerLod(s));
    if word.int_coords {
        return Ok((word.lod >> 8).max(0) as u32);
    }
    let (lo, hi) = launch.lod_clamp;
    let lambda = if word.explicit {
        word.lod
    } else {
        if word.lod != 0 {
            return bad(format!(
                "a LOD bias of {} (the derived LOD plus a bias)",
                word.lod as f64 / 256.0
            ));
        }
        0 // implicit: λ = 0 when the texture is the render size (check 5)
    };
    let clamped = lambda.clamp(lo, hi);
    if !word.explicit && clamped != lambda {
        return bad(format!(
            "the descriptor's LOD clamp {}..{} moves the derived LOD 0",
            lo as f64 / 256.0,
            hi as f64 / 256.0
        ));
    }
    match word.mip {
        0 => Ok(0),
        1 => Ok(if clamped <= 128 {
            0
        } else {
            ((clamped + 127) >> 8) as u32
        }),
        _ if clamped <= 0 => Ok(0),
        _ if clamped & 255 == 0 => Ok((clamped >> 8) as u32),
        _ => bad(format!(
            "LOD {} with linear mipmapping blends two levels",
            clamped as f64 / 256.0
        )),
    }
}

/// Runs the checks (see the module docs).
pub fn analyse(
    p: &Program,
    instructions: usize,
    launch: &LaunchProps,
    params: &Params,
) -> Result<Analysis, Refusal> {
    // 1. structure
    let mut all = 0usize;
    walk(&p.body, &mut |s| {
        all += matches!(s, Stmt::Tex { .. }) as usize
    });
    let top: Vec<(&[Value; 4], u32, &[Value; 2])> = p
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Tex {
                dst,
                sampler,
                coord,
            } => Some((dst, *sampler, coord)),
            _ => None,
        })
        .collect();
    if top.len() != all {
        return Err(Refusal::Structure(format!(
            "{} of {all} samples are inside a branch or loop (unroll the kernel)",
            all - top.len()
        )));
    }
    let n = top.len();
    // 2, 3
    if n < params.min_samples {
        return Err(Refusal::TooFewSamples {
            samples: n,
            min: params.min_samples,
        });
    }
    // The source counts vector instructions; the core is scalar (a vec4 operation is four
    // instructions) and each sample carries the ABI's UNORM16 conversion (8 instructions: the
    // texture unit's work on the source's GPU), so the share is taken over
    // (instructions − 8·samples) / 4.
    let vector = instructions.saturating_sub(8 * n) / 4;
    if n * params.max_instructions_per_sample < vector {
        return Err(Refusal::FewSampleInstructions {
            samples: n,
            instructions: vector,
        });
    }
    let w0 = top[0].1;
    if let Some(k) = top.iter().position(|t| t.1 != w0) {
        return Err(Refusal::Structure(format!(
            "sample {k} has sampler word {:#010x}, sample 0 {w0:#010x}",
            top[k].1
        )));
    }
    let word = decode(w0);
    if word.mode != abi::TEX_MODE_FILTERED || word.broadcast {
        return Err(Refusal::Structure(
            "the samples are gathers, raw or broadcast fetches, not plain texture reads".into(),
        ));
    }
    // 4, 5, 6
    let level = level(&word, launch)?;
    let (rw, rh) = launch.render_size;
    let tex = launch.texture_size.unwrap_or((rw << level, rh << level));
    let at_level = ((tex.0 >> level).max(1), (tex.1 >> level).max(1));
    if at_level != (rw, rh) {
        return Err(Refusal::TextureSizeNotRenderSize {
            texture: at_level,
            render: (rw, rh),
            level,
        });
    }
    if launch.srgb {
        return Err(Refusal::Srgb);
    }
    // 7: every pixel of the render size
    let d = defs_of(p);
    let mut samples = Vec::with_capacity(n);
    for (k, &(dst, _, coord)) in top.iter().enumerate() {
        let mut pos = [AxisPos {
            offset: 0,
            frac8: 0,
            frac16: 0,
        }; 2];
        for axis in 0..2 {
            pos[axis] = axis_pos(&d, coord[axis], axis, launch, &word, tex, at_level)
                .map_err(|reason| Refusal::NotCentred { sample: k, reason })?;
        }
        samples.push(Sample {
            dst: *dst,
            pos,
            conv: Default::default(),
        });
    }
    let taps: Vec<(i32, i32)> = samples.iter().flat_map(|s| s.taps()).collect();
    let bx = (
        taps.iter().map(|t| t.0).min().unwrap_or(0),
        taps.iter().map(|t| t.0).max().unwrap_or(0),
        taps.iter().map(|t| t.1).min().unwrap_or(0),
        taps.iter().map(|t| t.1).max().unwrap_or(0),
    );
    if bx.0 != -bx.1 || bx.2 != -bx.3 {
        return Err(Refusal::NotCentred {
            sample: 0,
            reason: format!(
                "the taps span x {}..{}, y {}..{}: not symmetric about the pixel",
                bx.0, bx.1, bx.2, bx.3
            ),
        });
    }
    // 8
    for (k, s) in samples.iter_mut().enumerate() {
        s.conv = summed(&d, s.dst).map_err(|reason| Refusal::NotSummed { sample: k, reason })?;
    }
    // 9
    let windows = windows(&samples, bx, params.window);
    let fp: u32 = windows.iter().map(|w| w.footprints()).sum();
    let subops = fp.div_ceil(4);
    if subops > params.max_sub_operations {
        return Err(Refusal::OutOfGatherRange {
            sub_operations: subops,
            max: params.max_sub_operations,
            taps: bx,
        });
    }
    Ok(Analysis {
        samples,
        level,
        windows,
        instructions,
        params: *params,
        taps: bx,
    })
}

/// How far (in 1/65536 texel) a sample's position may wander over the pixels (binary32
/// rounding of `(x + 0.5 + d) / size` for a non-dyadic `d`); the filter's 8-bit fraction and
/// the texel must not change at all.
pub const FRAC16_TOLERANCE: u32 = 64;

/// Check 7 on one axis of one sample.
fn axis_pos(
    d: &Defs,
    coord: Value,
    axis: usize,
    launch: &LaunchProps,
    word: &Word,
    tex: (u32, u32),
    at_level: (u32, u32),
) -> Result<AxisPos, String> {
    let name = ["x", "y"][axis];
    let reg = pixel_reg(launch, axis);
    let mut src = BTreeSet::new();
    sources(d, coord, &mut src, &mut BTreeSet::new());
    if src != BTreeSet::from([Some(reg)]) {
        let what: Vec<String> = src
            .iter()
            .map(|s| match s {
                Some(r) => format!("r{r}"),
                None => "a uniform, memory or other non-constant value".into(),
            })
            .collect();
        return Err(format!(
            "coordinate {name} reads {} (expected the pixel's r{reg} and constants)",
            if what.is_empty() {
                "no input".to_string()
            } else {
                what.join(", ")
            }
        ));
    }
    let size = [tex.0, tex.1][axis];
    let size_lvl = [at_level.0, at_level.1][axis];
    let render = [launch.render_size.0, launch.render_size.1][axis];
    let mut first: Option<AxisPos> = None;
    let (mut lo16, mut hi16, mut sum16) = (u32::MAX, 0u32, 0u64);
    for p in 0..render {
        let mut memo = HashMap::new();
        let w = value(d, coord, reg, pixel_word(launch, p), &mut memo).ok_or_else(|| {
            format!("coordinate {name} uses an operation the pass cannot evaluate exactly")
        })?;
        let (i0, frac8, frac16) = position(w, word, size, size_lvl);
        let here = AxisPos {
            offset: (i0 - p as i64).clamp(-(1 << 20), 1 << 20) as i32,
            frac8,
            frac16: 0,
        };
        (lo16, hi16, sum16) = (lo16.min(frac16), hi16.max(frac16), sum16 + frac16 as u64);
        match first {
            None => first = Some(here),
            Some(f) if f != here => {
                return Err(format!(
                    "coordinate {name}: pixel 0 reads texel offset {} (fraction {}/256), pixel {p} offset {} (fraction {}/256)",
                    f.offset, f.frac8, here.offset, here.frac8
                ))
            }
            _ => {}
        }
    }
    if hi16 - lo16 > FRAC16_TOLERANCE {
        return Err(format!(
            "coordinate {name}: the position within the texel varies by {}/65536 over the pixels (tolerance {FRAC16_TOLERANCE}/65536)",
            hi16 - lo16
        ));
    }
    let mut f = first.expect("render size ≥ 1");
    f.frac16 = ((sum16 + render as u64 / 2) / render as u64) as u32;
    if f.offset.abs() > 64 {
        return Err(format!("coordinate {name}: offset {} texels", f.offset));
    }
    Ok(f)
}

/// Check 8: the conversions of the sample's channels, if each feeds only weighted sums.
fn summed(d: &Defs, dst: [Value; 4]) -> Result<[Vec<Value>; 4], String> {
    let konst = |v: Value| matches!(d.def.get(&v), Some(Op::Const(_) | Op::Uniform(_)));
    let users = |v: Value| d.users.get(&v).map_or(&[][..], |u| u.as_slice());
    let mut conv: [Vec<Value>; 4] = Default::default();
    for (c, &w) in dst.iter().enumerate() {
        for u in users(w) {
            let Some((f, Op::Alu(Opcode::U2f, _))) = u else {
                return Err(format!(
                    "channel {c} is used other than by the ABI's conversion"
                ));
            };
            for u2 in users(*f) {
                let ok = matches!(u2, Some((_, Op::Alu(Opcode::Ffma, a)))
                    if a[0] == *f
                        && matches!(d.def.get(&a[1]), Some(Op::Const(k)) if *k == abi::UNORM16_SCALE.to_bits())
                        && matches!(d.def.get(&a[2]), Some(Op::Const(0x8000_0000))));
                if !ok {
                    return Err(format!(
                        "channel {c} is used other than by the ABI's conversion"
                    ));
                }
                let (v, _) = u2.expect("matched");
                conv[c].push(v);
            }
        }
    }
    // each converted value: weighted (× a lane-invariant weight) or added
    for (c, vs) in conv.iter().enumerate() {
        for &v in vs {
            for u in users(v) {
                let Some((t, Op::Alu(op, a))) = u else {
                    return Err(format!(
                        "channel {c} goes to a store, export or branch unweighted and unsummed"
                    ));
                };
                let weighted = match op {
                    Opcode::Fmul => konst(a[0]) || konst(a[1]),
                    Opcode::Ffma => {
                        (a[2] == v && a[0] != v && a[1] != v)
                            || ((a[0] == v && konst(a[1])) || (a[1] == v && konst(a[0])))
                    }
                    Opcode::Fadd | Opcode::Fsub => true,
                    _ => false,
                };
                if !weighted {
                    return Err(format!(
                        "channel {c} goes into {} (not a weight or a sum)",
                        op.mnemonic()
                    ));
                }
                // a product must go on into a sum
                if *op == Opcode::Fmul {
                    for u3 in users(*t) {
                        let sum = matches!(u3, Some((_, Op::Alu(Opcode::Fadd | Opcode::Fsub, _))))
                            || matches!(u3, Some((_, Op::Alu(Opcode::Ffma, a))) if a[2] == *t);
                        if !sum {
                            return Err(format!("channel {c}'s weighted value is not summed"));
                        }
                    }
                }
            }
        }
    }
    Ok(conv)
}

/// Check 9: the windows of taps (per axis chunks of `k` taps from the box's corner); each
/// window's patch is the box of its own taps plus the quad's extra column and row, rounded up
/// to whole footprints.
fn windows(samples: &[Sample], bx: (i32, i32, i32, i32), k: u32) -> Vec<Window> {
    let k = k as i32;
    // per window: the box of its taps, in order of first use
    type TapBox = (i32, i32, i32, i32);
    let mut boxes: Vec<((i32, i32), TapBox)> = Vec::new();
    for s in samples {
        for t in s.taps() {
            let idx = ((t.0 - bx.0).div_euclid(k), (t.1 - bx.2).div_euclid(k));
            match boxes.iter_mut().find(|b| b.0 == idx) {
                Some((_, b)) => *b = (b.0.min(t.0), b.1.max(t.0), b.2.min(t.1), b.3.max(t.1)),
                None => boxes.push((idx, (t.0, t.0, t.1, t.1))),
            }
        }
    }
    let even = |n: i32| (n as u32).div_ceil(2) * 2;
    boxes
        .into_iter()
        .map(|(index, b)| Window {
            index,
            x0: b.0,
            y0: b.2,
            w: even(b.1 - b.0 + 2),
            h: even(b.3 - b.2 + 2),
        })
        .collect()
}
