//! # The PBRU bytecode
//!
//! One-byte opcodes, little-endian immediates after the opcode, 32-bit stack words holding Q16.16
//! two's-complement scalars (D3). Programs are fetched in 32-byte chunks; an instruction and its
//! immediates may straddle a chunk boundary. This crate is the single table of the encoding,
//! shared by the RTL decoder, the instruction-level interpreter (the golden model) and the
//! assembler/disassembler; it holds no behaviour beyond the encoding.
//!
//! ## Stack conventions
//! The stack grows upwards; `s[0]` is the bottom (the ray's variables are loaded there by the
//! SM/TTU), "top" is the last pushed word. An effect `a b → r` pops `b` (the top) then `a`, and
//! pushes `r`. Vectors are three consecutive words (x pushed first), colours four (R first).
//!
//! ## Arithmetic (Q16.16, two's complement, 32 bits)
//! * `ADD`/`SUB`/`NEG`: wrapping.
//! * `MUL`: `(a · b + 0x8000) >> 16` computed on the 64-bit product (round half up), wrapped.
//! * `LERP a b t`: `a + MUL(b − a, t)`, wrapping.
//! * `MIN`/`MAX`/`CLAMP`/`SELLT`/`ABS`: signed comparisons; `ABS(i32::MIN)` is `i32::MIN`.
//!
//! ## Opcode table
//! | byte | mnemonic | imm | stack effect | class |
//! |---|---|---|---|---|
//! | 0x00 | NOP | – | – | local |
//! | 0x01 | PUSH k | 4 B | → k | local |
//! | 0x02 | LOAD n | 1 B | → s\[n\] | local |
//! | 0x03 | STORE n | 1 B | a → ; s\[n\] = a | local |
//! | 0x04 | POP | – | a → | local |
//! | 0x05 | DUP | – | a → a a | local |
//! | 0x06 | SWAP | – | a b → b a | local |
//! | 0x07 | PICK n | 1 B | → copy of the word n below the top (PICK 0 = DUP) | local |
//! | 0x10 | ADD | – | a b → a+b | local |
//! | 0x11 | SUB | – | a b → a−b | local |
//! | 0x12 | MUL | – | a b → a·b | local |
//! | 0x13 | LERP | – | a b t → a+(b−a)·t | local |
//! | 0x14 | MIN | – | a b → min | local |
//! | 0x15 | MAX | – | a b → max | local |
//! | 0x16 | CLAMP | – | x lo hi → min(max(x, lo), hi) | local |
//! | 0x17 | SELLT | – | a b x y → a < b ? x : y | local |
//! | 0x18 | NEG | – | a → −a | local |
//! | 0x19 | ABS | – | a → abs(a) | local |
//! | 0x20 | RAYSTOP | – | (stack sent out with the ray) | control |
//! | 0x21 | RANDSEL n | 1 B | w0 … w(n−1) → | control |
//! | 0x22 | CASE | – | – | control |
//! | 0x23 | ENDCASE | – | – | control |
//! | 0x30 | TEX_A | – | u v sqrt_cov base dims format → block_addr tx ty | pipeline ASTC_A |
//! | 0x31 | TEX_READ | – | (reads block_addr two below the top; no pop) | L1 fetch, skipped on an L0 hit |
//! | 0x32 | TEX_DP p | 1 B | block_addr tx ty format → R G B A | pipeline ASTC_DP |
//! | 0x40 | GGX | – | N V L α → f | pipeline GGX |
//! | 0x41 | OREN_NAYAR | – | N V L rough → f | pipeline Oren-Nayar |
//! | 0x42 | SCHLICK | – | F0(rgb) F90(rgb) cos → F(rgb) | pipeline Schlick |
//! | 0x43 | SHEEN | – | N V L rough → f | pipeline sheen |
//! | 0x44 | SUBSURFACE | – | N V L rough → f | pipeline subsurface |
//! | 0x45 | CEL | – | N L → c | pipeline cel |
//! | 0x50 | GGX_DIR | – | N V α ξ1 ξ2 → dir pdf | pipeline GGX |
//! | 0x51 | OREN_NAYAR_DIR | – | N ξ1 ξ2 → dir pdf | pipeline Oren-Nayar |
//!
//! Texture words: `dims = width << 16 | height`, `format = bw | bh << 4 | mips << 8`
//! (ASTC footprint and mip count), TEX_DP's immediate `p` is the decode profile (0 LDR linear,
//! 1 LDR sRGB, 2 HDR). Texel channels arrive as Q16.16: LDR UNORM16 `c` becomes `c + (c >> 15)`
//! (so 0xFFFF is exactly 1.0); HDR FP16 is converted to Q16.16, truncated toward zero and
//! saturated.
//!
//! ## Random select and the ray's PRNG (proposal; full semantics in `rtl/isa/ISA.md`)
//! `RANDSEL n` pops `n` weights, draws `r = (x · S) >> 32` with `S` the sum of the weights
//! (negative ones count as 0) and `x` the next output of the ray's xorshift32 PRNG, and runs case
//! `k = #{ i < n−1 : w0 + … + wᵢ ≤ r }`. The PRNG state is seeded at assignment to a slot with
//! `(ray_id · 0x9E3779B9) | 1` and advanced once per `RANDSEL`
//! (`x ^= x << 13; x ^= x >> 17; x ^= x << 5`). [`prng_seed`] and [`prng_next`] are the
//! definition.
//!
//! The shading opcodes (0x40–0x51) are specified in `rtl/isa/ISA.md` ("Shading pipelines"):
//! exact inputs and outputs, the α convention of GGX (MaterialX's GGX α), the cel table, and
//! the measured accuracy.
//!
//! Every other byte is an unknown opcode: executing it ends the ray with
//! [`RayError::UnknownOpcode`].

