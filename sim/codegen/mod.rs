//! A compiled backend: the compiled `Program` the interpreter runs, turned into specialised Rust source.
//!
//! [`generate`] compiles a design exactly as [`Simulator::new`] does and prints the program as
//! straight-line code: every place of the interpreter's value vector becomes a constant index
//! into a fixed-size array `[u64; PLACES]`, constant places become literals, and there is no
//! dispatch. The source defines
//!
//! * `PLACES`, `MEM_WORDS` and `fn new_state() -> (Box<[u64; PLACES]>, Box<[u64; MEM_WORDS]>)`
//!   (values and memories at their initial contents);
//! * `fn settle(v, mem)`: the combinational program (`Program::main`; the observation program is
//!   not generated, so only ports and state are observable);
//! * `fn edge(v, mem, rst)`: the clock edge, step for step as the interpreter's
//!   (`exec::edge`): synchronous reads, memory writes, register loads, synchronous resets.
//!
//! A driver writes inputs into the places of [`Generated::inputs`] (low word first, bits above the
//! width zero), calls `settle`, reads outputs from [`Generated::outputs`], then calls `edge`:
//! that is one [`Simulator::step`]. The source needs only `std` and contains no `unsafe`; build it
//! with `rustc -C opt-level=3` as a module of a harness (the bench harness of `rendergen-gen` does).
//!
//! Multi-word operations are printed per word with small `#[inline(always)]` helpers (the prelude,
//! a mirror of the interpreter's multi-word algorithms) called on constant-length arrays, so
//! the optimiser unrolls and specialises each one.

mod narrow;
mod state;
mod wide;

#[allow(dead_code, clippy::manual_is_multiple_of)]
pub(crate) mod prelude;

use crate::engine::activity::{Activity, Watch};
use crate::engine::layout;
use crate::engine::program::{Place, Program};
use crate::engine::{Eval, SimError, Simulator};
use rendergen_hdl::bits::words_for;
use rendergen_hdl::ir::Design;
use std::fmt::Write;

/// The runtime helpers pasted into every generated design.
const PRELUDE: &str = include_str!("prelude.rs");

/// Largest number of statements per generated function (`settle` calls its parts in order;
/// huge functions slow `rustc` down more than they speed the simulation up).
const CHUNK: usize = 3000;

/// A top-level port of a generated design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortPlace {
    /// Rust name of the port.
    pub name: String,
    /// Width in bits.
    pub width: u32,
    /// Index of its first word in the value array (`ceil(width / 64)` words).
    pub place: usize,
}

/// A design compiled to Rust source (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Generated {
    /// The module source: constants, `new_state`, `settle`, `edge` and their helpers.
    pub source: String,
    /// Top-level inputs in declaration order.
    pub inputs: Vec<PortPlace>,
    /// Top-level outputs in declaration order.
    pub outputs: Vec<PortPlace>,
    /// Words of the value array.
    pub places: usize,
    /// Words of the memory array.
    pub mem_words: usize,
    /// FNV-1a hash of `source`: [`Compiled::fingerprint`] of code built from it, which
    /// [`Simulator::with_compiled`] compares with the design it is given.
    pub fingerprint: u64,
}

/// Generated code built into the running program (for example by a build script, as the
/// `rendergen-compiled` crate does), handed to [`Simulator::with_compiled`]: the simulator then
/// settles and clocks through it instead of interpreting, with the same handles, records,
/// named signals and VCD. Build it from [`Generated`]: `settle` and `edge` are the source's
/// `settle_slices` and `edge_slices`, `fingerprint` is [`Generated::fingerprint`].
#[derive(Clone, Copy, Debug)]
pub struct Compiled {
    /// The generated source's fingerprint.
    pub fingerprint: u64,
    /// `settle_slices(values, memories)`.
    pub settle: fn(&mut [u64], &[u64]),
    /// `edge_slices(values, memories, reset)`.
    pub edge: fn(&mut [u64], &mut [u64], bool),
}

