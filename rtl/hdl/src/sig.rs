//! `Sig`, the handle of a signal, and the operations that build logic from it.
//!
//! Arithmetic operators (`+ - * & | ^ ! -x << >>`) keep the width of their operands, which must be
//! equal (an integer literal on the right takes the other operand's width and must fit). Widening
//! forms are methods: [`Sig::add_full`], [`Sig::mul_full`], [`Sig::smul_full`]. Comparisons and
//! reductions return 1-bit signals. Every method is `#[track_caller]`: errors point at your line.

use crate::bits::Bits;
use crate::ctx::{self, Ctx};
use crate::error::ErrorKind;
use crate::ir::{BinOp, Loc, NodeId, Op, UnOp};
use std::ops;
use std::panic::Location;

/// A signal: a `Copy` handle to a node of the module under construction.
#[derive(Clone, Copy, Debug)]
pub struct Sig {
    pub(crate) module: u32,
    pub(crate) node: NodeId,
    pub(crate) width: u32,
}

/// Something usable as the right-hand operand of an operation: a signal, or an integer literal
/// that takes the width of the left operand.
pub trait Operand {
    /// Converts to a signal of `width` bits (literals) or returns the signal itself.
    fn into_sig(self, width: u32, loc: Loc) -> Sig;
}

impl Operand for Sig {
    fn into_sig(self, _width: u32, _loc: Loc) -> Sig {
        self
    }
}

macro_rules! literal_operand {
    ($($t:ty),*) => {$(
        impl Operand for $t {
            fn into_sig(self, width: u32, loc: Loc) -> Sig {
                literal(self as i128, width, loc)
            }
        }
    )*};
}
literal_operand!(u8, u16, u32, u64, usize, i32, i64);

impl Operand for bool {
    fn into_sig(self, width: u32, loc: Loc) -> Sig {
        literal(self as i128, width, loc)
    }
}

/// A literal of `width` bits; negative values are two's complement. Reports a value that does
/// not fit.
pub(crate) fn literal(value: i128, width: u32, loc: Loc) -> Sig {
    let fits = if value >= 0 {
        width >= 128 || (value as u128) < (1u128 << width)
    } else {
        width >= 128 || value >= -(1i128 << (width - 1).min(126))
    };
    if !fits {
        ctx::with(|c| {
            c.error(
                ErrorKind::WidthMismatch,
                loc,
                format!("literal {value} does not fit in {width} bits"),
            )
        });
    }
    constant(Bits::from_u128(value as u128, width), loc)
}

/// The constant of a hardware-enum variant: a wire named `name` (a `localparam` in Verilog),
/// made once per module.
pub(crate) fn enum_constant(name: String, value: u64, width: u32, loc: Loc) -> Sig {
    let c0 = constant(Bits::from_u64(value, width), loc);
    ctx::with(|c| {
        let module = c.top().uid;
        if let Some(&node) = c.top().enum_consts.get(&name) {
            return Sig {
                module,
                node,
                width,
            };
        }
        let node = c.push(Op::Wire(Some(c0.node)), width, loc);
        c.top().def.nodes[node as usize].name = Some(name.clone());
        c.top().def.localparams.push(node);
        c.top().local_names.insert(name.clone(), 1);
        c.top().enum_consts.insert(name, node);
        Sig {
            module,
            node,
            width,
        }
    })
}

/// A constant signal.
pub(crate) fn constant(bits: Bits, loc: Loc) -> Sig {
    ctx::with(|c| {
        let width = bits.width();
        let node = c.push(Op::Const(bits), width, loc);
        Sig {
            module: c.top().uid,
            node,
            width,
        }
    })
}

impl Ctx {
    /// Validates that `s` belongs to the module under construction; returns its node id.
    pub(crate) fn operand(&mut self, s: Sig, loc: Loc) -> NodeId {
        if s.module != self.top().uid {
            self.error(
                ErrorKind::ForeignSignal,
                loc,
                "signal of another module used here; pass it through a port of the instance".into(),
            );
            return self.dummy(s.width, loc);
        }
        s.node
    }

