//! The assembler: PBRU assembly text to bytecode (syntax in `rtl/isa/ISA.md`).
//!
//! One instruction per line: a mnemonic (any case) and at most one operand. `;` starts a comment.
//! Numbers are decimal (`-3`), hexadecimal (`0x1F`) or Q16.16 literals (`1.5q`, `-0.25q`,
//! rounded to the nearest 1/65536, ties away from zero). Directives: `.byte a, b, …` (raw bytes,
//! each 0..=255 or −128..=−1) and `.word a, b, …` (32-bit little-endian words), so tests can
//! build programs the assembler would otherwise refuse. Every error names its line.
//!
//! ```
//! use rendergen_isa::asm::assemble;
//! assert_eq!(assemble("PUSH 1.5q ; 1.5\nRAYSTOP").unwrap(), [0x01, 0x00, 0x80, 0x01, 0x00, 0x20]);
//! let e = assemble("NOP\nADDD").unwrap_err();
//! assert_eq!(e.to_string(), "line 2: unknown mnemonic `ADDD`; did you mean `ADD`?");
//! ```

use crate::Opcode;
use std::fmt;

/// One assembly error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based source line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Every error of a source text, in line order (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmErrors(pub Vec<AsmError>);

/// Errors [`AsmErrors`] prints one by one; the rest are counted on one last line.
pub const ERRORS_SHOWN: usize = 50;

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().take(ERRORS_SHOWN).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.0.len() > ERRORS_SHOWN {
            let more = self.0.len() - ERRORS_SHOWN;
            write!(
                f,
                "\n… and {more} more error{}",
                if more == 1 { "" } else { "s" }
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// Assembles `src`; on failure, every line's error.
pub fn assemble(src: &str) -> Result<Vec<u8>, AsmErrors> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in src.lines().enumerate() {
        let text = raw.split(';').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        if let Err(message) = line(text, &mut out) {
            errors.push(AsmError {
                line: i + 1,
                message,
            });
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(AsmErrors(errors))
    }
}

/// Assembles one non-empty line (comment stripped) onto `out`.
fn line(text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let (head, rest) = match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], text[i..].trim()),
        None => (text, ""),
    };
    let name = head.to_ascii_uppercase();
    if name == ".BYTE" || name == ".WORD" {
        let bytes = if name == ".BYTE" { 1 } else { 4 };
        return data(rest, bytes, out);
    }
    let op = opcode_named(&name).ok_or_else(|| unknown_mnemonic(head))?;
    let imm = op.imm_bytes();
    let operands: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split([',', ' ', '\t'])
            .filter(|s| !s.is_empty())
            .collect()
    };
    match (imm, operands.len()) {
        (0, 0) => out.push(op as u8),
        (0, _) => return Err(format!("`{}` takes no operand", op.mnemonic())),
        (_, 0) => {
            return Err(format!(
                "`{}` needs an operand ({} B immediate)",
                op.mnemonic(),
                imm
            ))
        }
        (_, 1) => {
            let v = immediate(operands[0], imm)
                .map_err(|e| format!("`{}` operand: {e}", op.mnemonic()))?;
            out.push(op as u8);
            out.extend_from_slice(&v.to_le_bytes()[..imm as usize]);
        }
        (_, n) => return Err(format!("`{}` takes one operand, got {n}", op.mnemonic())),
    }
    Ok(())
}

/// `.byte`/`.word` operands.
fn data(rest: &str, bytes: u32, out: &mut Vec<u8>) -> Result<(), String> {
    let items: Vec<&str> = rest.split(',').map(str::trim).collect();
    if rest.is_empty() || items.iter().any(|s| s.is_empty()) {
        return Err("directive needs a comma-separated list of values".into());
    }
    for s in items {
        let v = immediate(s, bytes)?;
        out.extend_from_slice(&v.to_le_bytes()[..bytes as usize]);
    }
    Ok(())
}

