//! What the shading pipelines share (issue 11 §2, D4): [`Flow`], a scheduler that places the
//! binary32 units of [`crate::fp`] in a fixed-latency dataflow pipeline (each value knows the
//! stage it is ready at; an operand needed later is carried by delay registers, made once per
//! value and shared by every consumer), and the small combinational helpers (Q16.16 word
//! access, `clamp01`).
//!
//! A shading pipeline never stalls: its pipe's credits guarantee room in the output FIFO
//! (`pipe_around`, see [`pbru_pipe`](super::pbru_pipe)), so every register loads every cycle (the enable is a
//! constant 1 that synthesis removes), and the valid flag travels in a chain of its own.

use crate::fp::fma::{fp_fma_stages, FmaOp};
use crate::fp::pow::fp_pow_stages;
use crate::fp::q16::{f32_to_q16, fixed_to_f32, q16_to_f32};
use crate::fp::recip::recip;
use crate::fp::transc::{fp_transc, TranscIn};
use crate::fp::{FpReq, Stages};
use crate::pbru::ports::PipeReq;
use crate::pbru::ports::{PipeResp, RESULTS_W};
use rendergen_hdl::{cat_lsb_first, Io, Module, Sig, Stream};

/// A value of a [`Flow`]: an index into its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val(usize);

struct Entry {
    name: String,
    level: u32,
    /// The value at `level`, `level + 1`, … (delay registers made on demand).
    at: Vec<Sig>,
    /// A constant: the same signal at every level, never delayed.
    constant: bool,
}

/// A fixed-latency dataflow pipeline under a constant enable (see the module documentation).
pub struct Flow {
    /// The valid flag at each level (level 0: the request's).
    valids: Vec<Sig>,
    vals: Vec<Entry>,
}

/// `recip` operations (the `op` of [`crate::fp::recip`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipOp {
    /// `1/x`.
    Rcp = 0,
    /// `1/√x`.
    Rsqrt = 1,
    /// `√x`.
    Sqrt = 2,
}

impl Flow {
    /// A flow whose level 0 is valid when `valid` is.
    pub fn new(m: &mut Module, valid: Sig) -> Flow {
        let _ = m;
        Flow {
            valids: vec![valid],
            vals: Vec::new(),
        }
    }

    /// `sig` as a value ready at `level`.
    pub fn value(&mut self, name: &str, sig: Sig, level: u32) -> Val {
        self.vals.push(Entry {
            name: name.to_string(),
            level,
            at: vec![sig],
            constant: false,
        });
        Val(self.vals.len() - 1)
    }

    /// The level `v` is ready at.
    pub fn level(&self, v: Val) -> u32 {
        self.vals[v.0].level
    }

    /// The valid flag at `level`.
    pub fn valid(&mut self, m: &mut Module, level: u32) -> Sig {
        while self.valids.len() <= level as usize {
            let i = self.valids.len();
            let r = m.reg(&format!("shade_valid_l{i}"), 1).reset(0);
            r.next(self.valids[i - 1]);
            self.valids.push(r.q());
        }
        self.valids[level as usize]
    }

    /// `v` at `level` (≥ its own), through its shared delay registers.
    pub fn at(&mut self, m: &mut Module, v: Val, level: u32) -> Sig {
        let e = &mut self.vals[v.0];
        assert!(
            level >= e.level,
            "{} is ready at {}, not {level}",
            e.name,
            e.level
        );
        if e.constant {
            return e.at[0];
        }
        let k = (level - e.level) as usize;
        while e.at.len() <= k {
            let i = e.at.len();
            let r = m.reg(&format!("{}_d{i}", e.name), e.at[i - 1].width());
            r.next(e.at[i - 1]);
            e.at.push(r.q());
        }
        e.at[k]
    }

    /// The latest level of `vals`.
    fn latest(&self, vals: &[Val]) -> u32 {
        vals.iter().map(|v| self.level(*v)).max().unwrap_or(0)
    }