    /// Appends a node (or reuses an identical pure one) and returns its handle.
    pub(crate) fn sig(&mut self, op: Op, width: u32, loc: Loc) -> Sig {
        let module = self.top().uid;
        if !op.is_pure() {
            let node = self.push(op, width, loc);
            return Sig {
                module,
                node,
                width,
            };
        }
        let key = (op, width);
        if let Some(&node) = self.top().shared.get(&key) {
            return Sig {
                module,
                node,
                width,
            };
        }
        let node = self.push(key.0.clone(), width, loc);
        self.top().shared.insert(key, node);
        Sig {
            module,
            node,
            width,
        }
    }

    /// Builds a two-operand node after checking widths.
    fn binary(&mut self, op: BinOp, a: Sig, b: Sig, loc: Loc) -> Sig {
        let (na, nb) = (self.operand(a, loc), self.operand(b, loc));
        if !op.is_shift() && a.width != b.width {
            let (da, db) = (self.describe(na), self.describe(nb));
            self.error(
                ErrorKind::WidthMismatch,
                loc,
                format!(
                    "width mismatch in {op:?}: {da} is {} bits, {db} is {} bits",
                    a.width, b.width
                ),
            );
        }
        let width = if op.is_compare() { 1 } else { a.width };
        let nb = if !op.is_shift() && a.width != b.width {
            self.dummy(a.width, loc)
        } else {
            nb
        };
        self.sig(Op::Binary(op, na, nb), width, loc)
    }
}

pub(crate) fn bin(op: BinOp, a: Sig, b: impl Operand, loc: Loc) -> Sig {
    let b = b.into_sig(a.width, loc);
    ctx::with(|c| c.binary(op, a, b, loc))
}

fn un(op: UnOp, a: Sig, loc: Loc) -> Sig {
    ctx::with(|c| {
        let n = c.operand(a, loc);
        let width = if matches!(op, UnOp::Not | UnOp::Neg) {
            a.width
        } else {
            1
        };
        c.sig(Op::Unary(op, n), width, loc)
    })
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl<R: Operand> ops::$trait<R> for Sig {
            type Output = Sig;
            #[track_caller]
            fn $method(self, rhs: R) -> Sig {
                bin($op, self, rhs, Location::caller())
            }
        }
    };
}
binary_operator!(Add, add, BinOp::Add);
binary_operator!(Sub, sub, BinOp::Sub);
binary_operator!(Mul, mul, BinOp::Mul);
binary_operator!(BitAnd, bitand, BinOp::And);
binary_operator!(BitOr, bitor, BinOp::Or);
binary_operator!(BitXor, bitxor, BinOp::Xor);

impl ops::Not for Sig {
    type Output = Sig;
    #[track_caller]
    fn not(self) -> Sig {
        un(UnOp::Not, self, Location::caller())
    }
}

impl ops::Neg for Sig {
    type Output = Sig;
    #[track_caller]
    fn neg(self) -> Sig {
        un(UnOp::Neg, self, Location::caller())
    }
}

impl ops::Shl<u32> for Sig {
    type Output = Sig;
    /// Logical shift left by a constant; keeps the width.
    #[track_caller]
    fn shl(self, n: u32) -> Sig {
        let loc = Location::caller();
        if n == 0 {
            return self;
        }
        if n >= self.width {
            return constant(Bits::zero(self.width), loc);
        }
        let low = self.slice_at(0, self.width - n, loc);
        cat_at(&[low, constant(Bits::zero(n), loc)], loc)
    }
}

