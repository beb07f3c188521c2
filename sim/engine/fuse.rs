//! Fusion of instruction pairs whose intermediate value nobody else sees: a product feeding
//! only a sum becomes [`Ins::MulAdd`], a slice feeding only an exclusive or becomes
//! [`Ins::XorSlice`]. One instruction (and, in a batch, one pass over the value vector) fewer
//! per pair.
//!
//! The intermediate place must be read exactly once in the whole program (main and observation
//! programs, clock edge) and must not be observable (an output or a named signal, which `peek`
//! and the VCD read). Fusion runs before scheduling, on a topological order: the fused
//! instruction takes the consumer's position, where the producer's operands are already computed.

use super::program::{Ins, Place, Program, NONE};
use super::schedule::operands;

/// Fuses the pairs of `code` (the main program, in topological order). `seen[s]` marks places
/// read from outside the program (outputs, named signals).
pub(crate) fn fuse(p: &Program, code: Vec<Ins>, seen: &[bool]) -> Vec<Ins> {
    let mut reads = vec![0u32; seen.len()];
    let mut count = |s: Place| {
        if s != NONE {
            reads[s as usize] += 1;
        }
    };
    for ins in code.iter().chain(&p.obs) {
        operands(p, ins, &mut count);
    }
    p.regs_plain.iter().for_each(|r| count(r.1));
    p.regs
        .iter()
        .for_each(|r| [r.d, r.en].into_iter().for_each(&mut count));
    for r in &p.sync_reads {
        [r.addr, r.en].into_iter().for_each(&mut count);
    }
    for w in &p.writes {
        [w.en, w.addr, w.data].into_iter().for_each(&mut count);
    }
    // Index in `code` of the instruction writing each place, for the producers of interest.
    let mut producer = vec![u32::MAX; seen.len()];
    for (i, ins) in code.iter().enumerate() {
        if let Ins::Mul { d, .. } | Ins::Slice { d, .. } = *ins {
            producer[d as usize] = i as u32;
        }
    }
    let private = |s: Place| !seen[s as usize] && reads[s as usize] == 1;
    let mut gone = vec![false; code.len()];
    let mut out = code.clone();
    for (i, ins) in code.iter().enumerate() {
        let fused = |x: Place| {
            let j = producer[x as usize];
            (j != u32::MAX && private(x) && !gone[j as usize])
                .then(|| (j as usize, code[j as usize]))
        };
        match *ins {
            Ins::Add { d, a, b, w } => {
                for (x, c) in [(a, b), (b, a)] {
                    if let Some((j, Ins::Mul { a, b, w: wm, .. })) = fused(x) {
                        if wm == w {
                            out[i] = Ins::MulAdd { d, a, b, c, w };
                            gone[j] = true;
                            break;
                        }
                    }
                }
            }
            Ins::Xor { d, a, b } => {
                for (x, other) in [(b, a), (a, b)] {
                    if let Some((j, Ins::Slice { a: src, lo, w, .. })) = fused(x) {
                        out[i] = Ins::XorSlice {
                            d,
                            a: other,
                            b: src,
                            lo,
                            w,
                        };
                        gone[j] = true;
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    (out.into_iter().zip(gone))
        .filter(|(_, g)| !g)
        .map(|(i, _)| i)
        .collect()
}
