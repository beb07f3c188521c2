//! The disassembler: bytecode to assembly text that assembles back to the same bytes.
//!
//! Each line is an instruction (or a `.byte` directive for a byte that is no opcode, and for an
//! instruction cut short by the end of the input), then a comment with the address, the bytes,
//! and remarks (`unknown opcode`, `truncated`, the Q16.16 value of a `PUSH`):
//!
//! ```text
//! PUSH 0x00018000         ; 0000: 01 00 80 01 00  1.5q
//! .byte 0xFF              ; 0005: ff  unknown opcode
//! RAYSTOP                 ; 0006: 20
//! ```
//!
//! ```
//! use rendergen_isa::{asm::assemble, disasm::disassemble};
//! let bytes = [0x01, 0x00, 0x80, 0x01, 0x00, 0xFF, 0x20];
//! let text = disassemble(&bytes, 0);
//! assert!(text.lines().nth(1).unwrap().contains("unknown opcode"));
//! assert_eq!(assemble(&text).unwrap(), bytes);
//! ```

use crate::asm::format_q16;
use crate::Opcode;
use std::fmt::Write;

/// One decoded instruction (or undecodable byte) of a byte sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Address of its first byte.
    pub addr: u32,
    /// The opcode, `None` for an unknown byte or a truncated instruction.
    pub op: Option<Opcode>,
    /// The immediate (zero-extended), if the opcode has one.
    pub imm: Option<u32>,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Decodes `bytes` (loaded at address `base`) into instructions, in order.
pub fn decode_all(bytes: &[u8], base: u32) -> Vec<Decoded> {
    decode_iter(bytes, base).collect()
}

/// [`decode_all`] one instruction at a time (no list of the whole input).
pub fn decode_iter(bytes: &[u8], base: u32) -> impl Iterator<Item = Decoded> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= bytes.len() {
            return None;
        }
        let addr = base.wrapping_add(i as u32);
        let op = Opcode::from_byte(bytes[i]);
        let len = 1 + op.map_or(0, |o| o.imm_bytes() as usize);
        if i + len > bytes.len() {
            let rest = bytes[i..].to_vec();
            i = bytes.len();
            return Some(Decoded {
                addr,
                op: None,
                imm: None,
                bytes: rest,
            });
        }
        let imm = (len > 1).then(|| {
            let mut b = [0u8; 4];
            b[..len - 1].copy_from_slice(&bytes[i + 1..i + len]);
            u32::from_le_bytes(b)
        });
        let d = Decoded {
            addr,
            op,
            imm,
            bytes: bytes[i..i + len].to_vec(),
        };
        i += len;
        Some(d)
    })
}

/// Disassembles `bytes` loaded at address `base`: one line per instruction (see the module
/// documentation); the text assembles back to `bytes`.
pub fn disassemble(bytes: &[u8], base: u32) -> String {
    let mut s = Vec::new();
    disassemble_to(bytes, base, &mut s).expect("writing to memory");
    String::from_utf8(s).expect("ASCII text")
}

/// [`disassemble`] written line by line to `out` (memory stays proportional to one line).
pub fn disassemble_to(
    bytes: &[u8],
    base: u32,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let mut text = String::new();
    for d in decode_iter(bytes, base) {
        text.clear();
        let hex: Vec<String> = d.bytes.iter().map(|b| format!("{b:02x}")).collect();
        let (ins, remark) = match (d.op, d.imm) {
            (Some(op), None) => (op.mnemonic().to_string(), String::new()),
            (Some(op), Some(v)) if op.imm_bytes() == 4 => {
                (format!("{} 0x{v:08X}", op.mnemonic()), format_q16(v as i32))
            }
            (Some(op), Some(v)) => (format!("{} {v}", op.mnemonic()), String::new()),
            (None, _) => {
                let list: Vec<String> = d.bytes.iter().map(|b| format!("0x{b:02X}")).collect();
                let remark = match Opcode::from_byte(d.bytes[0]) {
                    Some(op) => format!("truncated {}", op.mnemonic()),
                    None => "unknown opcode".to_string(),
                };
                (format!(".byte {}", list.join(", ")), remark)
            }
        };
        let _ = write!(
            text,
            "{ins:<23} ; {:04x}: {}  {remark}",
            d.addr,
            hex.join(" ")
        );
        writeln!(out, "{}", text.trim_end())?;
    }
    Ok(())
}