impl ops::Shr<u32> for Sig {
    type Output = Sig;
    /// Logical shift right by a constant; keeps the width.
    #[track_caller]
    fn shr(self, n: u32) -> Sig {
        let loc = Location::caller();
        if n == 0 {
            return self;
        }
        if n >= self.width {
            return constant(Bits::zero(self.width), loc);
        }
        self.slice_at(n, self.width - n, loc)
            .extend_at(self.width, false, loc)
    }
}

#[allow(clippy::should_implement_trait)]
impl Sig {
    /// Width in bits.
    pub fn width(self) -> u32 {
        self.width
    }

    /// Node index in its module (for tools that walk the IR).
    pub fn node(self) -> NodeId {
        self.node
    }

    fn slice_at(self, lo: u32, width: u32, loc: Loc) -> Sig {
        ctx::with(|c| {
            let n = c.operand(self, loc);
            if width == 0 || lo + width > self.width {
                let d = c.describe(n);
                c.error(
                    ErrorKind::Invalid,
                    loc,
                    format!(
                        "slice [{}:{lo}] out of range of {d} ({} bits)",
                        lo as i64 + width as i64 - 1,
                        self.width
                    ),
                );
                let w = width.max(1);
                let node = c.dummy(w, loc);
                return Sig {
                    module: c.top().uid,
                    node,
                    width: w,
                };
            }
            if lo == 0 && width == self.width {
                return self;
            }
            c.sig(Op::Slice { a: n, lo }, width, loc)
        })
    }

