//! The compiled evaluation program: what [`compile`](super::compile) produces from a flattened
//! netlist and what [`exec`](super::exec) interprets.
//!
//! Every live signal owns a *place*: one `u64` word in the value vector for widths ≤ 64, or
//! `ceil(width / 64)` consecutive words for wider signals. Bits above a signal's width are always
//! zero. Aliases (wires, zero extensions of narrow values, muxes with a constant select) share
//! their source's place, so they cost nothing. ("Place" is the simulator's word for an index
//! into the value vector; "slot" is kept for a PBRU core's ray slot.)
//!
//! The program is deliberately plain data (no closures, no trait objects): a future backend that
//! generates specialised code can take a [`Program`] (or the netlist) and replace the interpreter
//! without touching the simulator's API.

pub(crate) use super::runs::{Batch, Run, Shape};
use rendergen_hdl::ir::{BinOp, UnOp};

/// Index of a place (first word of a value) in the value vector.
pub(crate) type Place = u32;

/// Marks "no place" (a dead node, or an absent enable).
pub(crate) const NONE: Place = u32::MAX;

/// Mask of the low `w` bits, `1 ≤ w ≤ 64`.
#[inline(always)]
pub(crate) fn mask(w: u8) -> u64 {
    u64::MAX >> (64 - w as u32)
}

/// One instruction of the narrow (≤ 64-bit) fast path. `d` is the destination place; other
/// fields are operand places unless noted; `w` is the result width (or operand width for
/// reductions and signed comparisons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ins {
    /// `d = a`.
    Copy { d: Place, a: Place },
    /// `d = !a & mask(w)`.
    Not { d: Place, a: Place, w: u8 },
    /// `d = -a & mask(w)`.
    Neg { d: Place, a: Place, w: u8 },
    /// `d = a == mask(w)` (`w` is the operand width).
    RedAnd { d: Place, a: Place, w: u8 },
    /// `d = a != 0`.
    RedOr { d: Place, a: Place },
    /// `d = parity(a)`.
    RedXor { d: Place, a: Place },
    /// `d = (a + b) & mask(w)`.
    Add { d: Place, a: Place, b: Place, w: u8 },
    /// `d = (a - b) & mask(w)`.
    Sub { d: Place, a: Place, b: Place, w: u8 },
    /// `d = (a * b) & mask(w)`.
    Mul { d: Place, a: Place, b: Place, w: u8 },
    /// `d = (a * b + c) & mask(w)` (a product feeding only a sum, fused).
    MulAdd {
        d: Place,
        a: Place,
        b: Place,
        c: Place,
        w: u8,
    },
    /// `d = a ^ ((b >> lo) & mask(w))` (a slice feeding only an exclusive or, fused).
    XorSlice {
        d: Place,
        a: Place,
        b: Place,
        lo: u8,
        w: u8,
    },
    /// `d = a & b`.
    And { d: Place, a: Place, b: Place },
    /// `d = a | b`.
    Or { d: Place, a: Place, b: Place },
    /// `d = a ^ b`.
    Xor { d: Place, a: Place, b: Place },
    /// `d = (a << b) & mask(w)`, 0 when `b ≥ w`.
    Shl { d: Place, a: Place, b: Place, w: u8 },
    /// `d = a >> b`, 0 when `b ≥ w`.
    Shr { d: Place, a: Place, b: Place, w: u8 },
    /// Arithmetic `a >> b` at width `w`, sign fill when `b ≥ w`.
    Sra { d: Place, a: Place, b: Place, w: u8 },
    /// `d = a == b`.
    Eq { d: Place, a: Place, b: Place },
    /// `d = a != b`.
    Ne { d: Place, a: Place, b: Place },
    /// `d = a < b` (unsigned).
    Lt { d: Place, a: Place, b: Place },
    /// `d = a <= b` (unsigned).
    Le { d: Place, a: Place, b: Place },
    /// Signed `a < b` at operand width `w`.
    SLt { d: Place, a: Place, b: Place, w: u8 },
    /// Signed `a <= b` at operand width `w`.
    SLe { d: Place, a: Place, b: Place, w: u8 },
    /// `d = s != 0 ? t : f`.
    Mux {
        d: Place,
        s: Place,
        t: Place,
        f: Place,
    },
    /// `d = (hi << sh) | lo` (one step of a concatenation).
    Cat2 {
        d: Place,
        hi: Place,
        lo: Place,
        sh: u8,
    },
    /// `d = (a >> lo) & mask(w)`.
    Slice { d: Place, a: Place, lo: u8, w: u8 },
    /// Sign extension of the `wa`-bit `a` to `w` bits.
    Sext { d: Place, a: Place, wa: u8, w: u8 },
    /// `d = v[sel[start + min(idx, n)]]` (entry `start + n` is the default).
    Select {
        d: Place,
        idx: Place,
        start: u32,
        n: u32,
    },
    /// `d = lut[start + idx]` when `idx < n`, else 0.
    Lut {
        d: Place,
        idx: Place,
        start: u32,
        n: u32,
    },
    /// Combinational read of a one-word memory: `d = mem[addr]`, 0 out of range.
    MemRd { d: Place, mem: u32, addr: Place },
    /// A multi-word operation: `Program::wide[i]`.
    Wide(u32),
    /// `n` independent instructions of one kind, operands in `Program::batch[start..start + n]`
    /// as `[d, a, b, c]` (see [`Batch`]); `w` is the width parameter where the kind has one.
    Batch {
        op: Batch,
        w: u8,
        start: u32,
        n: u32,
    },
    /// A batch whose operands are neighbouring places: `Program::runs[run]` (see [`Run`]).
    Run {
        op: Batch,
        w: u8,
        shape: Shape,
        run: u32,
    },
}

