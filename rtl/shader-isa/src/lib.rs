#![doc = include_str!("../ISA.md")]
//!
//! ## Crate layout
//! * [`Opcode`], [`Format`], [`Inst`]: the table and the encoding ([`Inst::encode`],
//!   [`Inst::decode`]).
//! * [`WarpError`]: why a warp ended early, with its code.
//! * [`asm`]: text to words (line-numbered errors; [`asm::resolve`] computes the control-flow
//!   targets); [`disasm`]: words to text that reassembles to the same words; [`doc`]: the
//!   generated opcode table.

pub mod asm;
pub mod disasm;
pub mod doc;

use std::fmt;

/// Lanes in a quad.
pub const QUAD_LANES: usize = 4;
/// The largest number of quads in a warp (lane masks are 64 bits).
pub const MAX_QUADS: usize = 16;
/// Registers per lane by default.
pub const DEFAULT_REGS: usize = 64;
/// Depth of the mask stack: `if` and `loop` blocks nest at most this deep.
pub const MAX_DEPTH: usize = 16;

/// Which fields of the 64-bit word an opcode uses, and its assembly operands.
///
/// Fields: `[63:56]` opcode, `[55:48]` d, `[47:40]` a, `[39:32]` b, `[31:0]` imm (for
/// [`Format::Dabc`] the third source `c` is `[31:24]` and `[23:0]` is zero). Unused fields are
/// zero; a word with a known opcode and a non-zero unused field does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// No operands.
    None,
    /// `d`.
    D,
    /// `d, a`.
    Da,
    /// `d, a, b`.
    Dab,
    /// `d, a, b, c`.
    Dabc,
    /// `d, a, imm`.
    Dai,
    /// `d, imm`.
    Di,
    /// `a, b, imm` (store).
    Abi,
    /// `d, a, b, imm` (`spec`: imm is the function code).
    Dabi,
    /// `loc, a, n`: imm = location, a = first register, b = count 1..=4.
    Export,
    /// `a` plus a target pc in imm that the assembler computes (`if`, `brk`, `cont`).
    At,
    /// A target pc in imm that the assembler computes (`else`, `loop`, `endloop`).
    T,
}

impl Format {
    /// Bits of the word this format uses (the opcode byte included).
    pub fn used_bits(self) -> u64 {
        const OP: u64 = 0xFF << 56;
        const D: u64 = 0xFF << 48;
        const A: u64 = 0xFF << 40;
        const B: u64 = 0xFF << 32;
        const C: u64 = 0xFF << 24;
        const IMM: u64 = 0xFFFF_FFFF;
        OP | match self {
            Format::None => 0,
            Format::D => D,
            Format::Da => D | A,
            Format::Dab => D | A | B,
            Format::Dabc => D | A | B | C,
            Format::Dai => D | A | IMM,
            Format::Di => D | IMM,
            Format::Abi => A | B | IMM,
            Format::Dabi => D | A | B | IMM,
            Format::Export => A | B | IMM,
            Format::At => A | IMM,
            Format::T => IMM,
        }
    }

    /// Whether the imm field is a control-flow target the assembler fills in.
    pub fn has_target(self) -> bool {
        matches!(self, Format::At | Format::T)
    }
}

/// How the assembler reads, and the disassembler prints, an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmKind {
    /// No immediate (or a target).
    None,
    /// An f32: decimals (`1.5`, `-2`, `1e3`, `inf`, `nan`) are read as f32 and `0x…` as raw bits.
    Float,
    /// A 32-bit integer: `-2147483648 ..= 4294967295`, or `0x…`.
    Int,
    /// A raw word (`movi`): integers as integers, decimals with `.`/`e` as f32, `0x…` raw.
    Word,
}

/// The unit (or part of the core) an opcode executes in, and so its latency class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// The FP32 FMA unit (`rtl/fp`).
    Fma,
    /// The FP32 misc unit: min/max, compares, conversions, rounding, abs/neg, derivatives.
    FpMisc,
    /// The reciprocal unit (rcp/rsqrt/sqrt).
    Recip,
    /// The transcendental unit (exp2/log2/sin/cos).
    Transc,
    /// The integer ALU (also moves and selects).
    Int,
    /// A request on a port (memory, uniform, texture, special, export).
    Port,
    /// Control flow and the mask stack.
    Control,
}