    /// Combinational logic `f` of `inputs`, at the latest input level (no register).
    pub fn comb(
        &mut self,
        m: &mut Module,
        name: &str,
        inputs: &[Val],
        f: impl FnOnce(&mut Module, &[Sig]) -> Sig,
    ) -> Val {
        let level = self.latest(inputs);
        let sigs: Vec<Sig> = inputs.iter().map(|v| self.at(m, *v, level)).collect();
        let r = f(m, &sigs).named(name);
        self.value(name, r, level)
    }

    /// A staged unit of `kind` on `inputs` (its operands, in order), started at their latest
    /// level: a child module that holds the unit's logic and its stage registers.
    fn unit(&mut self, m: &mut Module, name: &str, kind: UnitKind, inputs: &[Val]) -> Val {
        let level = self.latest(inputs);
        let operands: Vec<Sig> = inputs.iter().map(|v| self.at(m, *v, level)).collect();
        let valid = self.valid(m, level);
        let r = m
            .child(name, &kind, UnitIn { valid, operands }, shading_unit)
            .named(name);
        self.value(name, r, level + kind.stages())
    }

    /// The FMA datapath (5 stages) for `op` on `a`, `b`, `c` (binary32; `c` only for `Fma`).
    fn fma_op(&mut self, m: &mut Module, name: &str, op: FmaOp, x: [Val; 3]) -> Val {
        let n = if op == FmaOp::Fma { 3 } else { 2 };
        self.unit(m, name, UnitKind::Fma(op), &x[..n])
    }

    /// `a·b + c`, one rounding.
    pub fn fma(&mut self, m: &mut Module, name: &str, a: Val, b: Val, c: Val) -> Val {
        self.fma_op(m, name, FmaOp::Fma, [a, b, c])
    }

    /// `a·b`.
    pub fn mul(&mut self, m: &mut Module, name: &str, a: Val, b: Val) -> Val {
        self.fma_op(m, name, FmaOp::Mul, [a, b, b])
    }

    /// `a + b`.
    pub fn add(&mut self, m: &mut Module, name: &str, a: Val, b: Val) -> Val {
        self.fma_op(m, name, FmaOp::Add, [a, b, b])
    }

    /// `a − b`.
    pub fn sub(&mut self, m: &mut Module, name: &str, a: Val, b: Val) -> Val {
        self.fma_op(m, name, FmaOp::Sub, [a, b, b])
    }

    /// `1/x`, `1/√x` or `√x` (4 stages).
    pub fn recip(&mut self, m: &mut Module, name: &str, op: RecipOp, x: Val) -> Val {
        self.unit(m, name, UnitKind::Recip(op), &[x])
    }

    /// `sin x` (`cos = false`) or `cos x`, radians (7 stages).
    pub fn sin_cos(&mut self, m: &mut Module, name: &str, x: Val, cos: bool) -> Val {
        self.unit(m, name, UnitKind::SinCos { cos }, &[x])
    }

    /// `a·b` summed over three components: `fma(a.z, b.z, fma(a.y, b.y, a.x·b.x))`.
    pub fn dot(&mut self, m: &mut Module, name: &str, a: [Val; 3], b: [Val; 3]) -> Val {
        let x = self.mul(m, &format!("{name}_x"), a[0], b[0]);
        let xy = self.fma(m, &format!("{name}_xy"), a[1], b[1], x);
        self.fma(m, name, a[2], b[2], xy)
    }

    /// Three Q16.16 words `words[at..at + 3]` of `args` as a binary32 vector.
    pub fn vec_from_q16(&mut self, m: &mut Module, name: &str, args: Sig, at: u32) -> [Val; 3] {
        std::array::from_fn(|i| {
            let c = ["x", "y", "z"][i];
            let w = self.value(
                &format!("{name}_{c}_fixed"),
                super::word(args, at + i as u32),
                0,
            );
            self.from_q16(m, &format!("{name}_{c}"), w)
        })
    }

    /// `v` one stage later (a register), as a value of its own.
    pub fn reg(&mut self, m: &mut Module, name: &str, v: Val) -> Val {
        let level = self.level(v) + 1;
        let r = self.at(m, v, level);
        self.value(name, r, level)
    }

    /// A signed fixed-point value with `frac` fraction bits as binary32 (2 stages).
    pub fn from_fixed(&mut self, m: &mut Module, name: &str, x: Val, frac: u32) -> Val {
        self.unit(m, name, UnitKind::FromFixed { frac }, &[x])
    }

