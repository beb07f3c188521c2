//! The assembler: shader assembly text to 64-bit instruction words (syntax in `ISA.md`).
//!
//! One instruction per line, operands separated by commas, `;` starts a comment. Registers are
//! `r0` … `r255` (or fewer: [`assemble_for`]); immediates are read as the opcode's
//! [`ImmKind`] says. `.word w, …` emits raw 64-bit words. The control-flow targets are not
//! written: [`resolve`] computes them from the nesting, which it checks. Every bad line is
//! reported with its line (and the column of the bad operand).
//!
//! ```
//! use rendergen_shader_isa::{asm::assemble, Inst, Opcode};
//! let words = assemble("movi r0, 1.5 ; one and a half\nfadd r1, r0, r0\nend").unwrap();
//! assert_eq!(words[0], 0x62_00_00_00_3FC0_0000);
//! assert_eq!(Inst::decode(words[1]).unwrap().op, Opcode::Fadd);
//! let e = assemble("nop\nfadd r1, r300, r2\nfad r1, r2, r3").unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     "line 2, column 10: register r300 out of range r0..=r255\n\
//!      line 3: unknown mnemonic `fad`; did you mean `fadd`?"
//! );
//! ```

use crate::{Format, ImmKind, Inst, Opcode, MAX_DEPTH};
use std::fmt;

