//! Printing multi-word operations: each becomes a block over constant-length word arrays,
//! computed into `r` and stored (as the interpreter computes into scratch and stores).

use super::Gen;
use crate::engine::program::WideOp;
use rendergen_hdl::bits::{top_mask, words_for};
use rendergen_hdl::ir::{BinOp, UnOp};
use std::fmt::Write;

impl Gen<'_> {
    /// The block evaluating one multi-word operation.
    pub(super) fn wide(&mut self, op: &WideOp) -> String {
        let mut s = String::from("{ ");
        let (d, w) = match op {
            WideOp::Copy { d, a, n } => {
                for i in 0..*n {
                    write!(s, "{} = {}; ", self.dst(d + i), self.r(a + i)).unwrap();
                }
                return s + "}";
            }
            WideOp::Sat { d, a, n } => {
                let hi: Vec<String> = (1..*n).map(|i| self.r(a + i)).collect();
                let lo = self.r(*a);
                if hi.is_empty() {
                    return format!("{} = {lo};", self.dst(*d));
                }
                let hi = hi.join(" | ");
                return format!(
                    "{} = if ({hi}) != 0 {{ u64::MAX }} else {{ {lo} }};",
                    self.dst(*d)
                );
            }
            WideOp::Mux { d, s: c, t, f, n } => {
                write!(s, "let m = lane({}); ", self.r(*c)).unwrap();
                for i in 0..*n {
                    let (t, f) = (self.r(t + i), self.r(f + i));
                    write!(s, "{} = ({t} & m) | ({f} & !m); ", self.dst(d + i)).unwrap();
                }
                return s + "}";
            }
            WideOp::Un { d, w, .. }
            | WideOp::Bin { d, w, .. }
            | WideOp::Concat { d, w, .. }
            | WideOp::Slice { d, w, .. }
            | WideOp::Extend { d, w, .. } => (*d, *w),
            WideOp::Select { d, n, .. } | WideOp::Lut { d, n, .. } => (*d, n * 64),
            WideOp::MemRd { d, mem, .. } => (*d, self.p.mems[*mem as usize].words * 64),
        };
        let n = words_for(w);
        write!(s, "let mut r = [0u64; {n}]; ").unwrap();
        match op {
            WideOp::Un { op, a, wa, .. } => {
                let na = words_for(*wa);
                write!(s, "let a: [u64; {na}] = {}; ", self.rs(*a, na)).unwrap();
                s += &match op {
                    UnOp::Not => format!("for i in 0..{na} {{ r[i] = !a[i]; }} "),
                    UnOp::Neg => "w_neg(&mut r, &a); ".into(),
                    UnOp::RedOr => "r[0] = a.iter().any(|x| *x != 0) as u64; ".into(),
                    UnOp::RedXor => {
                        "r[0] = (a.iter().map(|x| x.count_ones()).sum::<u32>() & 1) as u64; ".into()
                    }
                    UnOp::RedAnd => format!(
                        "r[0] = (a[..{}].iter().all(|x| *x == u64::MAX) && a[{}] == {:#x}) as u64; ",
                        na - 1,
                        na - 1,
                        top_mask(*wa)
                    ),
                };
            }
            WideOp::Bin { op, a, b, wa, .. } => {
                let na = words_for(*wa);
                let nb = if op.is_shift() { 1 } else { na };
                write!(s, "let a: [u64; {na}] = {}; ", self.rs(*a, na)).unwrap();
                write!(s, "let b: [u64; {nb}] = {}; ", self.rs(*b, nb)).unwrap();
                let cmp = |o: &str, signed: bool| {
                    format!("r[0] = w_cmp(&a, &b, {signed}, {wa}).{o}() as u64; ")
                };
                s += &match op {
                    BinOp::Add => "w_add(&mut r, &a, &b, false); ".into(),
                    BinOp::Sub => "w_add(&mut r, &a, &b, true); ".into(),
                    BinOp::Mul => "w_mul(&mut r, &a, &b); ".into(),
                    BinOp::And => format!("for i in 0..{n} {{ r[i] = a[i] & b[i]; }} "),
                    BinOp::Or => format!("for i in 0..{n} {{ r[i] = a[i] | b[i]; }} "),
                    BinOp::Xor => format!("for i in 0..{n} {{ r[i] = a[i] ^ b[i]; }} "),
                    BinOp::Shl => format!("w_shift(&mut r, &a, b[0], {wa}, SHL); "),
                    BinOp::Shr => format!("w_shift(&mut r, &a, b[0], {wa}, SHR); "),
                    BinOp::Sra => format!("w_shift(&mut r, &a, b[0], {wa}, SRA); "),
                    BinOp::Eq => cmp("is_eq", false),
                    BinOp::Ne => cmp("is_ne", false),
                    BinOp::Lt => cmp("is_lt", false),
                    BinOp::Le => cmp("is_le", false),
                    BinOp::SLt => cmp("is_lt", true),
                    BinOp::SLe => cmp("is_le", true),
                };
            }
            WideOp::Concat { parts, .. } => {
                let mut lo = 0;
                for (j, &(p, pw)) in parts.iter().rev().enumerate() {
                    let np = words_for(pw);
                    write!(s, "let p{j}: [u64; {np}] = {}; ", self.rs(p, np)).unwrap();
                    let mut done = 0;
                    while done < pw {
                        let k = (pw - done).min(64);
                        let at = lo + done;
                        write!(
                            s,
                            "or_field(&mut r, {at}, {k}, get_field(&p{j}, {done}, {k})); "
                        )
                        .unwrap();
                        done += k;
                    }
                    lo += pw;
                }
            }
            WideOp::Slice { a, wa, lo, w, .. } => {
                let na = words_for(*wa);
                write!(s, "let a: [u64; {na}] = {}; ", self.rs(*a, na)).unwrap();
                for i in 0..n as u32 {
                    let k = (*w - i * 64).min(64);
                    write!(s, "r[{i}] = get_field(&a, {}, {k}); ", lo + i * 64).unwrap();
                }
            }
            WideOp::Extend { a, wa, signed, .. } => {
                let na = words_for(*wa);
                write!(s, "let a: [u64; {na}] = {}; ", self.rs(*a, na)).unwrap();
                write!(s, "w_extend(&mut r, &a, {wa}, {signed}); ").unwrap();
            }
            WideOp::Select {
                idx,
                cases,
                default,
                ..
            } => {
                write!(s, "r = match {} {{ ", self.r(*idx)).unwrap();
                for (i, c) in cases.iter().enumerate() {
                    write!(s, "{i} => {}, ", self.rs(*c, n)).unwrap();
                }
                write!(s, "_ => {} }}; ", self.rs(*default, n)).unwrap();
            }
            WideOp::Lut {
                idx,
                table,
                entries,
                ..
            } => {
                if *entries > 0 {
                    let t = self.table(table);
                    write!(
                        s,
                        "let i = {}; if i < {entries} {{ let s = i as usize * {n}; \
                         r.copy_from_slice(&{t}[s..s + {n}]); }} ",
                        self.r(*idx)
                    )
                    .unwrap();
                }
            }
            WideOp::MemRd { mem, addr, .. } => {
                let info = self.p.mems[*mem as usize];
                write!(
                    s,
                    "let a = {}; if a < {} {{ let s = {} + a as usize * {n}; \
                     r.copy_from_slice(&mem[s..s + {n}]); }} ",
                    self.r(*addr),
                    info.depth,
                    info.base
                )
                .unwrap();
            }
            WideOp::Copy { .. } | WideOp::Sat { .. } | WideOp::Mux { .. } => unreachable!(),
        }
        if top_mask(w) != u64::MAX {
            write!(s, "r[{}] &= {:#x}; ", n - 1, top_mask(w)).unwrap();
        }
        let d = d as usize;
        write!(s, "v[{d}..{}].copy_from_slice(&r); }}", d + n).unwrap();
        s
    }
}