impl Unit {
    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Fma => "fma",
            Unit::FpMisc => "fp-misc",
            Unit::Recip => "recip",
            Unit::Transc => "transc",
            Unit::Int => "int",
            Unit::Port => "port",
            Unit::Control => "control",
        }
    }
}

macro_rules! opcodes {
    ($($name:ident = $byte:literal, $mn:literal, $fmt:ident, $imm:ident, $unit:ident, $sem:literal;)*) => {
        /// An opcode of the shader ISA (the table is in the [crate documentation](crate)).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode { $(
            #[doc = $sem]
            $name = $byte,
        )* }

        impl Opcode {
            /// Every opcode, in byte order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name),*];

            /// The opcode of `byte`, or `None` for an unknown byte.
            pub fn from_byte(byte: u8) -> Option<Opcode> {
                match byte { $($byte => Some(Opcode::$name),)* _ => None }
            }

            /// Assembler mnemonic (lower case).
            pub fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$name => $mn,)* }
            }

            /// Its operand format.
            pub fn format(self) -> Format {
                match self { $(Opcode::$name => Format::$fmt,)* }
            }

            /// How its immediate is written.
            pub fn imm_kind(self) -> ImmKind {
                match self { $(Opcode::$name => ImmKind::$imm,)* }
            }

            /// The unit it executes in.
            pub fn unit(self) -> Unit {
                match self { $(Opcode::$name => Unit::$unit,)* }
            }

            /// Its semantics per active lane; for FP operations, the golden-model function of
            /// `rendergen_sim::models::fp32` that defines it.
            pub fn semantics(self) -> &'static str {
                match self { $(Opcode::$name => $sem,)* }
            }
        }
    };
}

