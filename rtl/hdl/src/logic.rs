//! Multi-input combinational helpers: concatenation, indexed and priority selects, one-hot
//! multiplexers, lookup tables built from Rust arrays, priority encoders.

use crate::bits::Bits;
use crate::ctx;
use crate::error::ErrorKind;
use crate::ir::{Loc, Op};
use crate::sig::{cat_at, constant, mux_at, Sig};
use std::panic::Location;

/// Concatenation, most significant part first (Verilog `{a, b, c}`).
#[track_caller]
pub fn cat(parts: &[Sig]) -> Sig {
    cat_at(parts, Location::caller())
}

/// Concatenation of 1-bit (or wider) parts given least significant first, e.g. a request vector
/// built from lanes `0..n` with lane `i` at bit `i`.
#[track_caller]
pub fn cat_lsb_first(parts: &[Sig]) -> Sig {
    let rev: Vec<Sig> = parts.iter().rev().copied().collect();
    cat_at(&rev, Location::caller())
}

fn same_width(what: &str, values: &[Sig], width: u32, loc: Loc) -> bool {
    let bad: Vec<String> = values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.width() != width)
        .map(|(i, v)| format!("#{i} is {} bits", v.width()))
        .collect();
    if bad.is_empty() {
        return true;
    }
    ctx::with(|c| {
        c.error(
            ErrorKind::WidthMismatch,
            loc,
            format!(
                "{what}: values must all be {width} bits, but {}",
                bad.join(", ")
            ),
        )
    });
    false
}

/// `cases[index]`, or `default` for an index beyond the cases (a Verilog `case`).
#[track_caller]
pub fn select(index: Sig, cases: &[Sig], default: Sig) -> Sig {
    select_at("select", index, cases, default, Location::caller())
}

/// `cases[index]` where the index always addresses a case (`cases.len() == 2^index.width`, or
/// the last case serves larger indices).
#[track_caller]
pub fn index_select(index: Sig, cases: &[Sig]) -> Sig {
    let loc = Location::caller();
    match cases.split_last() {
        Some((last, head)) => select_at("index_select", index, head, *last, loc),
        None => {
            ctx::with(|c| c.error(ErrorKind::Invalid, loc, "index_select of no cases".into()));
            index
        }
    }
}

fn select_at(what: &str, index: Sig, cases: &[Sig], default: Sig, loc: Loc) -> Sig {
    let width = default.width();
    if !same_width(what, cases, width, loc) {
        return default;
    }
    ctx::with(|c| {
        let index = c.operand(index, loc);
        let cases = cases.iter().map(|s| c.operand(*s, loc)).collect();
        let default = c.operand(default, loc);
        c.sig(
            Op::Select {
                index,
                cases,
                default,
            },
            width,
            loc,
        )
    })
}

/// Lookup table of constants: `table[index]` with entries of `width` bits, 0 beyond the table.
#[track_caller]
pub fn lut(index: Sig, table: &[u64], width: u32) -> Sig {
    let loc = Location::caller();
    if width < 64 && table.iter().any(|v| v >> width != 0) {
        ctx::with(|c| {
            c.error(
                ErrorKind::WidthMismatch,
                loc,
                format!("lookup table entries do not fit in {width} bits"),
            )
        });
    }
    let table = table.iter().map(|v| Bits::from_u64(*v, width)).collect();
    lut_bits(index, table, width, loc)
}

/// Lookup table of constants of any width.
#[track_caller]
pub fn lut_wide(index: Sig, table: Vec<Bits>, width: u32) -> Sig {
    let table = table.into_iter().map(|b| b.resized(width)).collect();
    lut_bits(index, table, width, Location::caller())
}

fn lut_bits(index: Sig, table: Vec<Bits>, width: u32, loc: Loc) -> Sig {
    ctx::with(|c| {
        let idx = c.operand(index, loc);
        c.sig(Op::Lut { index: idx, table }, width, loc)
    })
}

/// The value of the first `(condition, value)` pair whose condition is 1, else `default`.
#[track_caller]
pub fn priority_select(choices: &[(Sig, Sig)], default: Sig) -> Sig {
    let loc = Location::caller();
    choices.iter().rev().fold(default, |acc, (cond, value)| {
        mux_at(*cond, *value, acc, loc)
    })
}

/// AND-OR multiplexer: OR of `values[i]` for each set bit `i` of `onehot` (at most one bit
/// should be set; with none the result is 0).
#[track_caller]
pub fn onehot_mux(onehot: Sig, values: &[Sig]) -> Sig {
    let loc = Location::caller();
    let width = values.first().map(|v| v.width()).unwrap_or(1);
    if onehot.width() as usize != values.len() {
        ctx::with(|c| {
            c.error(
                ErrorKind::WidthMismatch,
                loc,
                format!(
                    "onehot_mux: select is {} bits but there are {} values",
                    onehot.width(),
                    values.len()
                ),
            )
        });
        return constant(Bits::zero(width), loc);
    }
    if !same_width("onehot_mux", values, width, loc) {
        return constant(Bits::zero(width), loc);
    }
    let terms: Vec<Sig> = values
        .iter()
        .enumerate()
        .map(|(i, v)| onehot.slice(i as u32, 1).repeat_at(width, loc) & *v)
        .collect();
    or_all(terms)
}

/// One-hot vector with only the lowest set bit of `x` (0 if `x` is 0).
#[track_caller]
pub fn lowest_set(x: Sig) -> Sig {
    x & (-x)
}

/// OR of `terms` (all of one width), e.g. "some lane takes it" or "some way hits"; a 1-bit 0
/// when there are no terms (the identity of OR).
#[track_caller]
pub fn or_all(terms: impl IntoIterator<Item = Sig>) -> Sig {
    let loc = Location::caller();
    (terms.into_iter())
        .reduce(|a, b| crate::sig::bin(crate::ir::BinOp::Or, a, b, loc))
        .unwrap_or_else(|| constant(Bits::zero(1), loc))
}

/// Round-robin choice: one-hot, the lowest set bit of `mask` strictly above the one-hot `last`,
/// else (wrapping) the lowest set bit of `mask`; 0 if `mask` is 0.
#[track_caller]
pub fn round_robin_pick(mask: Sig, last: Sig) -> Sig {
    let above = mask & !((last << 1) - 1);
    above.any().mux(lowest_set(above), lowest_set(mask))
}

/// Index of the lowest set bit of `x` (0 if none), `clog2(width)` bits wide.
#[track_caller]
pub fn lowest_index(x: Sig) -> Sig {
    let loc = Location::caller();
    let iw = crate::memory::clog2(x.width() as u64);
    let choices: Vec<(Sig, Sig)> = (0..x.width())
        .map(|i| (x.slice(i, 1), crate::sig::literal(i as i128, iw, loc)))
        .collect();
    priority_select(&choices, crate::sig::literal(0, iw, loc))
}