/// FNV-1a over the bytes of `s`.
pub(crate) fn fingerprint(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Compiles `design` with the interpreter's compiler and prints the program as Rust source.
pub fn generate(design: &Design) -> Result<Generated, SimError> {
    generate_with(design, Eval::Full)
}

/// [`generate`] for an evaluation mode. Under [`Eval::Active`] each group of the program is
/// printed as `if active { … }` followed by the checks of its watched values (see
/// `engine::activity`); the active flags and the shadow copies live in the value array after
/// the design's places (so `settle` and `edge` keep their signatures, and `PLACES` counts
/// them), and `edge` first activates the readers of memories it is about to write.
pub fn generate_with(design: &Design, eval: Eval) -> Result<Generated, SimError> {
    Ok(generate_from(&Simulator::with_eval(design, eval)?))
}

/// The source of a freshly compiled simulator's program.
pub(crate) fn generate_from(sim: &Simulator) -> Generated {
    let (prog, m, in_places, out_places) = sim.compiled();
    let ports = |infos: &[crate::PortInfo], places: &[Place]| -> Vec<PortPlace> {
        (infos.iter().zip(places))
            .map(|(p, s)| PortPlace {
                name: p.name.clone(),
                width: p.width,
                place: *s as usize,
            })
            .collect()
    };
    let inputs = ports(sim.inputs(), in_places);
    let outputs = ports(sim.outputs(), out_places);
    let konst = constant_places(prog, m.v.len(), &inputs);
    let mut g = Gen {
        p: prog,
        init: &m.v,
        konst,
        tables: String::new(),
    };
    let nv = m.v.len();
    let mut init = m.v.clone();
    let mut src = String::from("// Generated by rendergen-sim codegen. Do not edit.\n");
    src.push_str("#![allow(unused, clippy::all)]\n");
    src.push_str(PRELUDE);
    let (settle, edge) = match &prog.activity {
        None => (
            prog.main
                .iter()
                .flat_map(|i| g.ins(i))
                .collect::<Vec<String>>(),
            g.edge(),
        ),
        Some(a) => {
            init = a.values_with_state(m);
            active_settle(&mut g, a, nv)
        }
    };
    let nm = m.mem.len();
    writeln!(
        src,
        "\n/// Words of the value array.\npub const PLACES: usize = {};",
        init.len()
    )
    .unwrap();
    writeln!(
        src,
        "/// Words of the memory array.\npub const MEM_WORDS: usize = {nm};"
    )
    .unwrap();
    src.push_str(&state::new_state(&init, &m.mem));
    src.push_str(&g.tables);
    match prog.activity {
        // The active settle is already whole functions: the sources, the groups and the
        // dispatcher.
        Some(_) => settle.iter().for_each(|s| src.push_str(s)),
        None => {
            let chunks: Vec<&[String]> = settle.chunks(CHUNK).collect();
            for (k, body) in chunks.iter().enumerate() {
                writeln!(
                    src,
                    "\n#[inline(never)]\nfn settle_{k}(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {{"
                )
                .unwrap();
                body.iter().for_each(|s| writeln!(src, "    {s}").unwrap());
                src.push_str("}\n");
            }
            src.push_str("\n/// Settles the combinational logic.\n#[inline]\n");
            src.push_str("pub fn settle(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {\n");
            (0..chunks.len()).for_each(|k| writeln!(src, "    settle_{k}(v, mem);").unwrap());
            src.push_str("    let _ = (v, mem);\n}\n");
        }
    }
    src.push_str("\n/// Applies a rising clock edge.\n#[inline]\n");
    src.push_str("pub fn edge(v: &mut [u64; PLACES], mem: &mut [u64; MEM_WORDS], rst: bool) {\n");
    edge.iter().for_each(|s| writeln!(src, "    {s}").unwrap());
    src.push_str("    let _ = (v, mem, rst);\n}\n");
    src.push_str(
        "\n/// `settle` on slices (a simulator's value and memory vectors).\n\
         pub fn settle_slices(v: &mut [u64], mem: &[u64]) {\n\
         \x20   settle(v.try_into().expect(\"PLACES words\"), mem.try_into().expect(\"MEM_WORDS words\"));\n}\n\
         \n/// `edge` on slices.\n\
         pub fn edge_slices(v: &mut [u64], mem: &mut [u64], rst: bool) {\n\
         \x20   edge(v.try_into().expect(\"PLACES words\"), mem.try_into().expect(\"MEM_WORDS words\"), rst);\n}\n",
    );
    Generated {
        fingerprint: fingerprint(&src),
        source: src,
        inputs,
        outputs,
        places: init.len(),
        mem_words: nm,
    }
}

/// The settle functions and the edge (memory-write activations first) of an
/// activity-aware program; flags start at place `nv`, shadows after them.
///
/// The per-cycle path is data-driven where it runs for every group or source, so it touches
/// little code: one-word sources are checked in a loop over a table (`SOURCES`, consumers in
/// `CONS`), the dispatcher tests the groups' flags in a loop (neighbouring words) and calls the
/// active groups through a table of functions (`GROUPS`), one small function per group (its
/// body and the checks of its watched values). Printing every check and every flag test as
/// straight-line code made the PBRU's settle fetch megabytes of code per cycle, most of it to
/// skip idle groups.
fn active_settle(g: &mut Gen, a: &Activity, nv: usize) -> (Vec<String>, Vec<String>) {
    let flag = |grp: u32| nv + grp as usize;
    let shadow0 = nv + a.groups.len();
    let activate = |cons: (u32, u32)| -> String {
        (a.cons[cons.0 as usize..cons.1 as usize].iter())
            .map(|&c| format!("v[{}] = 1; ", flag(c)))
            .collect()
    };
    let check = |w: &Watch| -> String {
        let n = w.words as usize;
        let (p, sh) = (w.place as usize, shadow0 + w.shadow as usize);
        let differ: Vec<String> = (0..n)
            .map(|k| format!("v[{}] != v[{}]", p + k, sh + k))
            .collect();
        let copy: String = (0..n)
            .map(|k| format!("v[{}] = v[{}]; ", sh + k, p + k))
            .collect();
        format!("if {} {{ {copy}{}}}", differ.join(" || "), activate(w.cons))
    };
    let mut out = Vec::new();
    let (one, wide): (Vec<&Watch>, Vec<&Watch>) = a.sources.iter().partition(|w| w.words == 1);
    let rows: Vec<String> = (one.iter())
        .map(|w| {
            let sh = shadow0 + w.shadow as usize;
            format!("({}, {sh}, {}, {})", w.place, w.cons.0, w.cons.1)
        })
        .collect();
    let cons: Vec<String> = a.cons.iter().map(|c| c.to_string()).collect();
    let mut f = format!(
        "\n/// One-word sources: (place, shadow, consumers in `CONS`).\n\
         static SOURCES: [(u32, u32, u32, u32); {}] = [{}];\n\
         /// Consumer groups of the watched values.\n\
         static CONS: [u32; {}] = [{}];\n\
         /// First activity flag.\nconst FLAGS: usize = {nv};\n\
         /// Groups.\nconst NGROUPS: usize = {};\n\
         \n#[inline(never)]\nfn sources(v: &mut [u64; PLACES]) {{\n\
         \x20   for &(p, s, c0, c1) in SOURCES.iter() {{\n\
         \x20       let (p, s) = (p as usize, s as usize);\n\
         \x20       if v[p] != v[s] {{\n\
         \x20           v[s] = v[p];\n\
         \x20           for &c in &CONS[c0 as usize..c1 as usize] {{\n\
         \x20               v[FLAGS + c as usize] = 1;\n\
         \x20           }}\n\
         \x20       }}\n\
         \x20   }}\n",
        rows.len(),
        rows.join(", "),
        cons.len(),
        cons.join(", "),
        a.groups.len()
    );
    for w in wide {
        writeln!(f, "    {}", check(w)).unwrap();
    }
    f.push_str("}\n");
    out.push(f);
    for (grp, &(start, end, w0, w1)) in a.groups.iter().enumerate() {
        let mut f = format!(
            "\n#[inline(never)]\nfn group_{grp}(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {{\n"
        );
        for ins in &g.p.main[start as usize..end as usize] {
            for stmt in g.ins(ins) {
                writeln!(f, "    {stmt}").unwrap();
            }
        }
        for w in &a.watches[w0 as usize..w1 as usize] {
            writeln!(f, "    {}", check(w)).unwrap();
        }
        f.push_str("}\n");
        out.push(f);
    }
    let names: Vec<String> = (0..a.groups.len()).map(|k| format!("group_{k}")).collect();
    out.push(format!(
        "\n/// The groups, in order.\n\
         static GROUPS: [fn(&mut [u64; PLACES], &[u64; MEM_WORDS]); NGROUPS] = [{}];\n\
         \n/// Settles the combinational logic: the changed sources' consumers, then every active\n\
         /// group in order (a group only activates later groups).\n\
         #[inline]\npub fn settle(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {{\n\
         \x20   sources(v);\n\
         \x20   for k in 0..NGROUPS {{\n\
         \x20       if v[FLAGS + k] != 0 {{\n\
         \x20           v[FLAGS + k] = 0;\n\
         \x20           GROUPS[k](v, mem);\n\
         \x20       }}\n\
         \x20   }}\n}}\n",
        names.join(", ")
    ));
    let mut edge: Vec<String> = (a.mem_writes.iter())
        .map(|&(en, cons)| format!("if v[{en}] != 0 {{ {}}}", activate(cons)))
        .collect();
    edge.extend(g.edge());
    (out, edge)
}

/// Places whose value never changes after compilation: not written by the program or the edge,
/// and not an input.
fn constant_places(p: &Program, n: usize, inputs: &[PortPlace]) -> Vec<bool> {
    let mut k = vec![true; n];
    let mut clear = |s: usize, words: usize| k[s..s + words].iter_mut().for_each(|x| *x = false);
    for i in inputs {
        clear(i.place, words_for(i.width));
    }
    for ins in p.main.iter().chain(&p.obs) {
        layout::dests(p, ins, &mut clear);
    }
    for &(q, _, n) in &p.regs_plain {
        clear(q as usize, n as usize);
    }
    for r in &p.regs {
        clear(r.q as usize, r.n as usize);
    }
    for r in &p.resets {
        clear(r.q as usize, r.n as usize);
    }
    for r in &p.sync_reads {
        clear(r.data as usize, p.mems[r.mem as usize].words as usize);
    }
    k
}

/// The printer: the program, the initial values and which places are constant.
pub(crate) struct Gen<'a> {
    p: &'a Program,
    init: &'a [u64],
    konst: Vec<bool>,
    /// Static lookup tables, printed before the functions.
    tables: String,
}

impl Gen<'_> {
    /// The expression reading place `s`: a literal when constant.
    fn r(&self, s: Place) -> String {
        let s = s as usize;
        if self.konst[s] {
            format!("{:#x}u64", self.init[s])
        } else {
            format!("v[{s}]")
        }
    }

    /// The assignable expression of place `s` (written by the program or the edge).
    fn dst(&self, s: Place) -> String {
        format!("v[{s}]")
    }

    /// An array expression of the `n` words at place `s`.
    fn rs(&self, s: Place, n: usize) -> String {
        let words: Vec<String> = (0..n).map(|i| self.r(s + i as u32)).collect();
        format!("[{}]", words.join(", "))
    }

    /// A new static table of `u64` values; returns its name.
    fn table(&mut self, values: &[u64]) -> String {
        let name = format!("TABLE_{}", self.tables.len());
        let vals: Vec<String> = values.iter().map(|x| format!("{x:#x}")).collect();
        writeln!(
            self.tables,
            "static {name}: [u64; {}] = [{}];",
            values.len(),
            vals.join(", ")
        )
        .unwrap();
        name
    }
}

#[cfg(test)]
mod tests;