opcodes! {
    Nop = 0x01, "nop", None, None, Control, "nothing";
    End = 0x02, "end", None, None, Control, "the warp is done (only at nesting depth 0)";
    If = 0x08, "if", At, None, Control, "push; lanes with a ≠ 0 stay active; none → jump to the matching else/endif";
    Else = 0x09, "else", T, None, Control, "the other lanes of the if run; none → jump to the matching endif";
    Endif = 0x0A, "endif", None, None, Control, "pop: the lanes active at the if (minus those that left a loop)";
    Loop = 0x0B, "loop", T, None, Control, "push a loop frame (target: the matching endloop)";
    Brk = 0x0C, "brk", At, None, Control, "active lanes with a ≠ 0 leave the innermost loop (target: its endloop)";
    Cont = 0x0D, "cont", At, None, Control, "active lanes with a ≠ 0 wait for the next iteration (target: its endloop)";
    Endloop = 0x0E, "endloop", T, None, Control, "lanes left in the loop → all of them again at loop + 1 (target: the loop); none → pop";
    Fadd = 0x10, "fadd", Dab, None, Fma, "d = fp32::basic::add(a, b)";
    Fsub = 0x11, "fsub", Dab, None, Fma, "d = fp32::basic::sub(a, b)";
    Fmul = 0x12, "fmul", Dab, None, Fma, "d = fp32::basic::mul(a, b)";
    Ffma = 0x13, "ffma", Dabc, None, Fma, "d = fp32::basic::fma(a, b, c) = a·b + c, one rounding";
    Fmin = 0x14, "fmin", Dab, None, FpMisc, "d = fp32::basic::min(a, b)";
    Fmax = 0x15, "fmax", Dab, None, FpMisc, "d = fp32::basic::max(a, b)";
    Faddi = 0x16, "faddi", Dai, Float, Fma, "d = fp32::basic::add(a, imm)";
    Fmuli = 0x17, "fmuli", Dai, Float, Fma, "d = fp32::basic::mul(a, imm)";
    Feq = 0x18, "feq", Dab, None, FpMisc, "d = fp32::basic::cmp(Eq, a, b) (1 or 0)";
    Fne = 0x19, "fne", Dab, None, FpMisc, "d = fp32::basic::cmp(Ne, a, b)";
    Flt = 0x1A, "flt", Dab, None, FpMisc, "d = fp32::basic::cmp(Lt, a, b)";
    Fle = 0x1B, "fle", Dab, None, FpMisc, "d = fp32::basic::cmp(Le, a, b)";
    Fgt = 0x1C, "fgt", Dab, None, FpMisc, "d = fp32::basic::cmp(Gt, a, b)";
    Fge = 0x1D, "fge", Dab, None, FpMisc, "d = fp32::basic::cmp(Ge, a, b)";
    F2i = 0x20, "f2i", Da, None, FpMisc, "d = fp32::basic::f2i(a)";
    F2u = 0x21, "f2u", Da, None, FpMisc, "d = fp32::basic::f2u(a)";
    I2f = 0x22, "i2f", Da, None, FpMisc, "d = fp32::basic::i2f(a)";
    U2f = 0x23, "u2f", Da, None, FpMisc, "d = fp32::basic::u2f(a)";
    Floor = 0x24, "floor", Da, None, FpMisc, "d = fp32::basic::floor(a)";
    Ceil = 0x25, "ceil", Da, None, FpMisc, "d = fp32::basic::ceil(a)";
    Trunc = 0x26, "trunc", Da, None, FpMisc, "d = fp32::basic::trunc(a)";
    Fract = 0x27, "fract", Da, None, FpMisc, "d = fp32::basic::fract(a)";
    Rndeven = 0x28, "rndeven", Da, None, FpMisc, "d = fp32::basic::round_even(a)";
    Fabs = 0x29, "fabs", Da, None, FpMisc, "d = fp32::basic::abs(a)";
    Fneg = 0x2A, "fneg", Da, None, FpMisc, "d = fp32::basic::neg(a)";
    Rcp = 0x30, "rcp", Da, None, Recip, "d = fp32::recip::rcp(a)";
    Rsqrt = 0x31, "rsqrt", Da, None, Recip, "d = fp32::recip::rsqrt(a)";
    Sqrt = 0x32, "sqrt", Da, None, Recip, "d = fp32::recip::sqrt(a)";
    Exp2 = 0x34, "exp2", Da, None, Transc, "d = fp32::transc::exp2(a)";
    Log2 = 0x35, "log2", Da, None, Transc, "d = fp32::transc::log2(a)";
    Sin = 0x36, "sin", Da, None, Transc, "d = fp32::transc::sin(a)";
    Cos = 0x37, "cos", Da, None, Transc, "d = fp32::transc::cos(a)";
    Ddxc = 0x38, "ddxc", Da, None, FpMisc, "coarse: d = fp32::basic::sub(a of lane 1, a of lane 0) of the quad, in all four lanes";
    Ddyc = 0x39, "ddyc", Da, None, FpMisc, "coarse: d = fp32::basic::sub(a of lane 2, a of lane 0) of the quad, in all four lanes";
    Ddxf = 0x3A, "ddxf", Da, None, FpMisc, "fine: d = fp32::basic::sub(a of the row's right lane, a of its left lane) (lanes 0, 1: 1 − 0; lanes 2, 3: 3 − 2)";
    Ddyf = 0x3B, "ddyf", Da, None, FpMisc, "fine: d = fp32::basic::sub(a of the column's bottom lane, a of its top lane) (lanes 0, 2: 2 − 0; lanes 1, 3: 3 − 1)";
    Iadd = 0x40, "iadd", Dab, None, Int, "d = a + b (wrapping)";
    Isub = 0x41, "isub", Dab, None, Int, "d = a − b (wrapping)";
    Imul = 0x42, "imul", Dab, None, Int, "d = low 32 bits of a · b";
    Shl = 0x43, "shl", Dab, None, Int, "d = a << (b & 31)";
    Shr = 0x44, "shr", Dab, None, Int, "d = a >> (b & 31), logical";
    Sar = 0x45, "sar", Dab, None, Int, "d = a >> (b & 31), arithmetic";
    And = 0x46, "and", Dab, None, Int, "d = a & b";
    Or = 0x47, "or", Dab, None, Int, "d = a | b";
    Xor = 0x48, "xor", Dab, None, Int, "d = a ^ b";
    Not = 0x49, "not", Da, None, Int, "d = !a";
    Iaddi = 0x4A, "iaddi", Dai, Int, Int, "d = a + imm (wrapping)";
    Imuli = 0x4B, "imuli", Dai, Int, Int, "d = low 32 bits of a · imm";
    Andi = 0x4C, "andi", Dai, Int, Int, "d = a & imm";
    Ori = 0x4D, "ori", Dai, Int, Int, "d = a | imm";
    Xori = 0x4E, "xori", Dai, Int, Int, "d = a ^ imm";
    Shli = 0x4F, "shli", Dai, Int, Int, "d = a << (imm & 31)";
    Shri = 0x50, "shri", Dai, Int, Int, "d = a >> (imm & 31), logical";
    Sari = 0x51, "sari", Dai, Int, Int, "d = a >> (imm & 31), arithmetic";
    Ieq = 0x58, "ieq", Dab, None, Int, "d = a == b (1 or 0)";
    Ine = 0x59, "ine", Dab, None, Int, "d = a != b";
    Ilt = 0x5A, "ilt", Dab, None, Int, "d = a < b, signed";
    Ile = 0x5B, "ile", Dab, None, Int, "d = a <= b, signed";
    Ult = 0x5C, "ult", Dab, None, Int, "d = a < b, unsigned";
    Ule = 0x5D, "ule", Dab, None, Int, "d = a <= b, unsigned";
    Sel = 0x60, "sel", Dabc, None, Int, "d = a ≠ 0 ? b : c";
    Mov = 0x61, "mov", Da, None, Int, "d = a";
    Movi = 0x62, "movi", Di, Word, Int, "d = imm";
    Lane = 0x63, "lane", D, None, Int, "d = the lane's index in the warp (4·quad + i)";
    Quad = 0x64, "quad", D, None, Int, "d = the lane's quad index in the warp";
    Warp = 0x65, "warp", D, None, Int, "d = the warp id given at launch";
    Qget = 0x66, "qget", Dai, Int, Int, "d = register a of lane imm & 3 of the lane's quad, in all four lanes (a quad read: how lanes read the quad-shared registers of a SHARED texture broadcast)";
    Ldg = 0x70, "ldg", Dai, Int, Port, "d = global word at byte address a + imm (wrapping)";
    Stg = 0x71, "stg", Abi, Int, Port, "global word at byte address a + imm = b (not by helper lanes)";
    Ldu = 0x72, "ldu", Di, Int, Port, "d = uniform word imm (one read for the warp)";
    Tex = 0x73, "tex", Dai, Int, Port, "d..d+3 = texture sampler imm at coordinates a, a+1 (one request per quad)";
    Spec = 0x74, "spec", Dabi, Int, Port, "d = special-port function imm of a, b (tile engine)";
    Export = 0x75, "export", Export, Int, Port, "output location imm = registers a..a+n−1 (n = b, 1..=4; not by helper lanes)";
}