    /// `−x` (sign flip, no rounding; combinational).
    pub fn neg(&mut self, m: &mut Module, name: &str, x: Val) -> Val {
        self.comb(m, name, &[x], |_, s| s[0] ^ (1u64 << 31))
    }

    /// `x^y` as `exp2(y·log2 x)` (19 stages, [`crate::fp::pow`]).
    pub fn pow(&mut self, m: &mut Module, name: &str, x: Val, y: Val) -> Val {
        self.unit(m, name, UnitKind::Pow, &[x, y])
    }

    /// A Q16.16 word (or a wider signed value with 16 fraction bits) as binary32 (2 stages).
    pub fn from_q16(&mut self, m: &mut Module, name: &str, x: Val) -> Val {
        self.unit(m, name, UnitKind::FromQ16, &[x])
    }

    /// Binary32 as a Q16.16 word, saturating (1 stage).
    pub fn to_q16(&mut self, m: &mut Module, name: &str, x: Val) -> Val {
        self.unit(m, name, UnitKind::ToQ16, &[x])
    }

    /// A binary32 constant: ready at level 0 and the same wire at every later level (no delay
    /// registers).
    pub fn constant(&mut self, m: &mut Module, name: &str, x: f32) -> Val {
        let c = m.lit(x.to_bits() as u64, 32);
        let v = self.value(name, c, 0);
        self.vals[v.0].constant = true;
        v
    }

    /// The result stream: `words` (Q16.16, `[0]` pushed first; the rest of the result 0) and
    /// `tag`, all at the latest level, valid with that level's flag.
    pub fn finish(mut self, m: &mut Module, words: &[Val], tag: Val) -> (Stream<PipeResp>, u32) {
        let mut all = words.to_vec();
        all.push(tag);
        let level = self.latest(&all);
        let mut sigs: Vec<Sig> = words.iter().map(|v| self.at(m, *v, level)).collect();
        while sigs.len() < (RESULTS_W / 32) as usize {
            sigs.push(m.lit(0, 32));
        }
        let data = cat_lsb_first(&sigs);
        let tag = self.at(m, tag, level);
        let valid = self.valid(m, level);
        let (out, _always_ready) = Stream::offer(m, "shade_out", valid, PipeResp { data, tag });
        (out, level)
    }
}

/// The staged units a [`Flow`] places, each built as a child module by [`shading_unit`] (one
/// module definition per kind and operand widths, so the Verilog of a shading pipeline lists its
/// datapath as instances).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// The FMA datapath for one operation (5 stages; `Fma` takes three operands, the others two).
    Fma(FmaOp),
    /// `recip` (4 stages).
    Recip(RecipOp),
    /// `sin` or `cos` of the transcendental unit (7 stages).
    SinCos {
        /// `cos` rather than `sin`.
        cos: bool,
    },
    /// A signed fixed-point value with `frac` fraction bits to binary32 (2 stages).
    FromFixed {
        /// Fraction bits.
        frac: u32,
    },
    /// A Q16.16 word (or wider, 16 fraction bits) to binary32 (2 stages).
    FromQ16,
    /// Binary32 to Q16.16, saturating (1 stage).
    ToQ16,
    /// `x^y` (19 stages).
    Pow,
}

impl UnitKind {
    /// Register stages of the unit.
    pub fn stages(self) -> u32 {
        match self {
            UnitKind::Fma(_) => 5,
            UnitKind::Recip(_) => 4,
            UnitKind::SinCos { .. } => 7,
            UnitKind::FromFixed { .. } | UnitKind::FromQ16 => 2,
            UnitKind::ToQ16 => 1,
            UnitKind::Pow => 19,
        }
    }
}

/// The ports of a [`shading_unit`]: the valid flag of the operands' level and the operands.
#[derive(Io)]
pub struct UnitIn {
    /// Valid flag entering the first stage.
    pub valid: Sig,
    /// Operands, in the unit's order.
    pub operands: Vec<Sig>,
}

