//! The disassembler: instruction words to assembly text that assembles back to the same words.
//!
//! Each line is an instruction, then a comment with the pc, the word and remarks (an f32
//! immediate's value, a control-flow target). A word that is no instruction prints as `.word`
//! (remark `unknown opcode`, `reserved bits`, …; a `tex` or `export` whose register range passes
//! r255 is one too), and so does a control-flow instruction whose
//! target is not the one [`resolve`] computes for the printed program
//! (remark `bad target` or the nesting error), so the text always reassembles:
//!
//! ```text
//! movi r0, 0x3FC00000          ; 0000: 620000003fc00000  1.5
//! if r0                        ; 0001: 0800000000000003  → 3
//! .word 0xFF00000000000000     ; 0002: ff00000000000000  unknown opcode
//! endif                        ; 0003: 0a00000000000000
//! ```
//!
//! ```
//! use rendergen_shader_isa::{asm::assemble, disasm::disassemble};
//! let words = assemble("movi r0, 1.5\nif r0\n.word 0xFF00000000000000\nendif\nend").unwrap();
//! let text = disassemble(&words);
//! assert!(text.lines().nth(2).unwrap().contains("unknown opcode"));
//! assert_eq!(assemble(&text).unwrap(), words);
//! ```

use crate::asm::{resolve, Control};
use crate::{DecodeError, Format, ImmKind, Inst};
use std::fmt::Write;

/// How one word prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// As an instruction.
    Inst(Inst),
    /// As `.word`, with the reason.
    Word(String),
}

/// Decides how each word prints: instructions, or `.word` for words that do not decode and for
/// control-flow instructions the nesting of the printed program does not give the same target
/// (repeated until the printed program's own nesting is consistent).
pub fn classify(words: &[u64]) -> Vec<Line> {
    let mut lines: Vec<Line> = (words.iter())
        .map(|&w| match Inst::decode(w) {
            Ok(i) if i.regs_needed() > 256 => Line::Word("registers beyond r255".into()),
            Ok(i) => Line::Inst(i),
            Err(DecodeError::UnknownOpcode) => Line::Word("unknown opcode".into()),
            Err(DecodeError::ReservedBits) => Line::Word("reserved bits".into()),
            Err(DecodeError::BadExportCount) => Line::Word("export count not 1..=4".into()),
        })
        .collect();
    loop {
        let controls: Vec<Control> = (lines.iter().enumerate())
            .map(|(pc, l)| Control {
                op: match l {
                    Line::Inst(i) => Some(i.op),
                    Line::Word(_) => None,
                },
                pc: pc as u32,
                line: pc,
            })
            .collect();
        let (targets, errors) = resolve(&controls);
        let mut demote: Vec<(usize, String)> = errors;
        for (pc, l) in lines.iter().enumerate() {
            if let Line::Inst(i) = l {
                let fmt = i.op.format();
                if fmt.has_target() && targets[pc].is_some_and(|t| t != i.imm) {
                    demote.push((pc, format!("{} with a bad target", i.op.mnemonic())));
                }
            }
        }
        if demote.is_empty() {
            return lines;
        }
        for (pc, why) in demote {
            lines[pc] = Line::Word(why);
        }
    }
}

/// The assembly text of an instruction (targets are not written: the assembler computes them).
pub fn format_inst(i: &Inst) -> String {
    let m = i.op.mnemonic();
    let imm = || match i.op.imm_kind() {
        ImmKind::Int => format!("{}", i.imm as i32),
        _ => format!("0x{:08X}", i.imm),
    };
    let (d, a, b, c) = (i.d, i.a, i.b, i.c);
    match i.op.format() {
        Format::None | Format::T => m.to_string(),
        Format::D => format!("{m} r{d}"),
        Format::Da => format!("{m} r{d}, r{a}"),
        Format::Dab => format!("{m} r{d}, r{a}, r{b}"),
        Format::Dabc => format!("{m} r{d}, r{a}, r{b}, r{c}"),
        Format::Dai => format!("{m} r{d}, r{a}, {}", imm()),
        Format::Di => format!("{m} r{d}, {}", imm()),
        Format::Abi => format!("{m} r{a}, r{b}, {}", imm()),
        Format::Dabi => format!("{m} r{d}, r{a}, r{b}, {}", imm()),
        Format::Export => format!("{m} {}, r{a}, {b}", imm()),
        Format::At => format!("{m} r{a}"),
    }
}

/// The remark of an instruction: an f32 immediate's value, a target.
fn remark(i: &Inst) -> String {
    match i.op.imm_kind() {
        _ if i.op.format().has_target() => format!("→ {}", i.imm),
        ImmKind::Float => format!("{:?}", f32::from_bits(i.imm)),
        ImmKind::Word => format!("{} {:?}", i.imm as i32, f32::from_bits(i.imm)),
        _ => String::new(),
    }
}

/// Disassembles a program: one line per word (see the module documentation); the text
/// assembles back to `words`.
pub fn disassemble(words: &[u64]) -> String {
    let mut s = String::new();
    for (pc, (line, w)) in classify(words).iter().zip(words).enumerate() {
        let (text, note) = match line {
            Line::Inst(i) => (format_inst(i), remark(i)),
            Line::Word(why) => (format!(".word 0x{w:016X}"), why.clone()),
        };
        let l = format!("{text:<28} ; {pc:04}: {w:016x}  {note}");
        let _ = writeln!(s, "{}", l.trim_end());
    }
    s
}
