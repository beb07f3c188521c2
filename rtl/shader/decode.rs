//! The instruction decoder of the shader core: one table look-up on the opcode byte, built at
//! elaboration time from the ISA table of `rendergen_shader_isa` (the same table the assembler
//! and the interpreter read), plus the field checks of `Inst::decode` and the register-range
//! check of `Inst::regs_needed`.

use rendergen_hdl::{lut, name_lets, Bundle, Module, Sig};
use rendergen_shader_isa::{Format, Opcode, Unit};

/// Execution unit codes (`Decoded::unit`).
pub mod unit {
    /// Integer ALU (also moves, selects, lane/quad/warp ids).
    pub const INT: u64 = 0;
    /// FP misc unit.
    pub const MISC: u64 = 1;
    /// FMA unit (also derivatives).
    pub const FMA: u64 = 2;
    /// Reciprocal unit.
    pub const RECIP: u64 = 3;
    /// Transcendental unit.
    pub const TRANSC: u64 = 4;
}

/// Where an ALU operation takes operand `a` from (`Decoded::a_src`).
pub mod a_src {
    /// Register `a`.
    pub const REG: u64 = 0;
    /// The immediate (`movi`).
    pub const IMM: u64 = 1;
    /// The lane index.
    pub const LANE: u64 = 2;
    /// The quad index.
    pub const QUAD: u64 = 3;
    /// The warp id.
    pub const WARP: u64 = 4;
    /// Quad neighbours for a derivative (`a` and `b` of the FMA's subtraction).
    pub const DERIV: u64 = 5;
    /// Register `a` of quad lane `imm & 3` (`qget`; operand `b` is zero).
    pub const QGET: u64 = 6;
}

/// Port kinds (`Decoded::port`).
pub mod port {
    /// `ldg`.
    pub const LDG: u64 = 0;
    /// `stg`.
    pub const STG: u64 = 1;
    /// `ldu`.
    pub const LDU: u64 = 2;
    /// `tex`.
    pub const TEX: u64 = 3;
    /// `spec`.
    pub const SPEC: u64 = 4;
    /// `export`.
    pub const EXPORT: u64 = 5;
}

/// What the decoder makes of one word.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded<T = Sig> {
    /// The opcode byte is an opcode.
    pub known: T,
    /// No non-zero unused field (and, for `export`, a count in 1..=4).
    pub fields_ok: T,
    /// The export count is bad (known `export` with count outside 1..=4).
    pub bad_count: T,
    /// Some register (range) reaches beyond the configured count.
    pub reg_err: T,
    /// A control instruction other than `nop` (resolved by the mask-stack logic).
    pub is_ctl: T,
    /// A port instruction.
    pub is_port: T,
    /// An ALU instruction (writes `d` after its unit's latency).
    pub is_alu: T,
    /// Unit code (3 bits, [`unit`](mod@unit)).
    pub unit: T,
    /// The unit's operation select (5 bits).
    pub uop: T,
    /// Operand `a` source (3 bits, [`a_src`]).
    pub a_src: T,
    /// Operand `b` is the immediate.
    pub b_imm: T,
    /// `sel`: the integer ALU's `sel` takes (b, c, a).
    pub sel: T,
    /// Port kind (3 bits, [`port`]).
    pub port: T,
    /// Registers the instruction reads or writes, one bit per register (for the scoreboard).
    pub touch: T,
}

/// Fields of the decode table word.
struct Row {
    known: bool,
    fd: bool,
    fa: bool,
    fb: bool,
    fc: bool,
    fi: bool,
    ctl: bool,
    port: bool,
    alu: bool,
    unit: u64,
    uop: u64,
    a_src: u64,
    b_imm: bool,
    sel: bool,
    d_n: u64,
    a_kind: u64,
    b_reg: bool,
    c_reg: bool,
    port_kind: u64,
}

impl Row {
    fn pack(&self) -> u64 {
        let b = |x: bool| x as u64;
        b(self.known)
            | b(self.fd) << 1
            | b(self.fa) << 2
            | b(self.fb) << 3
            | b(self.fc) << 4
            | b(self.fi) << 5
            | b(self.ctl) << 6
            | b(self.port) << 7
            | b(self.alu) << 8
            | self.unit << 9
            | self.uop << 12
            | self.a_src << 17
            | b(self.b_imm) << 20
            | b(self.sel) << 21
            | self.d_n << 22
            | self.a_kind << 25
            | b(self.b_reg) << 27
            | b(self.c_reg) << 28
            | self.port_kind << 29
    }
}

/// Width of a packed table row.
const ROW_BITS: u32 = 32;