/// One assembly error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based source line.
    pub line: usize,
    /// 1-based column of the offending operand, where known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "line {}, column {c}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
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
            let s = if more == 1 { "" } else { "s" };
            write!(f, "\n… and {more} more error{s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}

/// A parsed line: an instruction (target still zero) or raw words.
enum Item {
    Inst(Inst),
    Words(Vec<u64>),
}

/// Assembles `src` for a core with 256 registers per lane (the encoding's limit).
pub fn assemble(src: &str) -> Result<Vec<u64>, AsmErrors> {
    assemble_for(src, 256)
}

/// Assembles `src` for a core with `regs` registers per lane (1..=256): a register at or above
/// `regs` is an error. On failure, every line's error.
pub fn assemble_for(src: &str, regs: usize) -> Result<Vec<u64>, AsmErrors> {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in src.lines().enumerate() {
        let code = raw.split(';').next().unwrap_or("");
        if code.trim().is_empty() {
            continue;
        }
        match line(code, regs) {
            Ok(item) => items.push((item, i + 1)),
            Err((column, message)) => errors.push(AsmError {
                line: i + 1,
                column,
                message,
            }),
        }
    }
    // Control flow: the nesting of the instructions (raw words take no part), by word index.
    let mut pcs = Vec::new();
    let mut controls = Vec::new();
    let mut pc = 0u32;
    for (item, line) in &items {
        pcs.push(pc);
        match item {
            Item::Inst(inst) => {
                controls.push(Control {
                    op: Some(inst.op),
                    pc,
                    line: *line,
                });
                pc += 1;
            }
            Item::Words(w) => pc += w.len() as u32,
        }
    }
    let (targets, flow_errors) = resolve(&controls);
    errors.extend(flow_errors.into_iter().map(|(i, message)| AsmError {
        line: controls[i].line,
        column: None,
        message,
    }));
    if !errors.is_empty() {
        errors.sort_by_key(|e| (e.line, e.column));
        return Err(AsmErrors(errors));
    }
    let mut out = Vec::new();
    let mut k = 0;
    for (item, _) in items {
        match item {
            Item::Inst(mut inst) => {
                if let Some(t) = targets[k] {
                    inst.imm = t;
                }
                k += 1;
                out.push(inst.encode());
            }
            Item::Words(w) => out.extend(w),
        }
    }
    Ok(out)
}

/// One instruction as [`resolve`] sees it.
#[derive(Clone, Copy, Debug)]
pub struct Control {
    /// The opcode (`None`: a word that takes no part in the nesting).
    pub op: Option<Opcode>,
    /// Its pc (word index).
    pub pc: u32,
    /// Its source line (for messages).
    pub line: usize,
}

enum Frame {
    If { at: usize, els: Option<usize> },
    Loop { at: usize, exits: Vec<usize> },
}

/// The targets of the control-flow instructions of a program and the nesting errors (index in
/// `prog`, message).
///
/// Targets (the imm field): `if` → its `else` if any, else its `endif`; `else` → its `endif`;
/// `loop` → its `endloop`; `endloop` → its `loop`; `brk`/`cont` → the `endloop` of the
/// innermost loop. Other instructions get `None`. Checked: every opener closed by the right
/// closer, `else` once per `if`, `brk`/`cont` inside a loop, nesting at most [`MAX_DEPTH`],
/// `end` outside every block.
pub fn resolve(prog: &[Control]) -> (Vec<Option<u32>>, Vec<(usize, String)>) {
    let mut targets = vec![None; prog.len()];
    let mut errors = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let open = |stack: &[Frame]| -> String {
        match stack.last() {
            Some(Frame::If { at, .. }) => format!(" (the `if` of line {} is open)", prog[*at].line),
            Some(Frame::Loop { at, .. }) => {
                format!(" (the `loop` of line {} is open)", prog[*at].line)
            }
            None => String::new(),
        }
    };
    for (i, c) in prog.iter().enumerate() {
        let Some(op) = c.op else { continue };
        match op {
            Opcode::If | Opcode::Loop => {
                if stack.len() == MAX_DEPTH {
                    errors.push((i, format!("blocks nested deeper than {MAX_DEPTH}")));
                }
                stack.push(match op {
                    Opcode::If => Frame::If { at: i, els: None },
                    _ => Frame::Loop {
                        at: i,
                        exits: Vec::new(),
                    },
                });
            }
            Opcode::Else => match stack.last_mut() {
                Some(Frame::If {
                    els: els @ None, ..
                }) => *els = Some(i),
                Some(Frame::If { els: Some(e), .. }) => {
                    let line = prog[*e].line;
                    errors.push((i, format!("second `else` (the first is on line {line})")))
                }
                _ => errors.push((i, format!("`else` without `if`{}", open(&stack)))),
            },
            Opcode::Endif => match stack.last() {
                Some(&Frame::If { at, els }) => {
                    stack.pop();
                    let end = prog[i].pc;
                    targets[at] = Some(els.map_or(end, |e| prog[e].pc));
                    if let Some(e) = els {
                        targets[e] = Some(end);
                    }
                }
                _ => errors.push((i, format!("`endif` without `if`{}", open(&stack)))),
            },
            Opcode::Brk | Opcode::Cont => {
                let inner = stack.iter_mut().rev().find_map(|f| match f {
                    Frame::Loop { exits, .. } => Some(exits),
                    _ => None,
                });
                match inner {
                    Some(exits) => exits.push(i),
                    None => errors.push((i, format!("`{}` outside a loop", op.mnemonic()))),
                }
            }
            Opcode::Endloop => match stack.last() {
                Some(Frame::Loop { .. }) => {
                    let Some(Frame::Loop { at, exits }) = stack.pop() else {
                        unreachable!()
                    };
                    let end = prog[i].pc;
                    targets[at] = Some(end);
                    targets[i] = Some(prog[at].pc);
                    for e in exits {
                        targets[e] = Some(end);
                    }
                }
                _ => errors.push((i, format!("`endloop` without `loop`{}", open(&stack)))),
            },
            Opcode::End if !stack.is_empty() => {
                errors.push((i, format!("`end` inside a block{}", open(&stack))))
            }
            _ => {}
        }
    }
    for f in stack {
        match f {
            Frame::If { at, .. } => errors.push((at, "`if` without `endif`".into())),
            Frame::Loop { at, .. } => errors.push((at, "`loop` without `endloop`".into())),
        }
    }
    errors.sort_by_key(|e| e.0);
    (targets, errors)
}

type LineError = (Option<usize>, String);

/// Parses one non-empty line (comment stripped); errors carry a 1-based column.
fn line(code: &str, regs: usize) -> Result<Item, LineError> {
    let start = code.len() - code.trim_start().len();
    let text = code.trim();
    let (head, rest_at) = match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], start + i),
        None => (text, code.len()),
    };
    // Operands with their 1-based columns.
    let rest = &code[rest_at..];
    let mut operands: Vec<(&str, usize)> = Vec::new();
    if !rest.trim().is_empty() {
        let mut at = rest_at;
        for part in rest.split(',') {
            let lead = part.len() - part.trim_start().len();
            operands.push((part.trim(), at + lead + 1));
            at += part.len() + 1;
        }
    }
    if let Some((_, col)) = operands.iter().find(|(s, _)| s.is_empty()) {
        return Err((Some(*col), "empty operand".into()));
    }
    if head.eq_ignore_ascii_case(".word") {
        if operands.is_empty() {
            return Err((None, "`.word` needs a comma-separated list of words".into()));
        }
        let words = operands
            .iter()
            .map(|&(s, col)| word64(s).map_err(|e| (Some(col), e)));
        return Ok(Item::Words(words.collect::<Result<_, _>>()?));
    }
    let lower = head.to_ascii_lowercase();
    let op = (Opcode::ALL.iter().copied())
        .find(|o| o.mnemonic() == lower)
        .ok_or_else(|| (None, unknown_mnemonic(head)))?;
    let kinds = operand_kinds(op.format());
    if operands.len() != kinds.len() {
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        let want = match names.is_empty() {
            true => "no operands".to_string(),
            false => names.join(", "),
        };
        return Err((
            None,
            format!(
                "`{}` takes {want}; got {} operand{}",
                op.mnemonic(),
                operands.len(),
                if operands.len() == 1 { "" } else { "s" }
            ),
        ));
    }
    let mut inst = Inst::new(op);
    for (&kind, &(s, col)) in kinds.iter().zip(&operands) {
        let at = |e: String| (Some(col), e);
        match kind {
            Operand::Reg(field) => {
                let r = register(s, regs).map_err(at)?;
                match field {
                    'd' => inst.d = r,
                    'a' => inst.a = r,
                    'b' => inst.b = r,
                    _ => inst.c = r,
                }
            }
            Operand::Imm => inst.imm = immediate(s, op.imm_kind()).map_err(at)?,
            Operand::Count => {
                let n = immediate(s, ImmKind::Int).map_err(at)?;
                if !(1..=4).contains(&n) {
                    return Err(at(format!("export count `{s}` out of range 1..=4")));
                }
                inst.b = n as u8;
            }
        }
    }
    // Register ranges (tex writes d..d+3 and reads a, a+1; export reads a..a+n−1).
    for (first, n) in inst.sources().into_iter().chain(inst.dest()) {
        if n > 1 && first as usize + n > regs {
            return Err((
                None,
                format!(
                    "registers r{first}..=r{} out of range r0..=r{}",
                    first as usize + n - 1,
                    regs - 1
                ),
            ));
        }
    }
    Ok(Item::Inst(inst))
}

