//! Printing the state: initial values and memory contents, and the clock edge (in the order of
//! the interpreter's `exec::edge`).

use super::Gen;
use crate::engine::program::NONE;
use std::fmt::Write;

/// A static table of the non-zero words of `words` as `(index, value)` pairs.
fn nonzero(name: &str, words: &[u64]) -> String {
    let pairs: Vec<String> = (words.iter().enumerate())
        .filter(|(_, x)| **x != 0)
        .map(|(i, x)| format!("({i}, {x:#x})"))
        .collect();
    format!(
        "static {name}: [(usize, u64); {}] = [{}];\n",
        pairs.len(),
        pairs.join(", ")
    )
}

/// `new_state()`: the value and memory arrays at their initial contents.
pub(super) fn new_state(v: &[u64], mem: &[u64]) -> String {
    let mut s = nonzero("INIT_V", v);
    s += &nonzero("INIT_MEM", mem);
    s += "\n/// The value and memory arrays at their initial contents.\n\
          pub fn new_state() -> (Box<[u64; PLACES]>, Box<[u64; MEM_WORDS]>) {\n\
          \x20   let mut v: Box<[u64; PLACES]> = vec![0u64; PLACES].into_boxed_slice().try_into().unwrap();\n\
          \x20   let mut mem: Box<[u64; MEM_WORDS]> =\n\
          \x20       vec![0u64; MEM_WORDS].into_boxed_slice().try_into().unwrap();\n\
          \x20   for &(i, x) in INIT_V.iter() {\n        v[i] = x;\n    }\n\
          \x20   for &(i, x) in INIT_MEM.iter() {\n        mem[i] = x;\n    }\n\
          \x20   (v, mem)\n}\n";
    s
}

impl Gen<'_> {
    /// `if en != 0 { body }`, or `body` for an absent enable.
    fn when(&self, en: u32, body: String) -> String {
        if en == NONE {
            body
        } else {
            format!("if {} != 0 {{ {body}}}", self.r(en))
        }
    }

    /// The statements of the clock edge: memories, registers, resets.
    pub(super) fn edge(&self) -> Vec<String> {
        let mut out = self.edge_memories();
        out.extend(self.edge_registers());
        if !self.p.resets.is_empty() {
            out.push(format!("if rst {{ {}}}", self.reset_values()));
        }
        out
    }

    /// The memory part of the clock edge: synchronous reads, then writes.
    pub(super) fn edge_memories(&self) -> Vec<String> {
        let p = self.p;
        let mut out = Vec::new();
        for r in &p.sync_reads {
            let info = p.mems[r.mem as usize];
            let n = info.words as usize;
            let mut hit = String::new();
            let mut miss = String::new();
            for i in 0..n {
                write!(
                    hit,
                    "{} = mem[{} + a as usize * {n} + {i}]; ",
                    self.dst(r.data + i as u32),
                    info.base
                )
                .unwrap();
                write!(miss, "{} = 0; ", self.dst(r.data + i as u32)).unwrap();
            }
            let body = format!(
                "let a = {}; if a < {} {{ {hit}}} else {{ {miss}}} ",
                self.r(r.addr),
                info.depth
            );
            out.push(self.when(r.en, format!("{{ {body}}}")));
        }
        for wp in &p.writes {
            let info = p.mems[wp.mem as usize];
            let n = info.words as usize;
            let mut body = String::new();
            for i in 0..n {
                let x = self.r(wp.data + i as u32);
                write!(body, "mem[{} + a as usize * {n} + {i}] = {x}; ", info.base).unwrap();
            }
            let body = format!(
                "let a = {}; if a < {} {{ {body}}} ",
                self.r(wp.addr),
                info.depth
            );
            out.push(self.when(wp.en, body));
        }
        out
    }

    /// Every register's load (full evaluation's edge, and active code without `wake`).
    fn edge_registers(&self) -> Vec<String> {
        let p = self.p;
        let mut out = Vec::new();
        for &(q, d, n) in &p.regs_plain {
            if n == 1 {
                out.push(format!("{} = {};", self.dst(q), self.r(d)));
            } else {
                // A block copy, as the interpreter's (`exec::copy_words`).
                out.push(format!("v.copy_within({d}..{}, {q});", d + n));
            }
        }
        for r in &p.regs {
            let mut body = String::new();
            for i in 0..r.n {
                write!(body, "{} = {}; ", self.dst(r.q + i), self.r(r.d + i)).unwrap();
            }
            out.push(self.when(r.en, body));
        }
        out
    }

    /// The stores of every register's reset value (the body of `if rst { … }`).
    pub(super) fn reset_values(&self) -> String {
        let p = self.p;
        let mut body = String::new();
        for r in &p.resets {
            for i in 0..r.n {
                let x = p.reset_values[(r.value + i) as usize];
                write!(body, "{} = {x:#x}; ", self.dst(r.q + i)).unwrap();
            }
        }
        body
    }
}