pub mod asm;
pub mod disasm;
pub mod doc;
pub mod fp_tables;

use std::fmt;

/// Bytes in an instruction chunk (D3).
pub const CHUNK_BYTES: u32 = 32;

/// The PRNG state of a ray at assignment: `(ray_id · 0x9E3779B9) | 1` (never zero).
pub fn prng_seed(ray_id: u32) -> u32 {
    ray_id.wrapping_mul(0x9E37_79B9) | 1
}

/// Advances a ray's xorshift32 PRNG once (one `RANDSEL`) and returns the new state, which is
/// also the draw.
pub fn prng_next(state: &mut u32) -> u32 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    x
}

/// The fixed-function pipeline types a request can go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PipeKind {
    /// ASTC_A: texture address (`pbru.md` §5.2).
    AstcA,
    /// ASTC_DP: single-texel decode (§5.3).
    AstcDp,
    /// GGX microfacet specular (D4).
    Ggx,
    /// Oren-Nayar diffuse (D4).
    OrenNayar,
    /// Schlick Fresnel (D4).
    Schlick,
    /// Charlie sheen (D4).
    Sheen,
    /// Burley subsurface (D4).
    Subsurface,
    /// Cel (toon) lighting (D4).
    Cel,
}

impl PipeKind {
    /// Every pipeline type, in index order.
    pub const ALL: [PipeKind; 8] = [
        PipeKind::AstcA,
        PipeKind::AstcDp,
        PipeKind::Ggx,
        PipeKind::OrenNayar,
        PipeKind::Schlick,
        PipeKind::Sheen,
        PipeKind::Subsurface,
        PipeKind::Cel,
    ];

    /// Index in [`PipeKind::ALL`] (the 3-bit type field of a request).
    pub fn index(self) -> u32 {
        self as u32
    }

    /// Lower-case name (`astc_a`, `ggx`, …) used in reports and the command line.
    pub fn name(self) -> &'static str {
        match self {
            PipeKind::AstcA => "astc_a",
            PipeKind::AstcDp => "astc_dp",
            PipeKind::Ggx => "ggx",
            PipeKind::OrenNayar => "oren_nayar",
            PipeKind::Schlick => "schlick",
            PipeKind::Sheen => "sheen",
            PipeKind::Subsurface => "subsurface",
            PipeKind::Cel => "cel",
        }
    }
}

/// How an instruction executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Inside the core, no scheduler traffic.
    Local,
    /// Ray stop and importance-sampling control.
    Control,
    /// A request to a pipeline of this type (`dir` = the direction variant).
    Pipeline {
        /// Pipeline type.
        kind: PipeKind,
        /// Direction (importance-sampling) variant.
        dir: bool,
    },
    /// A texture-block fetch through the scheduler's L1 port.
    TexRead,
}

