//! Verilog expressions for IR operations.
//!
//! Every operand is a declared signal of exactly its IR width, a sized literal, or an inlined
//! expression of exactly its IR width (see `names::inline_nodes`), and every expression is
//! assigned to a signal of exactly the node's width. IR operations take operands of the result's
//! width (shift amounts, selectors and comparisons aside, which Verilog sizes on their own), so
//! Verilog's context-determined widths never widen or truncate anything: `(a + b) >> 1` of 8-bit
//! signals into an 8-bit wire wraps exactly like the IR. Signed operations go through `$signed(...)`, and
//! extensions are written out as concatenations. Bit-selects of constants (illegal in Verilog)
//! are folded here.

use super::names::Names;
use rendergen_hdl::ir::{BinOp, ModuleDef, NodeId, Op, UnOp};
use rendergen_hdl::Bits;

/// `[w-1:0] ` for vectors, nothing for 1-bit signals.
pub(crate) fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// Bits `lo..lo+width` of `b`.
pub(crate) fn bits_slice(b: &Bits, lo: u32, width: u32) -> Bits {
    let mut words = vec![0u64; (width as usize).div_ceil(64)];
    for i in 0..width {
        if b.bit(lo + i) {
            words[(i / 64) as usize] |= 1 << (i % 64);
        }
    }
    Bits::from_words(&words, width)
}

/// `b` sign- or zero-extended to `width`.
pub(crate) fn bits_extend(b: &Bits, width: u32, signed: bool) -> Bits {
    let mut out = b.resized(width);
    if signed && b.bit(b.width() - 1) {
        let mut words = out.words().to_vec();
        for i in b.width()..width {
            words[(i / 64) as usize] |= 1 << (i % 64);
        }
        out = Bits::from_words(&words, width);
    }
    out
}

/// Prints expressions of one module.
pub(crate) struct Exprs<'a> {
    /// The module.
    pub def: &'a ModuleDef,
    /// Its names.
    pub names: &'a Names,
}

/// How a node's value is printed.
pub(crate) enum Body {
    /// `assign name = expr;`
    Assign(String),
    /// `always @*` with `case (index)`: the items (label, value) and the default value.
    Case {
        /// Selector.
        index: String,
        /// `(label, value)` pairs.
        items: Vec<(String, String)>,
        /// Value for every other index.
        default: String,
    },
}

