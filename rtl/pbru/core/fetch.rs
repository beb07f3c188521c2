//! Instruction fetch and decode: the byte window at `pc` (within the held chunk, or across the
//! chunk boundary from the carried bytes into the next chunk), the opcode table as a lookup
//! table, and the program-position update after an instruction.

use rendergen_hdl::{cat, index_select, lut, name_lets, HwEnum, Module, Sig};
use rendergen_isa::{Class, Opcode};

/// Decode classes (`Decoded::class`, 2 bits).
#[derive(HwEnum, Clone, Copy, Debug, PartialEq)]
pub(super) enum InstrClass {
    /// Executed inside the core.
    Local,
    /// RAYSTOP, RANDSEL, CASE, ENDCASE.
    Control,
    /// A pipeline request.
    Pipe,
    /// TEX_READ.
    TexRead,
}

/// The instruction at a slot's `pc`.
pub(super) struct Decoded {
    /// The opcode byte.
    pub op: Sig,
    /// The immediate, zero-extended to 32 bits (0 without one).
    pub imm: Sig,
    /// Instruction length in bytes (1, 2 or 5), 3 bits.
    pub len: Sig,
    /// The byte is an opcode.
    pub known: Sig,
    /// Words popped (0 for RANDSEL, whose count is its immediate), 4 bits.
    pub pops: Sig,
    /// Words pushed, 3 bits.
    pub pushes: Sig,
    /// [`InstrClass`], 2 bits.
    pub class: Sig,
    /// The instruction continues in the next chunk, which is not held yet.
    pub need_next: Sig,
}

/// The table entry of `byte`: `known | imm_bytes<<1 | pops<<4 | pushes<<8 | class<<11`.
#[name_lets]
fn table_entry(byte: u8) -> u64 {
    let Some(op) = Opcode::from_byte(byte) else {
        return 0;
    };
    let class = match op.class() {
        Class::Local => InstrClass::Local,
        Class::Control => InstrClass::Control,
        Class::Pipeline { .. } => InstrClass::Pipe,
        Class::TexRead => InstrClass::TexRead,
    }
    .index() as u64;
    1 | (op.imm_bytes() as u64) << 1
        | (op.pops() as u64) << 4
        | (op.pushes() as u64) << 8
        | class << 11
}

/// Decodes the instruction at `pc` of a slot holding `chunk` (and `carry`, the last four bytes
/// of `pc`'s chunk, while `straddle`).
#[track_caller]
#[name_lets]
pub(super) fn decode(m: &mut Module, chunk: Sig, carry: Sig, straddle: Sig, pc: Sig) -> Decoded {
    let offset = pc.bits(4, 0);
    // Within the chunk: bytes offset.. (zeros past the end).
    let padded = cat(&[m.lit(0, 32), chunk]);
    let inside: Vec<Sig> = (0..32).map(|k| padded.slice(8 * k, 40)).collect();
    let window_inside = index_select(offset, &inside);
    // Across the boundary: the carried bytes 28..31, then the next chunk.
    let joined = cat(&[chunk, carry]);
    let across: Vec<Sig> = (0..4).map(|k| joined.slice(8 * k, 40)).collect();
    let window_across = index_select(offset.bits(1, 0), &across);
    let window = straddle.mux(window_across, window_inside).named("window");
    let op = window.bits(7, 0);
    let table: Vec<u64> = (0..=255u8).map(table_entry).collect();
    let entry = lut(op, &table, 13).named("entry");
    let imm_bytes = entry.bits(3, 1);
    let imm = imm_bytes.eq(4).mux(
        window.bits(39, 8),
        imm_bytes
            .eq(1)
            .mux(window.bits(15, 8).zext(32), m.lit(0, 32)),
    );
    let len = imm_bytes + 1;
    let end = offset.zext(6) + len.zext(6);
    Decoded {
        op,
        imm,
        len,
        known: entry.bit(0),
        pops: entry.bits(7, 4),
        pushes: entry.bits(10, 8),
        class: entry.bits(12, 11),
        need_next: !straddle & end.gt(32),
    }
}

/// After the instruction at `pc` of `len` bytes: the next `pc`, and whether its chunk must be
/// fetched (the instruction ended exactly at the end of the held chunk).
#[track_caller]
#[name_lets]
pub(super) fn advance(pc: Sig, straddle: Sig, len: Sig) -> (Sig, Sig) {
    let next = pc + len.zext(32);
    let end = pc.bits(4, 0).zext(6) + len.zext(6);
    (next, !straddle & end.eq(32))
}