/// An assembly operand slot.
#[derive(Clone, Copy, Debug)]
enum Operand {
    /// A register in field `d`, `a`, `b` or `c`.
    Reg(char),
    /// The 32-bit immediate.
    Imm,
    /// The export count (field `b`).
    Count,
}

impl Operand {
    fn name(self) -> &'static str {
        match self {
            Operand::Reg('d') => "rd",
            Operand::Reg('a') => "ra",
            Operand::Reg('b') => "rb",
            Operand::Reg(_) => "rc",
            Operand::Imm => "imm",
            Operand::Count => "n",
        }
    }
}

/// The operands of a format, in assembly order.
fn operand_kinds(format: Format) -> &'static [Operand] {
    use Operand::*;
    match format {
        Format::None | Format::T => &[],
        Format::D => &[Reg('d')],
        Format::Da => &[Reg('d'), Reg('a')],
        Format::Dab => &[Reg('d'), Reg('a'), Reg('b')],
        Format::Dabc => &[Reg('d'), Reg('a'), Reg('b'), Reg('c')],
        Format::Dai => &[Reg('d'), Reg('a'), Imm],
        Format::Di => &[Reg('d'), Imm],
        Format::Abi => &[Reg('a'), Reg('b'), Imm],
        Format::Dabi => &[Reg('d'), Reg('a'), Reg('b'), Imm],
        Format::Export => &[Imm, Reg('a'), Count],
        Format::At => &[Reg('a')],
    }
}