/// The value of a comparison that holds.
pub const TRUE: u32 = 1;

/// One instruction: an opcode and its fields (unused fields are zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inst {
    /// The opcode.
    pub op: Opcode,
    /// Destination register (`[55:48]`).
    pub d: u8,
    /// First source register (`[47:40]`).
    pub a: u8,
    /// Second source register, or the export count (`[39:32]`).
    pub b: u8,
    /// Third source register (`[31:24]`, formats with `c` only).
    pub c: u8,
    /// Immediate or target pc (`[31:0]`; zero for formats without one).
    pub imm: u32,
}

/// Why a word does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The opcode byte is no opcode.
    UnknownOpcode,
    /// A known opcode with a non-zero field its format does not use.
    ReservedBits,
    /// An `export` whose count is outside 1..=4.
    BadExportCount,
}

impl Inst {
    /// An instruction with all fields zero.
    pub fn new(op: Opcode) -> Inst {
        Inst {
            op,
            d: 0,
            a: 0,
            b: 0,
            c: 0,
            imm: 0,
        }
    }

    /// The 64-bit word (fields of formats that do not use them must be zero).
    pub fn encode(&self) -> u64 {
        let low = match self.op.format() {
            Format::Dabc => (self.c as u32) << 24,
            _ => self.imm,
        };
        (self.op as u64) << 56
            | (self.d as u64) << 48
            | (self.a as u64) << 40
            | (self.b as u64) << 32
            | low as u64
    }