impl Exprs<'_> {
    /// Reference to a node: its name, or a literal for constants.
    pub fn r(&self, id: NodeId) -> String {
        match &self.def.node(id).op {
            Op::Const(b) => b.to_verilog(),
            op if self.names.inline[id as usize] => match self.body(id) {
                Body::Assign(e)
                    if matches!(op, Op::Unary(..) | Op::Binary(..) | Op::Mux { .. }) =>
                {
                    format!("({e})")
                }
                Body::Assign(e) => e,
                Body::Case { .. } => unreachable!("case nodes are never inlined"),
            },
            _ => {
                let n = &self.names.node[id as usize];
                debug_assert!(!n.is_empty(), "node {id} has no name");
                n.clone()
            }
        }
    }

    fn width(&self, id: NodeId) -> u32 {
        self.def.node(id).width
    }

    /// The value of node `id` (a computed node).
    pub fn body(&self, id: NodeId) -> Body {
        let node = self.def.node(id);
        let w = node.width;
        let e = match &node.op {
            Op::Wire(Some(d)) => self.r(*d),
            Op::Unary(op @ (UnOp::RedAnd | UnOp::RedOr | UnOp::RedXor), a)
                if self.width(*a) > 64 =>
            {
                self.wide_reduction(*op, *a)
            }
            Op::Unary(op, a) => {
                let sym = match op {
                    UnOp::Not => "~",
                    UnOp::Neg => "-",
                    UnOp::RedAnd => "&",
                    UnOp::RedOr => "|",
                    UnOp::RedXor => "^",
                };
                format!("{sym}{}", self.r(*a))
            }
            Op::Binary(op, a, b) => self.binary(*op, *a, *b),
            Op::Mux {
                sel,
                on_true,
                on_false,
            } => format!(
                "{} ? {} : {}",
                self.r(*sel),
                self.r(*on_true),
                self.r(*on_false)
            ),
            Op::Concat(parts) => self.concat(parts),
            Op::Slice { a, lo } => self.slice(*a, *lo, w),
            Op::Extend { a, signed } => self.extend(*a, w, *signed),
            Op::Select {
                index,
                cases,
                default,
            } => {
                let iw = self.width(*index);
                let items = cases
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| iw >= 64 || (*i as u64) < (1u64 << iw))
                    .map(|(i, c)| (format!("{iw}'d{i}"), self.r(*c)))
                    .collect();
                return self.case(*index, items, self.r(*default));
            }
            Op::Lut { index, table } => {
                let iw = self.width(*index);
                let items = table
                    .iter()
                    .enumerate()
                    .filter(|(i, v)| (iw >= 64 || (*i as u64) < (1u64 << iw)) && v.hex() != "0")
                    .map(|(i, v)| (format!("{iw}'d{i}"), v.to_verilog()))
                    .collect();
                return self.case(*index, items, Bits::zero(w).to_verilog());
            }
            other => unreachable!("not a computed node: {other:?}"),
        };
        Body::Assign(e)
    }

    /// A reduction (`&`, `|` or `^`) of a value of more than 64 bits, as the same reduction of
    /// its 64-bit parts (most significant first). Verilator 5.006 at -O3 mis-handles wide
    /// reductions of a value it folds to the inverse of a zero extension (`~{zeros, x}`, wider
    /// than 64 bits, a `VlWide` in its C++), which it only sees after inlining, so the shape
    /// cannot be recognised here:
    /// * `^` crashed it ("Internal Error: V3EmitCFunc.h:1031: Reduction over single bit value
    ///   should have been folded"; seed 0xF022, design 1118: `x = ~in`, the parent driving
    ///   `in` with `{64'h0, b}`);
    /// * `|` and `&` gave wrong values (seed 0xF022, design 1160: `|(~{118'h0, {11'h0, x}})`
    ///   computed as 0 in some cycles; hand-written probes: `&(~{58'h0, x})` and, with the
    ///   NOT in a child module, `&`, `^` and `~|` of widths 65 to 200 wrong for some `x`).
    ///
    /// Split at 64 bits, every part is a plain `QData` reduction, which Verilator computes
    /// correctly; equality and ordered compares of the same operands were right in the same
    /// probes and are printed as they are. Regression cases in
    /// `fuzz::tests::emitter_bugs_found_by_the_fuzzer`. A constant operand is folded here.
    fn wide_reduction(&self, op: UnOp, a: NodeId) -> String {
        let w = self.width(a);
        let sym = match op {
            UnOp::RedAnd => "&",
            UnOp::RedOr => "|",
            UnOp::RedXor => "^",
            other => unreachable!("not a reduction: {other:?}"),
        };
        if let Op::Const(b) = &self.def.node(a).op {
            let ones: u32 = b.words().iter().map(|x| x.count_ones()).sum();
            let v = match op {
                UnOp::RedAnd => ones == w,
                UnOp::RedOr => ones > 0,
                _ => ones & 1 == 1,
            };
            return format!("1'h{}", u8::from(v));
        }
        let x = self.r(a);
        let parts: Vec<String> = (0..w.div_ceil(64))
            .rev()
            .map(|k| {
                let (lo, hi) = (64 * k, (64 * k + 63).min(w - 1));
                if lo == hi {
                    format!("{x}[{lo}]")
                } else {
                    format!("({sym}{x}[{hi}:{lo}])")
                }
            })
            .collect();
        parts.join(&format!(" {sym} "))
    }

    fn case(&self, index: NodeId, items: Vec<(String, String)>, default: String) -> Body {
        if items.is_empty() {
            return Body::Assign(default);
        }
        if let Op::Const(b) = &self.def.node(index).op {
            // A constant index chooses its item now (see `names::is_case`).
            let label = format!("{}'d{}", b.width(), b.to_u64());
            let chosen = items.into_iter().find(|(l, _)| *l == label);
            return Body::Assign(chosen.map_or(default, |(_, v)| v));
        }
        Body::Case {
            index: self.r(index),
            items,
            default,
        }
    }

    fn binary(&self, op: BinOp, a: NodeId, b: NodeId) -> String {
        // A value compared with itself is a constant. Printed as one: Verilator 5.006 at -O3
        // folds `$signed(x) <= $signed(x)` to 0 when `x` is constant-propagated (found by the
        // fuzzer, `fuzz::tests::emitter_bugs_found_by_the_fuzzer`).
        if a == b {
            match op {
                BinOp::Eq | BinOp::Le | BinOp::SLe => return "1'h1".into(),
                BinOp::Ne | BinOp::Lt | BinOp::SLt => return "1'h0".into(),
                _ => {}
            }
        }
        let (x, mut y) = (self.r(a), self.r(b));
        // A constant shift amount is printed as a plain decimal below the width (Verilator
        // rejects shift amounts wider than 32 bits); an amount of the width or more is the
        // result it gives: 0, or the sign everywhere for `>>>`.
        if let (BinOp::Shl | BinOp::Shr | BinOp::Sra, Op::Const(k)) = (op, &self.def.node(b).op) {
            let w = self.width(a);
            let big = k.hex().trim_start_matches('0').len() > 8;
            match (big || k.to_u64() >= w as u64, op) {
                (true, BinOp::Sra) => return format!("$signed({x}) >>> {}", w - 1),
                (true, _) => return format!("{w}'d0"),
                (false, _) => y = k.to_u64().to_string(),
            }
        }
        // A variable shift amount wider than 32 bits is split: an amount of 2^32 or more gives
        // the result of shifting everything out (0, or the sign everywhere for `>>>`, printed
        // as the constant case above prints it), a smaller one shifts by its low 32 bits.
        // Verilator 5.006 rejects some wide amounts ("Value too wide for 32-bits expected in
        // this context" on `x << (a − C)` with a wide constant `C`, found by the fuzzer), and
        // mis-folds shifts by a constant of 2^32 − 1, so neither appears in what we print.
        let bw = self.width(b);
        if matches!(op, BinOp::Shl | BinOp::Shr | BinOp::Sra)
            && bw > 32
            && !matches!(self.def.node(b).op, Op::Const(_))
        {
            let w = self.width(a);
            let huge = format!("(|{y}[{}:32])", bw - 1);
            let low = format!("{y}[31:0]");
            return match op {
                BinOp::Sra => format!(
                    "{huge} ? $signed({x}) >>> {} : $signed({x}) >>> {low}",
                    w - 1
                ),
                BinOp::Shl => format!("{huge} ? {w}'d0 : {x} << {low}"),
                _ => format!("{huge} ? {w}'d0 : {x} >> {low}"),
            };
        }
        let sym = match op {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Sra => return format!("$signed({x}) >>> {y}"),
            BinOp::SLt => return format!("$signed({x}) < $signed({y})"),
            // Signed `<=` is printed as an unsigned `<=` of the operands with their sign bits
            // flipped (the same order): Verilator 5.006 at -O3 folds `$signed(K) <= $signed(x)`
            // to 0 when `x` is constant-propagated to the same value as `K` (any width; found
            // by the fuzzer, seed 0xF022 design 1604), and rewrites `!(a < b)` into that form.
            BinOp::SLe => {
                let w = self.width(a);
                let mut words = vec![0u64; w.div_ceil(64) as usize];
                words[((w - 1) / 64) as usize] = 1 << ((w - 1) % 64);
                let msb = Bits::from_words(&words, w).to_verilog();
                return format!("({x} ^ {msb}) <= ({y} ^ {msb})");
            }
        };
        format!("{x} {sym} {y}")
    }

    /// `{a, b}`, with runs of one operand written as a replication (`{32{x}}`) and adjacent
    /// bit-selects of one signal merged (`x[7:4]` rather than `x[7], x[6], x[5], x[4]`).
    fn concat(&self, parts: &[NodeId]) -> String {
        let mut items: Vec<String> = Vec::new();
        let mut i = 0;
        while i < parts.len() {
            if let Some((a, mut lo, hi)) = self.inline_select(parts[i]) {
                let mut j = i + 1;
                while let Some((b, blo, bhi)) = parts.get(j).and_then(|p| self.inline_select(*p)) {
                    if b != a || bhi + 1 != lo {
                        break;
                    }
                    lo = blo;
                    j += 1;
                }
                if j > i + 1 {
                    let merged = self.slice(a, lo, hi - lo + 1);
                    if i == 0 && j == parts.len() {
                        return merged;
                    }
                    items.push(merged);
                    i = j;
                    continue;
                }
            }
            let mut j = i;
            while j < parts.len() && parts[j] == parts[i] {
                j += 1;
            }
            let x = self.r(parts[i]);
            items.push(if j - i > 1 {
                format!("{{{}{{{x}}}}}", j - i)
            } else {
                x
            });
            i = j;
        }
        if items.len() == 1 && items[0].starts_with('{') {
            return items.pop().expect("one item");
        }
        format!("{{{}}}", items.join(", "))
    }

    /// For an inlined bit-select of a named signal: (signal, low bit, high bit).
    fn inline_select(&self, id: NodeId) -> Option<(NodeId, u32, u32)> {
        match self.def.node(id).op {
            Op::Slice { a, lo } if self.names.inline[id as usize] => {
                let constant = matches!(self.def.node(a).op, Op::Const(_));
                (!constant).then(|| (a, lo, lo + self.width(id) - 1))
            }
            _ => None,
        }
    }

    fn slice(&self, a: NodeId, lo: u32, w: u32) -> String {
        let aw = self.width(a);
        if let Op::Const(b) = &self.def.node(a).op {
            return bits_slice(b, lo, w).to_verilog();
        }
        let x = self.r(a);
        if lo == 0 && w == aw {
            x
        } else if w == 1 {
            format!("{x}[{lo}]")
        } else {
            format!("{x}[{}:{lo}]", lo + w - 1)
        }
    }

    fn extend(&self, a: NodeId, w: u32, signed: bool) -> String {
        let aw = self.width(a);
        if let Op::Const(b) = &self.def.node(a).op {
            return bits_extend(b, w, signed).to_verilog();
        }
        let x = self.r(a);
        let n = w - aw;
        if n == 0 {
            x
        } else if !signed {
            format!("{{{n}'h0, {x}}}")
        } else if aw == 1 {
            format!("{{{w}{{{x}}}}}")
        } else {
            format!("{{{{{n}{{{x}[{}]}}}}, {x}}}", aw - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_folding() {
        let b = Bits::from_u128(0xf0u128 << 60, 72);
        assert_eq!(bits_slice(&b, 64, 8).to_u64(), 0xf);
        assert_eq!(
            bits_extend(&Bits::from_u64(0x80, 8), 70, true).hex(),
            "3fffffffffffffff80"
        );
        assert_eq!(bits_extend(&Bits::from_u64(0x80, 8), 70, false).hex(), "80");
        assert_eq!(range(1), "");
        assert_eq!(range(8), "[7:0] ");
    }
}
