//! The rewrite to the collective form (see the module docs of [`super`]).

use super::analyse::{Analysis, Sample};
use super::{LaunchProps, PixelInput, VariantKind};
use crate::abi;
use crate::ir::{walk_mut, Op, Program, Stmt, Ty, Value};
use rendergen_shader_isa::Opcode;
use std::collections::HashMap;

/// The sampler word of collective footprint `f` (raw, integer coordinates, broadcast from lane
/// `f mod 4`, sub-operation `f / 4`, patch code `patch`, level `level`).
pub fn footprint_word(f: u32, patch: u32, level: u32) -> u32 {
    sideband_word(f % 4, patch, f / 4, level)
}

/// The sampler word of a raw broadcast from lane `source` with the sideband `(patch, subop)`
/// at level `level`.
fn sideband_word(source: u32, patch: u32, subop: u32, level: u32) -> u32 {
    1 | abi::TEX_INT_COORDS
        | 1 << 3
        | (source & 3) << 4
        | (patch & 3) << 6
        | (subop & 3) << 8
        | abi::TEX_MIP_NEAREST
        | abi::TEX_EXPLICIT_LOD
        | abi::tex_lod((level.min(127) as i32) << 8)
}

/// The windows as the 19×1 strips of the sideband (§A.7, `ABI.md` "Sampled textures"): three
/// one-row windows (patches 2 high) at columns `x0`, `x0 + 7`, `x0 + 14`, 8, 8 and 6 wide;
/// per window its strip (sub-operation 1 ..= 3).
fn strips(a: &Analysis) -> Option<Vec<u32>> {
    let w = &a.windows;
    if w.len() != 3 || w.iter().any(|v| v.h != 2 || v.y0 != w[0].y0) {
        return None;
    }
    let x0 = w.iter().map(|v| v.x0).min()?;
    w.iter()
        .map(|v| {
            let s = (v.x0 - x0) / 7;
            let fits = (v.x0 - x0) % 7 == 0 && v.w == [8, 8, 6][s as usize];
            fits.then_some(s as u32 + 1)
        })
        .collect::<Option<Vec<u32>>>()
        .filter(|s| {
            let mut s = s.clone();
            s.sort();
            s == [1, 2, 3]
        })
}

/// The sampler words of every window's footprints (row order within a window): the 19×1
/// strips when the windows are that layout ([`strips`]: footprint `j` of strip `s` fetched by
/// lane `j`, the lane the sideband maps it to, so the unit drops the overlapping column's
/// second copy, [`abi::tex_duplicate_texels`]); otherwise footprint `f` (counted over the
/// windows in order) as [`footprint_word`], with patch code 0 where a patch code 3 would meet a
/// sub-operation of 2 or more (a strip's sideband, whose duplicate rule another layout must
/// not trigger).
fn footprint_words(a: &Analysis) -> Vec<Vec<u32>> {
    if let Some(strip) = strips(a) {
        return a
            .windows
            .iter()
            .zip(strip)
            .map(|(w, s)| {
                (0..w.footprints())
                    .map(|j| sideband_word(j, 3, s, a.level))
                    .collect()
            })
            .collect();
    }
    let mut f = 0u32;
    a.windows
        .iter()
        .map(|w| {
            (0..w.footprints())
                .map(|_| {
                    let patch = match (w.patch_code(), f / 4) {
                        (3, s) if s >= 2 => 0,
                        (p, _) => p,
                    };
                    f += 1;
                    footprint_word(f - 1, patch, a.level)
                })
                .collect()
        })
        .collect()
}

/// Where each texel of the quad's patches (offsets from the quad's top-left pixel) is read:
/// `(window, footprint, texel)` of the first footprint, in window order, whose answer writes
/// it (a duplicate the unit drops is not a source).
fn providers(a: &Analysis, words: &[Vec<u32>]) -> HashMap<(i32, i32), (usize, usize, usize)> {
    let mut at = HashMap::new();
    for (wi, w) in a.windows.iter().enumerate() {
        let per_row = w.w / 2;
        for (f, &word) in words[wi].iter().enumerate() {
            let (fx, fy) = (
                w.x0 + 2 * (f as u32 % per_row) as i32,
                w.y0 + 2 * (f as u32 / per_row) as i32,
            );
            let dropped = abi::tex_duplicate_texels(word);
            for k in 0..4 {
                if dropped >> k & 1 == 0 {
                    at.entry((fx + (k & 1) as i32, fy + (k >> 1) as i32))
                        .or_insert((wi, f, k));
                }
            }
        }
    }
    at
}

/// Statements being built.
struct B<'p> {
    p: &'p mut Program,
    out: Vec<Stmt>,
}