macro_rules! opcodes {
    ($($name:ident = $byte:literal, $mn:literal, imm $imm:literal, pops $pops:literal, pushes $pushes:literal, $class:expr;)*) => {
        /// An opcode of the PBRU bytecode (see the [crate documentation](crate) for the table).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Opcode { $(
            #[doc = $mn]
            $name = $byte,
        )* }

        impl Opcode {
            /// Every opcode, in byte order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name),*];

            /// The opcode of `byte`, or `None` for an unknown byte.
            pub fn from_byte(byte: u8) -> Option<Opcode> {
                match byte { $($byte => Some(Opcode::$name),)* _ => None }
            }

            /// Assembler mnemonic.
            pub fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$name => $mn,)* }
            }

            /// Bytes of immediate after the opcode (0, 1 or 4).
            pub fn imm_bytes(self) -> u32 {
                match self { $(Opcode::$name => $imm,)* }
            }

            /// Words popped (for `RANDSEL n`, the weights: `n`, given by the immediate).
            pub fn pops(self) -> u32 {
                match self { $(Opcode::$name => $pops,)* }
            }

            /// Words pushed.
            pub fn pushes(self) -> u32 {
                match self { $(Opcode::$name => $pushes,)* }
            }

            /// How it executes.
            pub fn class(self) -> Class {
                match self { $(Opcode::$name => $class,)* }
            }
        }
    };
}

const fn pipe(kind: PipeKind) -> Class {
    Class::Pipeline { kind, dir: false }
}

const fn pipe_dir(kind: PipeKind) -> Class {
    Class::Pipeline { kind, dir: true }
}

opcodes! {
    Nop = 0x00, "NOP", imm 0, pops 0, pushes 0, Class::Local;
    Push = 0x01, "PUSH", imm 4, pops 0, pushes 1, Class::Local;
    Load = 0x02, "LOAD", imm 1, pops 0, pushes 1, Class::Local;
    Store = 0x03, "STORE", imm 1, pops 1, pushes 0, Class::Local;
    Pop = 0x04, "POP", imm 0, pops 1, pushes 0, Class::Local;
    Dup = 0x05, "DUP", imm 0, pops 1, pushes 2, Class::Local;
    Swap = 0x06, "SWAP", imm 0, pops 2, pushes 2, Class::Local;
    Pick = 0x07, "PICK", imm 1, pops 0, pushes 1, Class::Local;
    Add = 0x10, "ADD", imm 0, pops 2, pushes 1, Class::Local;
    Sub = 0x11, "SUB", imm 0, pops 2, pushes 1, Class::Local;
    Mul = 0x12, "MUL", imm 0, pops 2, pushes 1, Class::Local;
    Lerp = 0x13, "LERP", imm 0, pops 3, pushes 1, Class::Local;
    Min = 0x14, "MIN", imm 0, pops 2, pushes 1, Class::Local;
    Max = 0x15, "MAX", imm 0, pops 2, pushes 1, Class::Local;
    Clamp = 0x16, "CLAMP", imm 0, pops 3, pushes 1, Class::Local;
    SelLt = 0x17, "SELLT", imm 0, pops 4, pushes 1, Class::Local;
    Neg = 0x18, "NEG", imm 0, pops 1, pushes 1, Class::Local;
    Abs = 0x19, "ABS", imm 0, pops 1, pushes 1, Class::Local;
    RayStop = 0x20, "RAYSTOP", imm 0, pops 0, pushes 0, Class::Control;
    RandSel = 0x21, "RANDSEL", imm 1, pops 0, pushes 0, Class::Control;
    Case = 0x22, "CASE", imm 0, pops 0, pushes 0, Class::Control;
    EndCase = 0x23, "ENDCASE", imm 0, pops 0, pushes 0, Class::Control;
    TexA = 0x30, "TEX_A", imm 0, pops 6, pushes 3, pipe(PipeKind::AstcA);
    TexRead = 0x31, "TEX_READ", imm 0, pops 0, pushes 0, Class::TexRead;
    TexDp = 0x32, "TEX_DP", imm 1, pops 4, pushes 4, pipe(PipeKind::AstcDp);
    Ggx = 0x40, "GGX", imm 0, pops 10, pushes 1, pipe(PipeKind::Ggx);
    OrenNayar = 0x41, "OREN_NAYAR", imm 0, pops 10, pushes 1, pipe(PipeKind::OrenNayar);
    Schlick = 0x42, "SCHLICK", imm 0, pops 7, pushes 3, pipe(PipeKind::Schlick);
    Sheen = 0x43, "SHEEN", imm 0, pops 10, pushes 1, pipe(PipeKind::Sheen);
    Subsurface = 0x44, "SUBSURFACE", imm 0, pops 10, pushes 1, pipe(PipeKind::Subsurface);
    Cel = 0x45, "CEL", imm 0, pops 6, pushes 1, pipe(PipeKind::Cel);
    GgxDir = 0x50, "GGX_DIR", imm 0, pops 9, pushes 4, pipe_dir(PipeKind::Ggx);
    OrenNayarDir = 0x51, "OREN_NAYAR_DIR", imm 0, pops 5, pushes 4, pipe_dir(PipeKind::OrenNayar);
}

