//! Ordering of the main program. The compiler emits instructions in a topological order; here
//! they are levelised (an instruction's level is one more than the levels of the instructions
//! that wrote its operands) and, within a level, grouped by opcode, so the interpreter's dispatch
//! branch sees long runs of the same target. Any order that puts every instruction after the
//! writers of its operands is correct; levels only improve locality and prediction.

use super::place_visit::{ins_places, wide_places};
use super::program::{Batch, Ins, Place, Program};
use std::collections::HashMap;

/// Destination and operand places of an instruction (`f` is called for each operand).
pub(crate) fn operands(p: &Program, ins: &Ins, mut f: impl FnMut(Place)) -> Place {
    match *ins {
        Ins::Select { d, idx, start, n } => {
            f(idx);
            let (s, n) = (start as usize, n as usize);
            p.sel_tab[s..=s + n].iter().for_each(|x| f(*x));
            d
        }
        Ins::Wide(i) => dest_then_operands(p.wide[i as usize].clone(), wide_places, f),
        Ins::Batch { .. } | Ins::Run { .. } => unreachable!("batches are formed after scheduling"),
        narrow => dest_then_operands(narrow, ins_places, f),
    }
}

/// Runs `visit` on a copy of `op`, returning the first place visited (the destination) and
/// passing the others to `f`.
fn dest_then_operands<T>(
    mut op: T,
    visit: impl FnOnce(&mut T, &mut dyn FnMut(&mut Place)),
    mut f: impl FnMut(Place),
) -> Place {
    let mut dest = None;
    visit(&mut op, &mut |s: &mut Place| match dest {
        None => dest = Some(*s),
        Some(_) => f(*s),
    });
    dest.expect("every instruction has a destination")
}

/// Dispatch group of an instruction (its opcode).
fn opcode(ins: &Ins) -> u8 {
    // The enum's declaration order; only used to group equal opcodes together.
    match ins {
        Ins::Copy { .. } => 0,
        Ins::Not { .. } => 1,
        Ins::Neg { .. } => 2,
        Ins::RedAnd { .. } => 3,
        Ins::RedOr { .. } => 4,
        Ins::RedXor { .. } => 5,
        Ins::Add { .. } => 6,
        Ins::Sub { .. } => 7,
        Ins::Mul { .. } => 8,
        Ins::And { .. } => 9,
        Ins::Or { .. } => 10,
        Ins::Xor { .. } => 11,
        Ins::Shl { .. } => 12,
        Ins::Shr { .. } => 13,
        Ins::Sra { .. } => 14,
        Ins::Eq { .. } => 15,
        Ins::Ne { .. } => 16,
        Ins::Lt { .. } => 17,
        Ins::Le { .. } => 18,
        Ins::SLt { .. } => 19,
        Ins::SLe { .. } => 20,
        Ins::Mux { .. } => 21,
        Ins::Cat2 { .. } => 22,
        Ins::Slice { .. } => 23,
        Ins::Sext { .. } => 24,
        Ins::Select { .. } => 25,
        Ins::Lut { .. } => 26,
        Ins::MemRd { .. } => 27,
        Ins::Wide(_) => 28,
        Ins::Batch { .. } => 29,
        Ins::Run { .. } => 30,
        Ins::MulAdd { .. } => 31,
        Ins::XorSlice { .. } => 32,
    }
}

/// The batch form of an instruction, if it has one: kind, width parameter, operands.
fn batchable(ins: &Ins) -> Option<(Batch, u8, [Place; 4])> {
    Some(match *ins {
        Ins::Copy { d, a } => (Batch::Copy, 64, [d, a, a, 0]),
        Ins::Not { d, a, w } => (Batch::Not, w, [d, a, a, 0]),
        Ins::Add { d, a, b, w } => (Batch::Add, w, [d, a, b, 0]),
        Ins::Sub { d, a, b, w } => (Batch::Sub, w, [d, a, b, 0]),
        Ins::Mul { d, a, b, w } => (Batch::Mul, w, [d, a, b, 0]),
        Ins::And { d, a, b } => (Batch::And, 64, [d, a, b, 0]),
        Ins::Or { d, a, b } => (Batch::Or, 64, [d, a, b, 0]),
        Ins::Xor { d, a, b } => (Batch::Xor, 64, [d, a, b, 0]),
        Ins::Eq { d, a, b } => (Batch::Eq, 64, [d, a, b, 0]),
        Ins::Mux { d, s, t, f } => (Batch::Mux, 64, [d, s, t, f]),
        Ins::Slice { d, a, lo, w } => (Batch::Slice, w, [d, a, a, lo as Place]),
        Ins::MulAdd { d, a, b, c, w } => (Batch::MulAdd, w, [d, a, b, c]),
        Ins::XorSlice { d, a, b, lo, w } => (Batch::XorSlice, w, [d, a, b, lo as Place]),
        _ => return None,
    })
}