impl B<'_> {
    fn def(&mut self, op: Op, ty: Ty) -> Value {
        let dst = self.p.new_value(ty);
        self.out.push(Stmt::Def { dst, op });
        dst
    }
    fn k(&mut self, w: u32) -> Value {
        self.def(Op::Const(w), Ty::U32)
    }
    fn alu(&mut self, op: Opcode, args: &[Value], ty: Ty) -> Value {
        self.def(Op::Alu(op, args.to_vec()), ty)
    }
    fn alui(&mut self, op: Opcode, a: Value, k: u32) -> Value {
        let k = self.k(k);
        self.alu(op, &[a, k], Ty::U32)
    }
    /// `c ≠ 0 ? a : b`.
    fn sel(&mut self, c: Value, a: Value, b: Value) -> Value {
        self.alu(Opcode::Sel, &[c, a, b], Ty::U32)
    }
    /// Channel `c` of RGBA8 word `w` as UNORM16 (`c·257`).
    fn unorm16(&mut self, w: Value, c: u32) -> Value {
        let t = match c {
            0 => self.alui(Opcode::And, w, 255),
            3 => self.alui(Opcode::Shr, w, 24),
            _ => {
                let s = self.alui(Opcode::Shr, w, 8 * c);
                self.alui(Opcode::And, s, 255)
            }
        };
        self.alui(Opcode::Imul, t, 257)
    }
    /// The unit's lerp `a + (((b − a)·f) >> 8)` (arithmetic shift).
    fn lerp_int(&mut self, a: Value, b: Value, f: u32) -> Value {
        let d = self.alu(Opcode::Isub, &[b, a], Ty::U32);
        let m = self.alui(Opcode::Imul, d, f);
        let s = self.alui(Opcode::Sar, m, 8);
        self.alu(Opcode::Iadd, &[a, s], Ty::U32)
    }
    /// The ABI's conversion of a UNORM16 word to binary32.
    fn unorm_f32(&mut self, u: Value) -> Value {
        let f = self.alu(Opcode::U2f, &[u], Ty::F32);
        let k = self.def(Op::Const(abi::UNORM16_SCALE.to_bits()), Ty::F32);
        let z = self.def(Op::Const(0x8000_0000), Ty::F32);
        self.alu(Opcode::Ffma, &[f, k, z], Ty::F32)
    }
    /// `a + f·(b − a)` in binary32, `f` the exact fraction `frac16 / 2^16`.
    fn lerp_f32(&mut self, a: Value, b: Value, frac16: u32) -> Value {
        let d = self.alu(Opcode::Fsub, &[b, a], Ty::F32);
        let f = self.def(Op::Const((frac16 as f32 / 65536.0).to_bits()), Ty::F32);
        self.alu(Opcode::Ffma, &[f, d, a], Ty::F32)
    }
}

/// The lane's quad position and the quad's top-left pixel.
struct Lane {
    qx: Value,
    qy: Value,
    ox: Value,
    oy: Value,
}

/// `prog` rewritten to the collective form of `kind` for the kernel `a`.
pub fn rewrite(prog: &Program, a: &Analysis, kind: VariantKind, launch: &LaunchProps) -> Program {
    let mut p = prog.clone();
    let body = std::mem::take(&mut p.body);
    let mut b = B {
        p: &mut p,
        out: Vec::with_capacity(body.len() * 2),
    };
    let lane = b.alu(Opcode::Lane, &[], Ty::U32);
    let qx = b.alui(Opcode::And, lane, 1);
    let qs = b.alui(Opcode::Shr, lane, 1);
    let qy = b.alui(Opcode::And, qs, 1);
    let (px, py) = match launch.pixel {
        PixelInput::FragCoord => {
            let x = b.def(Op::Input(0), Ty::F32);
            let y = b.def(Op::Input(1), Ty::F32);
            (
                b.alu(Opcode::F2i, &[x], Ty::I32),
                b.alu(Opcode::F2i, &[y], Ty::I32),
            )
        }
        PixelInput::Integer { x, y } => {
            (b.def(Op::Input(x), Ty::I32), b.def(Op::Input(y), Ty::I32))
        }
    };
    let ox = b.alu(Opcode::Isub, &[px, qx], Ty::I32);
    let oy = b.alu(Opcode::Isub, &[py, qy], Ty::I32);
    let l = Lane { qx, qy, ox, oy };
    // per window: its footprints' four words, once fetched
    let words = footprint_words(a);
    let provider = providers(a, &words);
    let mut fetched: Vec<Option<Vec<[Value; 4]>>> = vec![None; a.windows.len()];
    let mut conv_sub: HashMap<Value, Value> = HashMap::new();
    let mut k = 0usize;
    const QUAD: [(i32, i32); 4] = [(0, 0), (1, 0), (0, 1), (1, 1)];
    for s in body {
        let Stmt::Tex { .. } = s else {
            b.out.push(s);
            continue;
        };
        let sample = &a.samples[k];
        k += 1;
        // fetch every window that writes a texel some lane reads for this sample
        for t in sample.taps() {
            for (dx, dy) in QUAD {
                let (wi, _, _) = provider[&(t.0 + dx, t.1 + dy)];
                if fetched[wi].is_none() {
                    fetched[wi] = Some(fetch_window(&mut b, a, wi, &words[wi], &l));
                }
            }
        }
        // the lane's texel word at tap (tx, ty)
        let mut word = |b: &mut B, t: (i32, i32)| {
            let at = |dx: i32, dy: i32| {
                let (wi, f, j) = provider[&(t.0 + dx, t.1 + dy)];
                fetched[wi].as_ref().expect("fetched above")[f][j]
            };
            let top = b.sel(l.qx, at(1, 0), at(0, 0));
            let bot = b.sel(l.qx, at(1, 1), at(0, 1));
            b.sel(l.qy, bot, top)
        };
        sample_values(&mut b, sample, kind, &mut word, &mut conv_sub);
    }
    p.body = b.out;
    if !conv_sub.is_empty() {
        walk_mut(&mut p.body, &mut |s| {
            if let Stmt::Def { dst, op } = s {
                if let Some(&n) = conv_sub.get(dst) {
                    *op = Op::Copy(n);
                }
            }
        });
    }
    p
}

