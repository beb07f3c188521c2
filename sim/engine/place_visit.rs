//! The places an instruction names, visited in one function: the destination first, then the
//! operands in the order the instruction reads them. Scheduling reads them, renumbering rewrites
//! them; both go through these two functions, so a new instruction is described once.
//!
//! Tables an instruction points into are not visited here: a select's cases live in
//! [`Program::sel_tab`](super::program::Program), a multi-word operation in `Program::wide`
//! (visit it with [`wide_places`]), a batch's operations in `Program::batch`.

use super::program::{Ins, Place, WideOp};

/// Calls `visit` on the destination of `ins`, then on each operand place held in `ins` itself.
/// Visits nothing for `Wide`, `Batch` and `Run`, whose places live in the program's tables.
pub(crate) fn ins_places(ins: &mut Ins, visit: &mut dyn FnMut(&mut Place)) {
    match ins {
        Ins::Copy { d, a }
        | Ins::Not { d, a, .. }
        | Ins::Neg { d, a, .. }
        | Ins::RedAnd { d, a, .. }
        | Ins::RedOr { d, a }
        | Ins::RedXor { d, a }
        | Ins::Slice { d, a, .. }
        | Ins::Sext { d, a, .. }
        | Ins::Lut { d, idx: a, .. }
        | Ins::Select { d, idx: a, .. }
        | Ins::MemRd { d, addr: a, .. } => [d, a].into_iter().for_each(visit),
        Ins::Add { d, a, b, .. }
        | Ins::Sub { d, a, b, .. }
        | Ins::Mul { d, a, b, .. }
        | Ins::And { d, a, b }
        | Ins::Or { d, a, b }
        | Ins::Xor { d, a, b }
        | Ins::Shl { d, a, b, .. }
        | Ins::Shr { d, a, b, .. }
        | Ins::Sra { d, a, b, .. }
        | Ins::Eq { d, a, b }
        | Ins::Ne { d, a, b }
        | Ins::Lt { d, a, b }
        | Ins::Le { d, a, b }
        | Ins::SLt { d, a, b, .. }
        | Ins::SLe { d, a, b, .. }
        | Ins::XorSlice { d, a, b, .. }
        | Ins::Cat2 {
            d, hi: a, lo: b, ..
        } => [d, a, b].into_iter().for_each(visit),
        Ins::Mux { d, s, t, f: e } => [d, s, t, e].into_iter().for_each(visit),
        Ins::MulAdd { d, a, b, c, .. } => [d, a, b, c].into_iter().for_each(visit),
        Ins::Wide(_) | Ins::Batch { .. } | Ins::Run { .. } => {}
    }
}

/// Calls `visit` on the destination of a multi-word operation, then on each of its operands.
pub(crate) fn wide_places(op: &mut WideOp, visit: &mut dyn FnMut(&mut Place)) {
    match op {
        WideOp::Copy { d, a, .. }
        | WideOp::Sat { d, a, .. }
        | WideOp::Un { d, a, .. }
        | WideOp::Slice { d, a, .. }
        | WideOp::Extend { d, a, .. }
        | WideOp::Lut { d, idx: a, .. }
        | WideOp::MemRd { d, addr: a, .. } => [d, a].into_iter().for_each(visit),
        WideOp::Bin { d, a, b, .. } => [d, a, b].into_iter().for_each(visit),
        WideOp::Mux { d, s, t, f: e, .. } => [d, s, t, e].into_iter().for_each(visit),
        WideOp::Concat { d, parts, .. } => {
            visit(d);
            parts.iter_mut().for_each(|(s, _)| visit(s));
        }
        WideOp::Select {
            d,
            idx,
            cases,
            default,
            ..
        } => {
            visit(d);
            visit(idx);
            cases.iter_mut().for_each(&mut *visit);
            visit(default);
        }
    }
}