    fn extend_at(self, width: u32, signed: bool, loc: Loc) -> Sig {
        if width == self.width {
            return self;
        }
        if width < self.width {
            ctx::with(|c| {
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!("cannot extend a {}-bit signal to {width} bits", self.width),
                )
            });
            return self.slice_at(0, width.max(1), loc);
        }
        ctx::with(|c| {
            let n = c.operand(self, loc);
            c.sig(Op::Extend { a: n, signed }, width, loc)
        })
    }

    /// Bit `i` as a 1-bit signal.
    #[track_caller]
    pub fn bit(self, i: u32) -> Sig {
        self.slice_at(i, 1, Location::caller())
    }

    /// Bits `hi` down to `lo`, inclusive (Verilog `x[hi:lo]`).
    #[track_caller]
    pub fn bits(self, hi: u32, lo: u32) -> Sig {
        let loc = Location::caller();
        if hi < lo {
            ctx::with(|c| {
                c.error(
                    ErrorKind::Invalid,
                    loc,
                    format!("bits({hi}, {lo}): hi < lo"),
                )
            });
            return self.slice_at(lo, 1, loc);
        }
        self.slice_at(lo, hi - lo + 1, loc)
    }

    /// `width` bits starting at bit `lo`.
    #[track_caller]
    pub fn slice(self, lo: u32, width: u32) -> Sig {
        self.slice_at(lo, width, Location::caller())
    }

    /// The most significant bit.
    #[track_caller]
    pub fn msb(self) -> Sig {
        self.slice_at(self.width - 1, 1, Location::caller())
    }

    /// Zero extension to `width` (≥ current width).
    #[track_caller]
    pub fn zext(self, width: u32) -> Sig {
        self.extend_at(width, false, Location::caller())
    }

    /// Sign extension to `width` (≥ current width).
    #[track_caller]
    pub fn sext(self, width: u32) -> Sig {
        self.extend_at(width, true, Location::caller())
    }

    /// Zero extension or truncation to `width`.
    #[track_caller]
    pub fn resize(self, width: u32) -> Sig {
        let loc = Location::caller();
        if width <= self.width {
            self.slice_at(0, width, loc)
        } else {
            self.extend_at(width, false, loc)
        }
    }

    /// `n` copies side by side.
    #[track_caller]
    pub fn repeat(self, n: u32) -> Sig {
        self.repeat_at(n, Location::caller())
    }

    /// [`Sig::repeat`] recorded at `loc`.
    pub(crate) fn repeat_at(self, n: u32, loc: Loc) -> Sig {
        if self.width == 1 && n > 1 {
            // One bit repeated is its sign extension: one node instead of an n-part concat.
            return self.extend_at(n, true, loc);
        }
        cat_at(&vec![self; n.max(1) as usize], loc)
    }

    /// Unsigned sum one bit wider than the wider operand (no overflow).
    #[track_caller]
    pub fn add_full(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        let w = self.width.max(rhs.width) + 1;
        bin(
            BinOp::Add,
            self.extend_at(w, false, loc),
            rhs.extend_at(w, false, loc),
            loc,
        )
    }

    /// Unsigned product of full width (`self.width + rhs.width`).
    #[track_caller]
    pub fn mul_full(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        let w = self.width + rhs.width;
        bin(
            BinOp::Mul,
            self.extend_at(w, false, loc),
            rhs.extend_at(w, false, loc),
            loc,
        )
    }

    /// Signed (two's complement) product of full width (`self.width + rhs.width`).
    #[track_caller]
    pub fn smul_full(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        let w = self.width + rhs.width;
        bin(
            BinOp::Mul,
            self.extend_at(w, true, loc),
            rhs.extend_at(w, true, loc),
            loc,
        )
    }

    /// Logical shift left by a signal amount; keeps the width.
    #[track_caller]
    pub fn shl(self, amount: Sig) -> Sig {
        bin(BinOp::Shl, self, amount, Location::caller())
    }

    /// Logical shift right by a signal amount; keeps the width.
    #[track_caller]
    pub fn shr(self, amount: Sig) -> Sig {
        bin(BinOp::Shr, self, amount, Location::caller())
    }

    /// Arithmetic shift right by a signal amount; keeps the width.
    #[track_caller]
    pub fn sra(self, amount: Sig) -> Sig {
        bin(BinOp::Sra, self, amount, Location::caller())
    }

    /// Arithmetic shift right by a constant; keeps the width.
    #[track_caller]
    pub fn sra_const(self, n: u32) -> Sig {
        let loc = Location::caller();
        let n = n.min(self.width - 1);
        if n == 0 {
            return self;
        }
        self.slice_at(n, self.width - n, loc)
            .extend_at(self.width, true, loc)
    }

    /// `self == rhs`.
    #[track_caller]
    pub fn eq(self, rhs: impl Operand) -> Sig {
        bin(BinOp::Eq, self, rhs, Location::caller())
    }
    /// `self != rhs`.
    #[track_caller]
    pub fn ne(self, rhs: impl Operand) -> Sig {
        bin(BinOp::Ne, self, rhs, Location::caller())
    }
    /// Unsigned `self < rhs`.
    #[track_caller]
    pub fn lt(self, rhs: impl Operand) -> Sig {
        bin(BinOp::Lt, self, rhs, Location::caller())
    }
    /// Unsigned `self <= rhs`.
    #[track_caller]
    pub fn le(self, rhs: impl Operand) -> Sig {
        bin(BinOp::Le, self, rhs, Location::caller())
    }
    /// Unsigned `self > rhs`.
    #[track_caller]
    pub fn gt(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        bin(BinOp::Lt, rhs, self, loc)
    }
    /// Unsigned `self >= rhs`.
    #[track_caller]
    pub fn ge(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        bin(BinOp::Le, rhs, self, loc)
    }
    /// Signed `self < rhs`.
    #[track_caller]
    pub fn slt(self, rhs: impl Operand) -> Sig {
        bin(BinOp::SLt, self, rhs, Location::caller())
    }
    /// Signed `self <= rhs`.
    #[track_caller]
    pub fn sle(self, rhs: impl Operand) -> Sig {
        bin(BinOp::SLe, self, rhs, Location::caller())
    }
    /// Signed `self > rhs`.
    #[track_caller]
    pub fn sgt(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        bin(BinOp::SLt, rhs, self, loc)
    }
    /// Signed `self >= rhs`.
    #[track_caller]
    pub fn sge(self, rhs: impl Operand) -> Sig {
        let loc = Location::caller();
        let rhs = rhs.into_sig(self.width, loc);
        bin(BinOp::SLe, rhs, self, loc)
    }

    /// OR of all bits.
    #[track_caller]
    pub fn any(self) -> Sig {
        un(UnOp::RedOr, self, Location::caller())
    }
    /// AND of all bits.
    #[track_caller]
    pub fn all(self) -> Sig {
        un(UnOp::RedAnd, self, Location::caller())
    }
    /// XOR of all bits.
    #[track_caller]
    pub fn parity(self) -> Sig {
        un(UnOp::RedXor, self, Location::caller())
    }

    /// `self ? on_true : on_false`; `self` must be 1 bit, the arms of equal width (an integer
    /// literal arm takes the other arm's width).
    #[track_caller]
    pub fn mux(self, on_true: impl Operand, on_false: Sig) -> Sig {
        let loc = Location::caller();
        let on_true = on_true.into_sig(on_false.width, loc);
        mux_at(self, on_true, on_false, loc)
    }

    /// True (1 bit) when this signal holds the hardware-enum value `variant` (compared by name:
    /// the Verilog reads `state_q == STATE_IDLE`).
    #[track_caller]
    pub fn is<E: crate::HwEnum>(self, variant: E) -> Sig {
        let loc = Location::caller();
        let k = enum_constant(
            variant.const_name(),
            variant.index() as u64,
            E::width(),
            loc,
        );
        bin(BinOp::Eq, self, k, loc)
    }

    /// Gives the signal a name that appears in the Verilog and the VCD; returns the named signal.
    #[track_caller]
    pub fn named(self, name: &str) -> Sig {
        let loc = Location::caller();
        ctx::with(|c| {
            let n = c.operand(self, loc);
            let name = c.unique_local(name);
            let s = c.sig(Op::Wire(Some(n)), self.width, loc);
            c.top().def.nodes[s.node as usize].name = Some(name);
            s
        })
    }
}