/// The opcode whose mnemonic is `upper` (already upper-case).
fn opcode_named(upper: &str) -> Option<Opcode> {
    Opcode::ALL.iter().copied().find(|o| o.mnemonic() == upper)
}

fn unknown_mnemonic(name: &str) -> String {
    let upper = name.to_ascii_uppercase();
    let best = (Opcode::ALL.iter())
        .map(|o| (edit_distance(&upper, o.mnemonic()), o.mnemonic()))
        .min();
    match best {
        Some((d, m)) if d <= 2 => format!("unknown mnemonic `{name}`; did you mean `{m}`?"),
        _ => format!("unknown mnemonic `{name}`"),
    }
}

/// Levenshtein distance (also the shader assembler's "did you mean" suggestions).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// An immediate of `bytes` bytes: 1 B takes −128..=255, 4 B takes −2³¹..=2³²−1.
fn immediate(s: &str, bytes: u32) -> Result<u32, String> {
    let v = number(s)?;
    let (lo, hi) = match bytes {
        1 => (-128, 255),
        _ => (i32::MIN as i64, u32::MAX as i64),
    };
    if v < lo || v > hi {
        return Err(format!(
            "immediate `{s}` = {v} out of range {lo}..={hi} ({bytes} B)"
        ));
    }
    Ok(v as u32)
}

/// Parses a decimal, `0x` hexadecimal or Q16.16 (`…q`) number.
pub fn number(s: &str) -> Result<i64, String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    // Digits (and `_` separators after the first digit) only: Rust's parsers would also take a
    // second sign (`--3`, `0x-3`).
    let digits_only = |d: &str, radix: u32| {
        d.starts_with(|c: char| c.is_digit(radix))
            && d.chars().all(|c| c == '_' || c.is_digit(radix))
    };
    let mag: i64 = if let Some(q) = body.strip_suffix(['q', 'Q']) {
        return q16(q, neg).ok_or_else(|| format!("bad or out-of-range Q16.16 literal `{s}`"));
    } else if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if !digits_only(h, 16) {
            return Err(format!(
                "bad number `{s}` (hexadecimal digits expected after 0x)"
            ));
        }
        i64::from_str_radix(&h.replace('_', ""), 16)
            .map_err(|_| format!("number `{s}` out of range"))?
    } else {
        if !digits_only(body, 10) {
            return Err(format!("bad number `{s}`"));
        }
        (body.replace('_', ""))
            .parse()
            .map_err(|_| format!("number `{s}` out of range"))?
    };
    Ok(if neg { -mag } else { mag })
}

/// `digits` (like `1.5`) as Q16.16 bits, rounded to nearest (ties away from zero); `None` if
/// malformed or outside −32768.0..=32767.99998.
fn q16(digits: &str, neg: bool) -> Option<i64> {
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty()
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
        || int.len() > 6
        || frac.len() > 30
    {
        return None;
    }
    let int: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let scale = 10u128.pow(frac.len() as u32);
    let f: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    let frac_q = ((f << 17) / scale + 1) >> 1; // round half up of f·65536/scale
    let mag = (int << 16) + frac_q as i64;
    let v = if neg { -mag } else { mag };
    (i32::MIN as i64..=i32::MAX as i64)
        .contains(&v)
        .then_some(v)
}

/// Formats Q16.16 bits `v` exactly as a `q` literal (`1.5q`, `-0.25q`, `0.0000152587890625q`).
pub fn format_q16(v: i32) -> String {
    let mag = (v as i64).unsigned_abs();
    let (int, mut frac) = (mag >> 16, mag & 0xFFFF);
    let mut s = format!("{}{int}.", if v < 0 { "-" } else { "" });
    loop {
        frac *= 10;
        s.push(char::from(b'0' + (frac >> 16) as u8));
        frac &= 0xFFFF;
        if frac == 0 {
            break;
        }
    }
    s + "q"
}

#[cfg(test)]
mod tests;