/// The broadcast raw fetches of window `wi` with the sampler words `words`: footprint values
/// in row order.
fn fetch_window(b: &mut B, a: &Analysis, wi: usize, words: &[u32], l: &Lane) -> Vec<[Value; 4]> {
    let w = a.windows[wi];
    let mut out = Vec::with_capacity(w.footprints() as usize);
    for j in 0..w.h / 2 {
        for i in 0..w.w / 2 {
            let cx = b.alui(Opcode::Iadd, l.ox, (w.x0 + 2 * i as i32) as u32);
            let cy = b.alui(Opcode::Iadd, l.oy, (w.y0 + 2 * j as i32) as u32);
            let dst = [0; 4].map(|_| b.p.new_value(Ty::U32));
            b.out.push(Stmt::Tex {
                dst,
                sampler: words[(j * (w.w / 2) + i) as usize],
                coord: [cx, cy],
            });
            out.push(dst);
        }
    }
    out
}

/// The statements that replace one sample.
fn sample_values(
    b: &mut B,
    s: &Sample,
    kind: VariantKind,
    word: &mut dyn FnMut(&mut B, (i32, i32)) -> Value,
    conv_sub: &mut HashMap<Value, Value>,
) {
    let (x, y) = (s.pos[0], s.pos[1]);
    if !s.is_bilinear() {
        let w = word(b, (x.offset, y.offset));
        for c in 0..4 {
            let u = b.unorm16(w, c as u32);
            b.out.push(Stmt::Def {
                dst: s.dst[c],
                op: Op::Copy(u),
            });
        }
        return;
    }
    let taps: Vec<Value> = s.taps().into_iter().map(|t| word(b, t)).collect();
    for c in 0..4u32 {
        let u: Vec<Value> = taps.iter().map(|&w| b.unorm16(w, c)).collect();
        match kind {
            VariantKind::Direct => {
                // the unit's own blend: rows over x, then y, 8-bit fractions
                let v = match (x.frac8 != 0, y.frac8 != 0) {
                    (true, true) => {
                        let top = b.lerp_int(u[0], u[1], x.frac8);
                        let bot = b.lerp_int(u[2], u[3], x.frac8);
                        b.lerp_int(top, bot, y.frac8)
                    }
                    (true, false) => b.lerp_int(u[0], u[1], x.frac8),
                    _ => b.lerp_int(u[0], u[1], y.frac8),
                };
                b.out.push(Stmt::Def {
                    dst: s.dst[c as usize],
                    op: Op::Copy(v),
                });
            }
            VariantKind::Reversed => {
                let f: Vec<Value> = u.iter().map(|&u| b.unorm_f32(u)).collect();
                let v = match (x.frac8 != 0, y.frac8 != 0) {
                    (true, true) => {
                        let top = b.lerp_f32(f[0], f[1], x.frac16);
                        let bot = b.lerp_f32(f[2], f[3], x.frac16);
                        b.lerp_f32(top, bot, y.frac16)
                    }
                    (true, false) => b.lerp_f32(f[0], f[1], x.frac16),
                    _ => b.lerp_f32(f[0], f[1], y.frac16),
                };
                // the answer words are no longer read: the conversions take the blend
                let zero = b.k(0);
                b.out.push(Stmt::Def {
                    dst: s.dst[c as usize],
                    op: Op::Copy(zero),
                });
                for &cv in &s.conv[c as usize] {
                    conv_sub.insert(cv, v);
                }
            }
        }
    }
}