/// The unit, operation select and operand sources of an ALU opcode.
fn alu_row(op: Opcode) -> (u64, u64, u64, bool) {
    use rendergen_rtl_ops::*;
    use Opcode::*;
    match op {
        Fadd => (unit::FMA, FMA_ADD, a_src::REG, false),
        Fsub => (unit::FMA, FMA_SUB, a_src::REG, false),
        Fmul => (unit::FMA, FMA_MUL, a_src::REG, false),
        Ffma => (unit::FMA, FMA_FMA, a_src::REG, false),
        Faddi => (unit::FMA, FMA_ADD, a_src::REG, true),
        Fmuli => (unit::FMA, FMA_MUL, a_src::REG, true),
        Ddxc | Ddyc | Ddxf | Ddyf => (unit::FMA, FMA_SUB, a_src::DERIV, false),
        Fmin | Fmax | Feq | Fne | Flt | Fle | Fgt | Fge | F2i | F2u | I2f | U2f | Floor | Ceil
        | Trunc | Fract | Rndeven | Fabs | Fneg => {
            let code = match op {
                Fmin => 0,
                Fmax => 1,
                Feq => 2,
                Fne => 3,
                Flt => 4,
                Fle => 5,
                Fgt => 6,
                Fge => 7,
                F2i => 8,
                F2u => 9,
                I2f => 10,
                U2f => 11,
                Floor => 12,
                Ceil => 13,
                Trunc => 14,
                Fract => 15,
                Rndeven => 16,
                Fabs => 17,
                _ => 18,
            };
            (unit::MISC, code, a_src::REG, false)
        }
        Rcp => (unit::RECIP, 0, a_src::REG, false),
        Rsqrt => (unit::RECIP, 1, a_src::REG, false),
        Sqrt => (unit::RECIP, 2, a_src::REG, false),
        Exp2 => (unit::TRANSC, 0, a_src::REG, false),
        Log2 => (unit::TRANSC, 1, a_src::REG, false),
        Sin => (unit::TRANSC, 2, a_src::REG, false),
        Cos => (unit::TRANSC, 3, a_src::REG, false),
        Iadd | Iaddi => (unit::INT, 0, a_src::REG, op == Iaddi),
        Isub => (unit::INT, 1, a_src::REG, false),
        Imul | Imuli => (unit::INT, 2, a_src::REG, op == Imuli),
        Shl | Shli => (unit::INT, 3, a_src::REG, op == Shli),
        Shr | Shri => (unit::INT, 4, a_src::REG, op == Shri),
        Sar | Sari => (unit::INT, 5, a_src::REG, op == Sari),
        And | Andi => (unit::INT, 6, a_src::REG, op == Andi),
        Or | Ori => (unit::INT, 7, a_src::REG, op == Ori),
        Xor | Xori => (unit::INT, 8, a_src::REG, op == Xori),
        Not => (unit::INT, 9, a_src::REG, false),
        Ieq => (unit::INT, 10, a_src::REG, false),
        Ine => (unit::INT, 11, a_src::REG, false),
        Ilt => (unit::INT, 12, a_src::REG, false),
        Ile => (unit::INT, 13, a_src::REG, false),
        Ult => (unit::INT, 14, a_src::REG, false),
        Ule => (unit::INT, 15, a_src::REG, false),
        Sel => (unit::INT, 20, a_src::REG, false),
        // Moves: a + 0 (b is zero: `b_imm` with a zero immediate field, or register-free).
        Mov => (unit::INT, 7, a_src::REG, true),
        Movi => (unit::INT, 7, a_src::IMM, true),
        Lane => (unit::INT, 7, a_src::LANE, true),
        Quad => (unit::INT, 7, a_src::QUAD, true),
        Warp => (unit::INT, 7, a_src::WARP, true),
        // a | 0 with `a` from the quad lane `imm & 3` (the core zeroes `b` for QGET).
        Qget => (unit::INT, 7, a_src::QGET, false),
        _ => unreachable!("{op:?} is no ALU opcode"),
    }
}

/// Operation codes of the `rtl/fp` units the table uses.
mod rendergen_rtl_ops {
    pub const FMA_FMA: u64 = 0;
    pub const FMA_MUL: u64 = 1;
    pub const FMA_ADD: u64 = 2;
    pub const FMA_SUB: u64 = 3;
}

/// The decode table: one packed row per opcode byte (unknown bytes are all zero).
fn table() -> Vec<u64> {
    let mut rows = vec![0u64; 256];
    for &op in Opcode::ALL {
        let f = op.format();
        let (fd, fa, fb, fc, fi) = match f {
            Format::None => (false, false, false, false, false),
            Format::D => (true, false, false, false, false),
            Format::Da => (true, true, false, false, false),
            Format::Dab => (true, true, true, false, false),
            Format::Dabc => (true, true, true, true, false),
            Format::Dai => (true, true, false, false, true),
            Format::Di => (true, false, false, false, true),
            Format::Abi => (false, true, true, false, true),
            Format::Dabi => (true, true, true, false, true),
            Format::Export => (false, true, true, false, true),
            Format::At => (false, true, false, false, true),
            Format::T => (false, false, false, false, true),
        };
        let unit_kind = op.unit();
        let is_alu = !matches!(unit_kind, Unit::Port | Unit::Control);
        let (unit, uop, a_src, b_imm) = if is_alu {
            alu_row(op)
        } else {
            (0, 0, 0, false)
        };
        let inst = rendergen_shader_isa::Inst::new(op);
        let d_n = inst.dest().map_or(0, |(_, n)| n as u64);
        let a_kind = match (op, f) {
            (Opcode::Tex, _) => 2,
            (Opcode::Export, _) => 3,
            (_, Format::Da | Format::Dab | Format::Dabc | Format::Dai)
            | (_, Format::Abi | Format::Dabi | Format::At) => 1,
            _ => 0,
        };
        let b_reg = matches!(f, Format::Dab | Format::Dabc | Format::Abi | Format::Dabi);
        let port_kind = match op {
            Opcode::Ldg => port::LDG,
            Opcode::Stg => port::STG,
            Opcode::Ldu => port::LDU,
            Opcode::Tex => port::TEX,
            Opcode::Spec => port::SPEC,
            Opcode::Export => port::EXPORT,
            _ => 0,
        };
        let row = Row {
            known: true,
            fd,
            fa,
            fb,
            fc,
            fi,
            ctl: unit_kind == Unit::Control && op != Opcode::Nop,
            port: unit_kind == Unit::Port,
            alu: is_alu,
            unit,
            uop,
            a_src,
            b_imm,
            sel: op == Opcode::Sel,
            d_n,
            a_kind,
            b_reg,
            c_reg: f == Format::Dabc,
            port_kind,
        };
        rows[op as usize] = row.pack();
    }
    rows
}