pub(crate) fn mux_at(sel: Sig, on_true: Sig, on_false: Sig, loc: Loc) -> Sig {
    ctx::with(|c| {
        let (s, t, f) = (
            c.operand(sel, loc),
            c.operand(on_true, loc),
            c.operand(on_false, loc),
        );
        if sel.width != 1 {
            let d = c.describe(s);
            c.error(
                ErrorKind::WidthMismatch,
                loc,
                format!("mux select {d} is {} bits, must be 1", sel.width),
            );
        }
        if on_true.width != on_false.width {
            let (dt, df) = (c.describe(t), c.describe(f));
            c.error(
                ErrorKind::WidthMismatch,
                loc,
                format!(
                    "mux arms differ: {dt} is {} bits, {df} is {} bits",
                    on_true.width, on_false.width
                ),
            );
            let node = c.dummy(on_false.width, loc);
            return Sig {
                module: c.top().uid,
                node,
                width: on_false.width,
            };
        }
        let s = if sel.width != 1 { c.dummy(1, loc) } else { s };
        c.sig(
            Op::Mux {
                sel: s,
                on_true: t,
                on_false: f,
            },
            on_false.width,
            loc,
        )
    })
}

pub(crate) fn cat_at(parts: &[Sig], loc: Loc) -> Sig {
    if parts.len() == 1 {
        return parts[0];
    }
    ctx::with(|c| {
        if parts.is_empty() {
            c.error(ErrorKind::Invalid, loc, "concatenation of nothing".into());
            return c.sig(Op::Const(Bits::zero(1)), 1, loc);
        }
        let ids: Vec<NodeId> = parts.iter().map(|p| c.operand(*p, loc)).collect();
        let width = parts.iter().map(|p| p.width).sum();
        c.sig(Op::Concat(ids), width, loc)
    })
}