/// An operation on values wider than 64 bits (or with wide operands). Operand widths are kept
/// so every word count can be derived.
#[derive(Clone, Debug)]
pub(crate) enum WideOp {
    /// `d = a`, `n` words.
    Copy { d: Place, a: Place, n: u32 },
    /// Saturating index: `d = a` if `a` fits 64 bits, else `u64::MAX` (`n` words).
    Sat { d: Place, a: Place, n: u32 },
    /// Unary operation; `w` result width, `wa` operand width.
    Un {
        op: UnOp,
        d: Place,
        a: Place,
        w: u32,
        wa: u32,
    },
    /// Binary operation; `w` result width, `wa`/`wb` operand widths (`b` is a saturated
    /// narrow amount for shifts).
    Bin {
        op: BinOp,
        d: Place,
        a: Place,
        b: Place,
        w: u32,
        wa: u32,
    },
    /// `d = s ? t : f`, `n` words.
    Mux {
        d: Place,
        s: Place,
        t: Place,
        f: Place,
        n: u32,
    },
    /// Concatenation of `(place, width)` parts, most significant first.
    Concat {
        d: Place,
        w: u32,
        parts: Vec<(Place, u32)>,
    },
    /// `w` bits of `a` from bit `lo`.
    Slice {
        d: Place,
        a: Place,
        wa: u32,
        lo: u32,
        w: u32,
    },
    /// Zero or sign extension.
    Extend {
        d: Place,
        a: Place,
        wa: u32,
        w: u32,
        signed: bool,
    },
    /// Indexed select (`idx` is a narrow saturated place).
    Select {
        d: Place,
        idx: Place,
        cases: Vec<Place>,
        default: Place,
        n: u32,
    },
    /// Table lookup: `table` holds `entries` values of `n` words each.
    Lut {
        d: Place,
        idx: Place,
        table: Vec<u64>,
        entries: u32,
        n: u32,
    },
    /// Combinational memory read of multi-word entries.
    MemRd { d: Place, mem: u32, addr: Place },
}

/// Layout of one memory in the memory vector.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemInfo {
    /// First word.
    pub base: usize,
    /// Number of entries.
    pub depth: u64,
    /// Words per entry.
    pub words: u32,
}