/// One staged unit of a [`Flow`] (a child module): `kind` on the operands, with its stage
/// registers (loaded every cycle: shading pipelines never stall) and its valid chain.
pub fn shading_unit(m: &mut Module, kind: &UnitKind, i: UnitIn) -> Sig {
    let en = m.lit(1, 1);
    let mut st = Stages::new(en, i.valid);
    let s = &i.operands;
    let r = match *kind {
        UnitKind::Fma(op) => {
            let req = FpReq {
                a: s[0],
                b: Some(s[1]),
                c: Some(if op == FmaOp::Fma { s[2] } else { s[1] }),
                op: Some(m.lit(op as u64, 2)),
                tag: m.lit(0, 1),
            };
            fp_fma_stages(m, &mut st, req).r
        }
        UnitKind::Recip(op) => {
            let op = m.lit(op as u64, 2);
            let pass = m.lit(0, 1);
            recip(m, &mut st, s[0], op, pass).r
        }
        UnitKind::SinCos { cos } => {
            let op = m.lit(2 + cos as u64, 2);
            fp_transc(m, &mut st, TranscIn { op, a: s[0] })
        }
        UnitKind::FromFixed { frac } => fixed_to_f32(m, &mut st, s[0], frac),
        UnitKind::FromQ16 => {
            let w = s[0].width().max(17);
            q16_to_f32(m, &mut st, s[0].sext(w))
        }
        UnitKind::ToQ16 => f32_to_q16(m, &mut st, s[0]),
        UnitKind::Pow => fp_pow_stages(m, &mut st, s[0], s[1]),
    };
    assert_eq!(st.count(), kind.stages(), "stages of {kind:?}");
    r
}

/// True (1 bit) when binary32 `x` (not NaN, subnormals already flushed) is above zero.
pub fn positive(x: Sig) -> Sig {
    !x.msb() & x.bits(30, 0).ne(0)
}

/// The larger of binary32 `a` and `b` (not NaN; combinational): compares the encodings as
/// sign-magnitude numbers.
pub fn fmax(m: &mut Module, a: Sig, b: Sig) -> Sig {
    let _ = m;
    let key = |x: Sig| x.msb().mux(!x, x ^ (1u64 << 31));
    key(a).gt(key(b)).mux(a, b)
}

/// Binary32 `x` clamped to `[0, 1]` (`x` not NaN): the encodings of non-negative floats are
/// ordered like their values, so two compares on the bits do it; −0 becomes +0.
pub fn clamp01(m: &mut Module, x: Sig) -> Sig {
    let one = m.lit(0x3F80_0000, 32);
    let negative = x.msb();
    let above = x.gt(0x3F80_0000);
    negative.mux(m.lit(0, 32), above.mux(one, x))
}

/// What GGX, sheen and subsurface share (the model is
/// `rendergen_sim::models::pbru::shading::half`): the `N V L` words clamped to [−2, 2]
/// ([`clamp2`]) and as binary32, `NL`, `NV` (binary32 dot products), and `u = 1 − NH²` for
/// `H = normalize(L + V)` from exact integer dot products: with `s = L + V`, `a = N·s` and
/// `b = |s|²` (units 2⁻³², stages 1 and 2), `d = b − ⌊a²/2³²⌋` (stage 3), `u = f32(d)·rcp(f32(b))`,
/// 1 when `b = 0` (L = −V: NH taken as 0, as the f64 reference does). No cancellation: `u`'s
/// relative error stays near 2⁻²² at the GGX peak, where binary32 `1 − NH²` would lose everything.
pub struct Half {
    /// N, V, L as binary32.
    pub n: [Val; 3],
    /// V.
    pub v: [Val; 3],
    /// L.
    pub l: [Val; 3],
    /// N·L.
    pub nl: Val,
    /// N·V.
    pub nv: Val,
    /// 1 − NH².
    pub u: Val,
    /// |L + V|² as binary32.
    pub len2: Val,
    /// rcp(|L + V|²).
    pub inv_len2: Val,
}

/// A Q16.16 word clamped to [−2, 2] (`0x2_0000` units), 19 bits signed.
pub fn clamp2(m: &mut Module, w: Sig) -> Sig {
    let hi = m.lit(0x2_0000, 32);
    let lo = m.lit((-0x2_0000i32) as u32 as u64, 32);
    let c = w.sgt(hi).mux(hi, w.slt(lo).mux(lo, w));
    c.bits(18, 0)
}