    /// The instruction of `word`.
    pub fn decode(word: u64) -> Result<Inst, DecodeError> {
        let op = Opcode::from_byte((word >> 56) as u8).ok_or(DecodeError::UnknownOpcode)?;
        let format = op.format();
        if word & !format.used_bits() != 0 {
            return Err(DecodeError::ReservedBits);
        }
        let count = (word >> 32) as u8;
        if op == Opcode::Export && !(1..=4).contains(&count) {
            return Err(DecodeError::BadExportCount);
        }
        let (c, imm) = match format {
            Format::Dabc => ((word >> 24) as u8, 0),
            _ => (0, word as u32),
        };
        Ok(Inst {
            op,
            d: (word >> 48) as u8,
            a: (word >> 40) as u8,
            b: (word >> 32) as u8,
            c,
            imm,
        })
    }

    /// Registers it reads, as `(first, count)` ranges (`tex` reads two, `export` `b`).
    pub fn sources(&self) -> Vec<(u8, usize)> {
        match self.op.format() {
            Format::Da | Format::Dai if self.op == Opcode::Tex => vec![(self.a, 2)],
            Format::Da | Format::Dai | Format::At => vec![(self.a, 1)],
            Format::Dab | Format::Abi | Format::Dabi => vec![(self.a, 1), (self.b, 1)],
            Format::Dabc => vec![(self.a, 1), (self.b, 1), (self.c, 1)],
            Format::Export => vec![(self.a, self.b as usize)],
            Format::None | Format::D | Format::Di | Format::T => vec![],
        }
    }

    /// Registers it writes, as a `(first, count)` range (`tex` writes four).
    pub fn dest(&self) -> Option<(u8, usize)> {
        match self.op.format() {
            Format::D | Format::Da | Format::Dab | Format::Dabc | Format::Di | Format::Dabi => {
                Some((self.d, 1))
            }
            Format::Dai if self.op == Opcode::Tex => Some((self.d, 4)),
            Format::Dai => Some((self.d, 1)),
            _ => None,
        }
    }

    /// The highest register index it touches plus one (0 if none): it is legal on a core with
    /// at least that many registers per lane.
    pub fn regs_needed(&self) -> usize {
        (self.sources().into_iter().chain(self.dest()))
            .filter(|&(_, n)| n > 0)
            .map(|(r, n)| r as usize + n)
            .max()
            .unwrap_or(0)
    }
}

/// Why a warp ended before `end`: reported with its code at the warp's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpError {
    /// The opcode byte is no opcode.
    UnknownOpcode,
    /// A known opcode with a non-zero unused field.
    ReservedBits,
    /// A register index (or the end of a register range) beyond the configured count.
    RegisterOutOfRange,
    /// An `export` count outside 1..=4.
    BadExportCount,
    /// Unbalanced control flow: `else`/`endif`/`endloop` without its opener, `brk`/`cont`
    /// outside a loop, a target that is not the matching instruction, or `end` inside a block.
    BadControl,
    /// The pc (or a target) left the program.
    PcOutOfRange,
    /// More than [`MAX_DEPTH`] nested blocks.
    MaskStackOverflow,
    /// More instructions executed than the watchdog allows.
    Watchdog,
}

impl WarpError {
    /// Every error, in code order.
    pub const ALL: [WarpError; 8] = [
        WarpError::UnknownOpcode,
        WarpError::ReservedBits,
        WarpError::RegisterOutOfRange,
        WarpError::BadExportCount,
        WarpError::BadControl,
        WarpError::PcOutOfRange,
        WarpError::MaskStackOverflow,
        WarpError::Watchdog,
    ];

    /// 4-bit code at the warp's output: 0 is success, errors are 1..=8 in [`WarpError::ALL`]
    /// order.
    pub fn code(self) -> u32 {
        WarpError::ALL.iter().position(|&e| e == self).unwrap() as u32 + 1
    }

    /// The error of a code.
    pub fn from_code(code: u32) -> Option<WarpError> {
        (code as usize)
            .checked_sub(1)
            .and_then(|i| WarpError::ALL.get(i).copied())
    }