/// `n` ones shifted to `r`, in `width` bits (n ≤ 4).
fn range_mask(m: &mut Module, r: Sig, n: Sig, width: u32) -> Sig {
    let ones = (m.lit(1, width + 8).shl(n) - 1).shl(r);
    ones.bits(width - 1, 0)
}

/// Decodes `word` for a core with `regs` registers per lane; `touch` is `touch_width` bits.
#[name_lets]
pub fn decode(m: &mut Module, word: Sig, regs: u32, touch_width: u32) -> Decoded {
    let opcode = word.bits(63, 56);
    let d = word.bits(55, 48);
    let a = word.bits(47, 40);
    let b = word.bits(39, 32);
    let c = word.bits(31, 24);
    let row = lut(opcode, &table(), ROW_BITS);
    let f = |lo: u32, w: u32| row.slice(lo, w);
    let known = f(0, 1);
    let (fd, fa, fb, fc, fi) = (f(1, 1), f(2, 1), f(3, 1), f(4, 1), f(5, 1));
    let low_ok = fi | fc.mux(word.bits(23, 0).eq(0), word.bits(31, 0).eq(0));
    let unused_ok = (fd | d.eq(0)) & (fa | a.eq(0)) & (fb | b.eq(0)) & low_ok;
    let is_export = opcode.eq(Opcode::Export as u64);
    let bad_count = known & unused_ok & is_export & (b.eq(0) | b.gt(4u64));
    let d_n = f(22, 3);
    let a_kind = f(25, 2);
    let (b_reg, c_reg) = (f(27, 1), f(28, 1));
    // Register ranges: first + count > regs (9-bit sums).
    let a_n = index_sel(
        a_kind,
        &[m.lit(0, 3), m.lit(1, 3), m.lit(2, 3), b.resize(3)],
    );
    let limit = m.lit(regs as u64, 9);
    let over = |first: Sig, n: Sig| n.ne(0) & (first.zext(9) + n.zext(9)).gt(limit);
    let one = m.lit(1, 3);
    let zero3 = m.lit(0, 3);
    let reg_err = over(d, d_n)
        | over(a, a_n)
        | over(b, b_reg.mux(one, zero3))
        | over(c, c_reg.mux(one, zero3));
    let touch = range_mask(m, d, d_n, touch_width)
        | range_mask(m, a, a_n, touch_width)
        | range_mask(m, b, b_reg.mux(one, zero3), touch_width)
        | range_mask(m, c, c_reg.mux(one, zero3), touch_width);
    Decoded {
        known,
        fields_ok: known & unused_ok & !bad_count,
        bad_count,
        reg_err,
        is_ctl: f(6, 1),
        is_port: f(7, 1),
        is_alu: f(8, 1),
        unit: f(9, 3),
        uop: f(12, 5),
        a_src: f(17, 3),
        b_imm: f(20, 1),
        sel: f(21, 1),
        port: f(29, 3),
        touch,
    }
}

/// `cases[index]` for a 2-bit index.
fn index_sel(index: Sig, cases: &[Sig]) -> Sig {
    rendergen_hdl::index_select(index, cases)
}

/// Bits of `regs` registers rounded up to a power of two (the scoreboard's width).
pub fn touch_width(regs: u32) -> u32 {
    1 << rendergen_hdl::clog2(regs as u64)
}

/// Latency of each unit code in stage registers (index = [`unit`](mod@unit) code).
pub fn unit_stages() -> [u32; 5] {
    use crate::fp;
    [
        fp::int_alu::LATENCY as u32 - 1,
        fp::misc::LATENCY as u32 - 1,
        fp::fma::LATENCY as u32 - 1,
        fp::recip::LATENCY - 1,
        fp::transc::STAGES,
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_rows_fit() {
        for row in super::table() {
            assert!(row < 1 << super::ROW_BITS);
        }
    }
}