/// A register update at the clock edge: `q = d` (if `en` is `NONE` or nonzero), `n` words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegUpdate {
    pub q: Place,
    pub d: Place,
    pub en: Place,
    pub n: u32,
}

/// A synchronous reset: `q = reset_values[value..value + n]` when `rst` is high.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegReset {
    pub q: Place,
    pub value: u32,
    pub n: u32,
}

/// A synchronous read port: at the edge, if `en` (or `NONE`), `data = mem[addr]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SyncRead {
    pub mem: u32,
    pub addr: Place,
    pub en: Place,
    pub data: Place,
}

/// A memory write port: at the edge, if `en`, `mem[addr] = data`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemWrite {
    pub mem: u32,
    pub en: Place,
    pub addr: Place,
    pub data: Place,
}

/// A compiled design.
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    /// Combinational evaluation, levelised, for outputs and state inputs.
    pub main: Vec<Ins>,
    /// Named signals that feed nothing in `main` (run only for VCD and `peek_signal`).
    pub obs: Vec<Ins>,
    /// Operands of batched instructions (`[d, a, b, c]`).
    pub batch: Vec<[Place; 4]>,
    /// Strided batches, referenced by [`Ins::Run`].
    pub runs: Vec<Run>,
    /// Multi-word operations referenced by [`Ins::Wide`].
    pub wide: Vec<WideOp>,
    /// Operand places of narrow selects.
    pub sel_tab: Vec<Place>,
    /// Contents of narrow lookup tables.
    pub lut_tab: Vec<u64>,
    /// Memories.
    pub mems: Vec<MemInfo>,
    /// Narrow registers without enable (the common case, kept apart for a tight loop), as runs
    /// `(q, d, n)`: words `q..q + n` load `d..d + n`.
    pub regs_plain: Vec<(Place, Place, u32)>,
    /// Every other register.
    pub regs: Vec<RegUpdate>,
    /// Synchronous resets.
    pub resets: Vec<RegReset>,
    /// Reset values, referenced by `resets`.
    pub reset_values: Vec<u64>,
    /// Synchronous read ports, in memory order.
    pub sync_reads: Vec<SyncRead>,
    /// Write ports, in memory and declaration order (later wins).
    pub writes: Vec<MemWrite>,
    /// Place of each flat node (`NONE` when eliminated).
    pub node_place: Vec<Place>,
    /// Words needed by the widest value (scratch size).
    pub max_words: usize,
    /// With activity-aware evaluation: the end of each group in `main` (see
    /// [`activity`](super::activity)); empty otherwise.
    pub group_ends: Vec<u32>,
    /// The watches of activity-aware evaluation (`None`: full evaluation).
    pub activity: Option<super::activity::Activity>,
}

impl Program {
    /// Operations per full evaluation of the main program, by kind (a batch or run of `n`
    /// entries counts `n` of its kind; multi-word operations as `Wide` and their kind), most frequent
    /// first. For measurements (`RENDERGEN_SIM_OPS`).
    pub(crate) fn op_counts(&self) -> Vec<(String, u64)> {
        let mut counts: Vec<(String, u64)> = Vec::new();
        let mut add = |k: String, n: u64| match counts.iter_mut().find(|c| c.0 == k) {
            Some(c) => c.1 += n,
            None => counts.push((k, n)),
        };
        for ins in &self.main {
            match *ins {
                Ins::Batch { op, n, .. } => add(format!("{op:?}"), n as u64),
                Ins::Run { op, run, .. } => {
                    add(format!("{op:?}"), self.runs[run as usize].n as u64)
                }
                Ins::Wide(i) => {
                    let s = format!("{:?}", self.wide[i as usize]);
                    let k = s.split([' ', '{', '(']).next().unwrap_or("");
                    add(format!("Wide{k}"), 1)
                }
                _ => {
                    let s = format!("{ins:?}");
                    let k = s.split([' ', '{', '(']).next().unwrap_or("");
                    add(k.to_string(), 1)
                }
            }
        }
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts
    }
}