/// The [`Half`] terms of the words `N V L` = `args[0..9]`.
pub fn half(m: &mut Module, f: &mut Flow, args: Sig) -> Half {
    let words: Vec<Sig> = (0..9).map(|i| clamp2(m, super::word(args, i))).collect();
    let names = ["n", "v", "l"];
    let vecs: Vec<[Val; 3]> = (0..3)
        .map(|k| {
            std::array::from_fn(|i| {
                let c = ["x", "y", "z"][i];
                let w = f.value(&format!("{}_{c}_clamped", names[k]), words[3 * k + i], 0);
                f.from_q16(m, &format!("{}_{c}", names[k]), w)
            })
        })
        .collect();
    let (n, v, l) = (vecs[0], vecs[1], vecs[2]);
    // Stage 1: s = L + V (20 bits) and the products N·s, s·s.
    let sum: Vec<Sig> = (0..3)
        .map(|i| words[6 + i].sext(20) + words[3 + i].sext(20))
        .collect();
    let prod_a: Vec<Val> = (0..3)
        .map(|i| {
            let p = words[i].smul_full(sum[i]);
            let p = f.value(&format!("half_ns_{i}"), p, 0);
            f.reg(m, &format!("half_ns_{i}_q"), p)
        })
        .collect();
    let prod_b: Vec<Val> = (0..3)
        .map(|i| {
            let p = sum[i].smul_full(sum[i]);
            let p = f.value(&format!("half_ss_{i}"), p, 0);
            f.reg(m, &format!("half_ss_{i}_q"), p)
        })
        .collect();
    // Stage 2: a = N·s (41 bits), b = |s|² (42 bits).
    let a = f.comb(m, "half_a", &prod_a, |_, p| {
        p[0].sext(41) + p[1].sext(41) + p[2].sext(41)
    });
    let b = f.comb(m, "half_b", &prod_b, |_, p| {
        p[0].sext(42) + p[1].sext(42) + p[2].sext(42)
    });
    let a = f.reg(m, "half_a_q", a);
    let b = f.reg(m, "half_b_q", b);
    // Stage 3: ⌊a²/2³²⌋ (50 bits, ≥ 0).
    let sq = f.comb(m, "half_a2", &[a], |_, x| x[0].smul_full(x[0]).bits(81, 32));
    let sq = f.reg(m, "half_a2_q", sq);
    let d = f.comb(m, "half_d", &[b, sq], |_, x| x[0].sext(52) - x[1].zext(52));
    let d = f.from_fixed(m, "half_d_f", d, 32);
    let len2 = f.comb(m, "half_len2_fixed", &[b], |_, x| x[0].sext(43));
    let len2 = f.from_fixed(m, "half_len2", len2, 32);
    let inv = f.recip(m, "half_inv_len2", RecipOp::Rcp, len2);
    let u = f.mul(m, "half_u_raw", d, inv);
    let u = f.comb(m, "half_u", &[u, len2], |m, x| {
        positive(x[1]).mux(x[0], m.lit(0x3F80_0000, 32))
    });
    let nl = f.dot(m, "nl", n, l);
    let nv = f.dot(m, "nv", n, v);
    Half {
        n,
        v,
        l,
        nl,
        nv,
        u,
        len2,
        inv_len2: inv,
    }
}

/// A unit of one opcode with one result word: `eval` of the request's arguments through a
/// [`Flow`], `stages` deep (checked at elaboration); never stalls (`req.ready` is 1).
pub fn single_result_unit(
    m: &mut Module,
    req: Stream<PipeReq>,
    stages: u32,
    eval: impl FnOnce(&mut Module, &mut Flow, Sig) -> Val,
) -> Stream<PipeResp> {
    let (valid, d, ready) = req.split();
    ready.drive(m.lit(1, 1));
    let mut f = Flow::new(m, valid);
    let value = eval(m, &mut f, d.args);
    let tag = f.value("tag", d.tag, 0);
    let (resp, depth) = f.finish(m, &[value], tag);
    assert_eq!(depth, stages, "the unit's stages");
    resp
}