/// Replaces runs (≥ [`MIN_BATCH`]) of batchable instructions of one kind and width by
/// `Ins::Batch`.
/// Shortest run worth a batch: below it the loop set-up costs more than the saved dispatches.
const MIN_BATCH: usize = 4;

fn form_batches(p: &mut Program, code: Vec<Ins>) -> Vec<Ins> {
    let mut out = Vec::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        let Some((op, w, first)) = batchable(&code[i]) else {
            out.push(code[i]);
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < code.len() && batchable(&code[j]).is_some_and(|(o, x, _)| (o, x) == (op, w)) {
            j += 1;
        }
        if j - i < MIN_BATCH {
            out.extend_from_slice(&code[i..j]);
        } else {
            let start = p.batch.len() as u32;
            p.batch.push(first);
            p.batch.extend(
                code[i + 1..j]
                    .iter()
                    .map(|c| batchable(c).expect("batchable").2),
            );
            let n = (j - i) as u32;
            out.push(Ins::Batch { op, w, start, n });
        }
        i = j;
    }
    out
}

/// Asserts that every place an instruction of `code` touches through the unchecked accessors of
/// `exec` is inside the value vector of `len` words, and that every table range is in bounds.
/// This is the precondition of `exec`'s `unsafe` accesses: a failure is a compiler bug.
pub(crate) fn validate(p: &Program, code: &[Ins], len: usize) {
    let ok = |s: Place| assert!((s as usize) < len, "place {s} out of range ({len})");
    for ins in code {
        match *ins {
            Ins::Batch { op, start, n, .. } => {
                let (s, n) = (start as usize, n as usize);
                assert!(s + n <= p.batch.len(), "batch range out of the table");
                for e in &p.batch[s..s + n] {
                    e[..=op.reads()].iter().for_each(|x| ok(*x));
                }
            }
            Ins::Run { op, shape, run, .. } => {
                super::runs::validate(op, shape, &p.runs[run as usize], len)
            }
            Ins::Select { start, n, .. } => {
                assert!(
                    ((start + n) as usize) < p.sel_tab.len(),
                    "select out of the table"
                );
                ok(operands(p, ins, ok));
            }
            _ => ok(operands(p, ins, ok)),
        }
    }
}

/// Reorders `code` (a valid topological order) by (level, opcode, width), keeping the relative
/// order of instructions with equal keys, then forms batches of equal neighbours.
pub(crate) fn levelise(p: &mut Program, code: Vec<Ins>) -> Vec<Ins> {
    let mut written: HashMap<Place, u32> = HashMap::new();
    let mut keyed: Vec<((u32, u8, u8), Ins)> = Vec::with_capacity(code.len());
    for ins in code {
        let mut level = 0;
        let d = operands(p, &ins, |s| {
            level = level.max(written.get(&s).map_or(0, |l| l + 1));
        });
        // A destination written again (a concatenation chain) must stay after its last write.
        let level = level.max(written.get(&d).map_or(0, |l| l + 1));
        // Every word of a multi-word destination (narrow slices read single words of it).
        let words = match ins {
            Ins::Wide(i) => super::layout::wide_dest(p, &p.wide[i as usize]).1,
            _ => 1,
        };
        for k in 0..words as Place {
            written.insert(d + k, level);
        }
        let w = batchable(&ins).map_or(0, |b| b.1);
        keyed.push(((level, opcode(&ins), w), ins));
    }
    keyed.sort_by_key(|(k, _)| *k);
    let code = keyed.into_iter().map(|(_, i)| i).collect();
    form_batches(p, code)
}