/// The largest number of words any pipeline request pops.
pub const MAX_PIPE_ARGS: u32 = 10;
/// The largest number of words any pipeline result pushes.
pub const MAX_PIPE_RESULTS: u32 = 4;

/// Why a ray left a core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The program executed RAYSTOP (finished, or a call-out to the SM: the SM tells them apart
    /// by the index, which points at the RAYSTOP).
    Done,
    /// Parked on an L1 miss (self-stop after MISS_THRESH cycles, or the scheduler's command);
    /// the index points at the instruction to re-execute.
    Parked,
    /// The program is bad; the ray returns instead of hanging.
    Error(RayError),
}

/// Error outcomes of a bad program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RayError {
    /// A byte that is no opcode.
    UnknownOpcode,
    /// An instruction popped more words than the stack held (or LOAD/STORE/PICK beyond it).
    StackUnderflow,
    /// A push beyond the stack depth.
    StackOverflow,
    /// RANDSEL with zero cases, CASE/ENDCASE out of place, or a case index beyond the program.
    BadControl,
}

impl RayError {
    /// Every error, in code order.
    pub const ALL: [RayError; 4] = [
        RayError::UnknownOpcode,
        RayError::StackUnderflow,
        RayError::StackOverflow,
        RayError::BadControl,
    ];

    /// Its name in reports and JSON keys (`unknown_opcode`, `stack_underflow`,
    /// `stack_overflow`, `bad_control`).
    pub fn name(self) -> &'static str {
        match self {
            RayError::UnknownOpcode => "unknown_opcode",
            RayError::StackUnderflow => "stack_underflow",
            RayError::StackOverflow => "stack_overflow",
            RayError::BadControl => "bad_control",
        }
    }
}

impl Reason {
    /// 3-bit code carried with a returned ray: 0 done, 1 parked, 4.. errors.
    pub fn code(self) -> u32 {
        match self {
            Reason::Done => 0,
            Reason::Parked => 1,
            Reason::Error(RayError::UnknownOpcode) => 4,
            Reason::Error(RayError::StackUnderflow) => 5,
            Reason::Error(RayError::StackOverflow) => 6,
            Reason::Error(RayError::BadControl) => 7,
        }
    }

    /// The reason of a 3-bit code.
    pub fn from_code(code: u32) -> Option<Reason> {
        Some(match code {
            0 => Reason::Done,
            1 => Reason::Parked,
            4 => Reason::Error(RayError::UnknownOpcode),
            5 => Reason::Error(RayError::StackUnderflow),
            6 => Reason::Error(RayError::StackOverflow),
            7 => Reason::Error(RayError::BadControl),
            _ => return None,
        })
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Done => write!(f, "done"),
            Reason::Parked => write!(f, "parked"),
            Reason::Error(e) => write!(f, "error: {e:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trips_and_is_consistent() {
        for op in Opcode::ALL {
            assert_eq!(Opcode::from_byte(*op as u8), Some(*op));
            assert!(op.pops() <= MAX_PIPE_ARGS && op.pushes() <= MAX_PIPE_RESULTS.max(3) + 1);
            if let Class::Pipeline { .. } = op.class() {
                assert!(op.pops() <= MAX_PIPE_ARGS && op.pushes() <= MAX_PIPE_RESULTS);
            }
        }
        let known = (0..=255u8)
            .filter(|b| Opcode::from_byte(*b).is_some())
            .count();
        assert_eq!(known, Opcode::ALL.len());
        for code in 0..8 {
            if let Some(r) = Reason::from_code(code) {
                assert_eq!(r.code(), code);
            }
        }
    }
}