    /// Its name in reports and JSON (`unknown_opcode`, …).
    pub fn name(self) -> &'static str {
        match self {
            WarpError::UnknownOpcode => "unknown_opcode",
            WarpError::ReservedBits => "reserved_bits",
            WarpError::RegisterOutOfRange => "register_out_of_range",
            WarpError::BadExportCount => "bad_export_count",
            WarpError::BadControl => "bad_control",
            WarpError::PcOutOfRange => "pc_out_of_range",
            WarpError::MaskStackOverflow => "mask_stack_overflow",
            WarpError::Watchdog => "watchdog",
        }
    }
}

impl From<DecodeError> for WarpError {
    fn from(e: DecodeError) -> WarpError {
        match e {
            DecodeError::UnknownOpcode => WarpError::UnknownOpcode,
            DecodeError::ReservedBits => WarpError::ReservedBits,
            DecodeError::BadExportCount => WarpError::BadExportCount,
        }
    }
}

impl fmt::Display for WarpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.name(), self.code())
    }
}

/// Program words as little-endian bytes (the memory image).
pub fn to_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A memory image as words; `None` if its length is not a multiple of 8.
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<u64>> {
    (bytes.chunks_exact(8).remainder().is_empty()).then(|| {
        (bytes.chunks_exact(8))
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips_and_is_consistent() {
        let mut names = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_byte(op as u8), Some(op));
            assert!(names.insert(op.mnemonic()), "duplicate {op:?}");
            assert_eq!(op.mnemonic(), op.mnemonic().to_ascii_lowercase());
            let has_imm = op.format().used_bits() & 0xFFFF_FFFF == 0xFFFF_FFFF;
            let imm_written = op.imm_kind() != ImmKind::None;
            assert_eq!(has_imm && !op.format().has_target(), imm_written, "{op:?}");
            if op.unit() == Unit::Fma || op.semantics().contains("fp32::") {
                assert!(op.semantics().contains("fp32::") || op.mnemonic().starts_with("dd"));
            }
        }
        assert_eq!(Opcode::from_byte(0), None, "a zero word is no instruction");
        let known = (0..=255u8).filter(|&b| Opcode::from_byte(b).is_some());
        assert_eq!(known.count(), Opcode::ALL.len());
    }

    #[test]
    fn encode_decode_round_trip_and_reserved_bits() {
        let i = Inst {
            op: Opcode::Ffma,
            d: 1,
            a: 2,
            b: 3,
            c: 4,
            imm: 0,
        };
        assert_eq!(i.encode(), 0x13_01_02_03_04_00_00_00);
        assert_eq!(Inst::decode(i.encode()), Ok(i));
        assert_eq!(Inst::decode(i.encode() | 1), Err(DecodeError::ReservedBits));
        let m = Inst {
            imm: 0x3FC0_0000,
            d: 9,
            ..Inst::new(Opcode::Movi)
        };
        assert_eq!(m.encode(), 0x62_09_00_00_3F_C0_00_00);
        assert_eq!(Inst::decode(m.encode()), Ok(m));
        assert_eq!(Inst::decode(0xFF << 56), Err(DecodeError::UnknownOpcode));
        assert_eq!(Inst::decode(0), Err(DecodeError::UnknownOpcode));
        assert_eq!(
            from_bytes(&to_bytes(&[1, u64::MAX])).unwrap(),
            [1, u64::MAX]
        );
    }

    #[test]
    fn register_ranges() {
        let tex = Inst {
            d: 60,
            a: 10,
            imm: 2,
            ..Inst::new(Opcode::Tex)
        };
        assert_eq!(tex.regs_needed(), 64);
        let e = Inst {
            a: 62,
            b: 3,
            ..Inst::new(Opcode::Export)
        };
        assert_eq!(e.regs_needed(), 65);
        assert_eq!(Inst::new(Opcode::End).regs_needed(), 0);
    }

    #[test]
    fn error_codes_round_trip() {
        for e in WarpError::ALL {
            assert_eq!(WarpError::from_code(e.code()), Some(e));
        }
        assert_eq!(WarpError::from_code(0), None);
        assert_eq!(WarpError::from_code(9), None);
    }
}