/// The operand names of `op` in assembly order (`rd, ra, imm`), for the documentation.
pub fn operand_names(op: Opcode) -> String {
    let kinds = operand_kinds(op.format());
    let names: Vec<&str> = kinds
        .iter()
        .map(|k| match (op, k) {
            (Opcode::Export, Operand::Imm) => "loc",
            _ => k.name(),
        })
        .collect();
    names.join(", ")
}

fn register(s: &str, regs: usize) -> Result<u8, String> {
    let digits = s
        .strip_prefix(['r', 'R'])
        .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
        .ok_or_else(|| format!("expected a register (r0 … r{}), got `{s}`", regs - 1))?;
    match digits.parse::<usize>() {
        Ok(n) if n < regs && n < 256 => Ok(n as u8),
        _ => Err(format!("register {s} out of range r0..=r{}", regs - 1)),
    }
}

fn unknown_mnemonic(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let best = (Opcode::ALL.iter())
        .map(|o| {
            (
                rendergen_isa::asm::edit_distance(&lower, o.mnemonic()),
                o.mnemonic(),
            )
        })
        .min();
    match best {
        Some((d, m)) if d <= 2 => format!("unknown mnemonic `{name}`; did you mean `{m}`?"),
        _ => format!("unknown mnemonic `{name}`"),
    }
}

/// Strips a `0x` prefix.
fn hex_body(s: &str) -> Option<&str> {
    s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))
}

fn digits_only(d: &str, radix: u32) -> bool {
    d.starts_with(|c: char| c.is_digit(radix)) && d.chars().all(|c| c == '_' || c.is_digit(radix))
}

/// An integer: decimal (`-3`, `4_000`) or hexadecimal (`0xFF`), with an optional sign.
pub fn integer(s: &str) -> Result<i128, String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (radix, digits) = match hex_body(body) {
        Some(h) => (16, h),
        None => (10, body),
    };
    if !digits_only(digits, radix) || digits.len() > 40 {
        return Err(format!("bad number `{s}`"));
    }
    let mag = i128::from_str_radix(&digits.replace('_', ""), radix)
        .map_err(|_| format!("number `{s}` out of range"))?;
    Ok(if neg { -mag } else { mag })
}

/// Whether `s` is written as a float (a decimal with `.` or an exponent, or inf/nan).
fn is_float_literal(s: &str) -> bool {
    let body = s.trim_start_matches(['-', '+']);
    hex_body(body).is_none()
        && (body.contains(['.', 'e', 'E'])
            || body.eq_ignore_ascii_case("inf")
            || body.eq_ignore_ascii_case("nan"))
}

/// An f32 decimal read by Rust's correctly rounded parser (`1.5`, `-2`, `1e-3`, `inf`, `nan`).
pub fn float(s: &str) -> Result<u32, String> {
    let ok = s
        .trim_start_matches(['-', '+'])
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '+' || c == '-');
    match s.parse::<f32>() {
        Ok(v) if ok => Ok(v.to_bits()),
        _ => Err(format!("bad number `{s}`")),
    }
}

/// A 32-bit immediate of `kind` (see [`ImmKind`]).
pub fn immediate(s: &str, kind: ImmKind) -> Result<u32, String> {
    let int32 = |s: &str| -> Result<u32, String> {
        let v = integer(s)?;
        match (i32::MIN as i128..=u32::MAX as i128).contains(&v) {
            true => Ok(v as u32),
            false => Err(format!(
                "immediate `{s}` out of range -2147483648..=4294967295"
            )),
        }
    };
    let hex = hex_body(s.trim_start_matches(['-', '+'])).is_some();
    match kind {
        ImmKind::Float if hex => int32(s),
        ImmKind::Float => float(s),
        ImmKind::Word if is_float_literal(s) => float(s),
        ImmKind::Int if is_float_literal(s) => Err(format!("`{s}` is not an integer")),
        _ => int32(s),
    }
}

/// A `.word` value: 0 ..= 2⁶⁴−1, decimal or hexadecimal.
fn word64(s: &str) -> Result<u64, String> {
    let v = integer(s)?;
    u64::try_from(v).map_err(|_| format!("word `{s}` out of range 0..=0xFFFFFFFFFFFFFFFF"))
}

#[cfg(test)]
mod tests;
