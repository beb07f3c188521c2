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
//! Values that only one generated function writes and reads, and that nothing outside the
//! program observes, are elements of a local array `t` instead of the value array (the
//! optimiser keeps them in registers and folds whole expression trees; see `locals`); small
//! programs are printed depth first, so most of them die within a few statements. Which
//! values stay observable is [`Observe`]'s choice: [`generate_with`] keeps every named
//! signal (what [`Simulator::with_compiled`] needs), a benchmark harness only the ports.
//!
//! Multi-word operations are printed per word with small `#[inline(always)]` helpers (the prelude,
//! a mirror of the interpreter's multi-word algorithms) called on constant-length arrays, so
//! the optimiser unrolls and specialises each one.

mod locals;
mod narrow;
mod state;
mod wake;
mod wide;

#[allow(dead_code, clippy::manual_is_multiple_of)]
pub(crate) mod prelude;

use crate::engine::activity::{Activity, Watch};
use crate::engine::layout;
use crate::engine::program::{Place, Program, NONE};
use crate::engine::{Eval, SimError, Simulator};
use rendergen_hdl::bits::words_for;
use rendergen_hdl::ir::Design;
use std::fmt::Write;

/// The runtime helpers pasted into every generated design.
const PRELUDE: &str = include_str!("prelude.rs");

/// Largest number of statements per generated function (`settle` calls its parts in order;
/// huge functions slow `rustc` down more than they speed the simulation up).
const CHUNK: usize = 3000;

/// [`CHUNK`] in small programs (see [`UNROLL_OPS`]): a value read in another function than its
/// writer's must be stored, so fewer functions keep more values in registers.
const SMALL_CHUNK: usize = 12_000;

/// Largest program (operations per full evaluation) printed without table loops: `astc_dp`
/// (5,740 operations) ran at 0.36× Verilator with its long slice and concatenation batches as
/// loops over tables (indirect loads, shifts from the table); the PBRU (124,719) needs the
/// loops to keep its code small.
const UNROLL_OPS: u64 = 40_000;

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
/// a function (its body, then the checks of its watched values), called when its flag is set
/// (see `engine::activity` and `active_settle`); the packed flags, the shadow copies and a
/// counter of evaluated groups live in the value array after the design's places (so `settle`
/// and `edge` keep their signatures, and `PLACES` counts them), and `edge` first activates the
/// readers of memories it is about to write; it then loads only the registers of the groups
/// that ran since the last edge and wakes the readers of those that changed (`wake`).
pub fn generate_with(design: &Design, eval: Eval) -> Result<Generated, SimError> {
    generate_observing(design, eval, Observe::Signals)
}

/// What generated code keeps observable in its value array, besides ports, state and the
/// values its clock edge reads. Values that are not kept live in local variables of the
/// generated functions (see `locals`), which makes the code faster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observe {
    /// Every named signal (what [`Simulator::with_compiled`] needs for `peek_signal` and
    /// VCD tracing; [`generate_with`]).
    Signals,
    /// Only the ports: code for a harness that pokes inputs and reads outputs (the
    /// benchmark's), as Verilator without `--public` keeps only the ports.
    Ports,
}

/// [`generate_with`] keeping only what `observe` asks for observable.
pub fn generate_observing(
    design: &Design,
    eval: Eval,
    observe: Observe,
) -> Result<Generated, SimError> {
    Ok(generate_from(&Simulator::with_eval(design, eval)?, observe))
}

/// [`generate_observing`] with full evaluation's straight-line code split into functions of
/// at most `max_statements` statements (the default is up to 12,000 in programs of at most
/// 40,000 operations, 3,000 in larger ones). The statements and their order are the same;
/// only which values cross a function boundary (and so live in the value array instead of a
/// local) changes. `rustc`'s time grows much faster than linearly with a function's size:
/// 20 fuzz designs (9,866 nodes, one function of ~7,000 statements by default) build in
/// ~270 s at `-O3`, in ~12 s at 1,000 statements per function — what the random-netlist
/// fuzzer uses, which builds one program per batch and runs it for 100 cycles. Activity-aware
/// code has one function per group already and is unchanged.
pub fn generate_split(
    design: &Design,
    eval: Eval,
    observe: Observe,
    max_statements: usize,
) -> Result<Generated, SimError> {
    let sim = Simulator::with_eval(design, eval)?;
    Ok(generate_printed(&sim, observe, Some(max_statements.max(1))))
}

/// The source of a freshly compiled simulator's program.
pub(crate) fn generate_from(sim: &Simulator, observe: Observe) -> Generated {
    generate_printed(sim, observe, None)
}

/// [`generate_from`], with `max_statements` overriding the functions' size limit.
fn generate_printed(sim: &Simulator, observe: Observe, max_statements: Option<usize>) -> Generated {
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
    // Indexed batches become loops over tables only in large programs, where the size of
    // straight-line code (fetched once per cycle) costs more than the loops' indirect loads.
    let ops: u64 = prog.op_counts().iter().map(|c| c.1).sum();
    let small = ops <= UNROLL_OPS;
    let printing = locals::Printing {
        batch_loop: if small {
            usize::MAX
        } else {
            narrow::BATCH_LOOP
        },
        unroll_runs: small,
        chunk: (max_statements).unwrap_or(if small { SMALL_CHUNK } else { CHUNK }),
    };
    let fns = functions(prog, printing, m.v.len());
    let mut pinned = vec![false; m.v.len()];
    for p in inputs.iter().chain(&outputs) {
        pinned[p.place..p.place + words_for(p.width)].fill(true);
    }
    if observe == Observe::Signals {
        for (place, w) in sim.signal_places() {
            pinned[place as usize..place as usize + words_for(w)].fill(true);
        }
    }
    let local = locals::locals(prog, &fns, pinned);
    if std::env::var_os("RENDERGEN_SIM_OPS").is_some() {
        eprintln!(
            "codegen: {} of {} places in locals, {} functions",
            local.len.iter().sum::<u32>(),
            local.slot.len(),
            local.len.len()
        );
    }
    let mut g = Gen {
        p: prog,
        init: &m.v,
        konst,
        local,
        tables: String::new(),
        printing,
    };
    let nv = m.v.len();
    let mut init = m.v.clone();
    let mut src = String::from("// Generated by rendergen-sim codegen. Do not edit.\n");
    src.push_str("#![allow(unused, clippy::all)]\n");
    src.push_str(PRELUDE);
    let (settle, edge) = match &prog.activity {
        None => {
            let chunks = (fns.iter())
                .map(|items| items.iter().flat_map(|it| g.item(it)).collect())
                .collect();
            (chunks, g.edge())
        }
        Some(a) => {
            init = a.values_with_state(m);
            let (s, e) = active_settle(&mut g, a, nv, &fns);
            (vec![s], e)
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
        Some(_) => settle[0].iter().for_each(|s| src.push_str(s)),
        None => {
            for (k, body) in settle.iter().enumerate() {
                writeln!(
                    src,
                    "\n#[inline(never)]\nfn settle_{k}(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {{"
                )
                .unwrap();
                src.push_str(&g.local_array(k));
                body.iter().for_each(|s| writeln!(src, "    {s}").unwrap());
                src.push_str("}\n");
            }
            src.push_str("\n/// Settles the combinational logic.\n#[inline]\n");
            src.push_str("pub fn settle(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {\n");
            (0..settle.len()).for_each(|k| writeln!(src, "    settle_{k}(v, mem);").unwrap());
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
/// activity-aware program; the packed flags start at place `nv`, the shadows after them, and
/// the counter of evaluated groups (`EVALS`) after the shadows.
///
/// The per-cycle path is data-driven where it runs for every group or source, so it touches
/// little code (printing every check and every flag test as straight-line code made the PBRU's
/// settle fetch megabytes of code per cycle, most of it to skip idle groups):
///
/// * **flags**: one bit per group, 64 per word (GSIM); the dispatcher skips 64 idle groups
///   with one test, and finds the next active one with `trailing_zeros`. Activating a
///   consumer list sets one mask per flag word.
/// * **sources** (inputs and synchronous read data, one word each): the analysis orders them
///   by place, so they form runs of neighbouring words with neighbouring shadows (`SRUNS`); a
///   run is compared eight words at a time (one vector compare) and only a chunk that changed
///   is looked at word by word. Wide sources are printed checks. Register outputs are not
///   compared: the edge wakes the readers of the registers that change (`wake`), unless the
///   value array has no room for its record of groups that ran (then registers are sources
///   too).
/// * **groups**: one `#[inline(never)]` function each (its body and the checks of its
///   watched values), called from a `match` on the group number (a jump table; no function
///   pointers).
fn active_settle(
    g: &mut Gen,
    a: &Activity,
    nv: usize,
    fns: &[Vec<locals::Item>],
) -> (Vec<String>, Vec<String>) {
    let nfw = a.flag_words();
    let shadow0 = nv + nfw;
    let evals = shadow0 + a.shadow_words;
    // Registers wake their readers at the edge (`wake`) where the value array has room for
    // the record of groups that ran; otherwise the settle compares them with shadows.
    let ran = wake::ran_words(a).map(|k| shadow0 + k);
    let (src_runs, wide_sources) = match ran {
        Some(_) => (&a.wake.src_runs, &a.wake.wide_sources),
        None => (&a.src_runs, &a.wide_sources),
    };
    let activate = |cons: (u32, u32)| -> String {
        (a.acts[cons.0 as usize..cons.1 as usize].iter())
            .map(|&(w, m)| format!("v[{}] |= {m:#x}; ", nv + w as usize))
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
    // The sources' activation lists follow each other in `acts`.
    let mut src_act = vec![a.sources.first().map_or(0, |w| w.cons.0).to_string()];
    for (i, w) in a.sources.iter().enumerate() {
        debug_assert!(i == 0 || a.sources[i - 1].cons.1 == w.cons.0);
        src_act.push(w.cons.1.to_string());
    }
    let acts: Vec<String> = (a.acts.iter())
        .map(|(w, m)| format!("({w}, {m:#x})"))
        .collect();
    let srows: Vec<String> = (src_runs.iter())
        .map(|&(p, s, n, f)| format!("({p}, {}, {n}, {f})", shadow0 + s as usize))
        .collect();
    let mut f = format!(
        "\n/// Runs of one-word sources: (first place, first shadow, words, first source).\n\
         static SRUNS: [(u32, u32, u32, u32); {}] = [{}];\n\
         /// Per source, the end of its activations in `SACT` (sources' lists are in order).\n\
         static SRC_ACT: [u32; {}] = [{}];\n\
         /// Activations: (flag word, mask).\n\
         static SACT: [(u32, u64); {}] = [{}];\n\
         /// First activity flag word.\nconst FLAGS: usize = {nv};\n\
         /// Groups.\npub const NGROUPS: usize = {};\n\
         /// Words of flags.\nconst FLAG_WORDS: usize = {nfw};\n\
         /// The counter of evaluated groups.\npub const EVALS: usize = {evals};\n\
         \n/// The one-word source at offset `k` of the run at `p` (shadow `s`, first source `f`)\n\
         /// changed if it differs from its shadow: update the shadow, activate its readers.\n\
         #[inline(always)]\n\
         fn source_word(v: &mut [u64; PLACES], p: usize, s: usize, f: usize, k: usize) {{\n\
         \x20   let x = v[p + k];\n\
         \x20   if x != v[s + k] {{\n\
         \x20       v[s + k] = x;\n\
         \x20       let (a, b) = (SRC_ACT[f + k] as usize, SRC_ACT[f + k + 1] as usize);\n\
         \x20       for &(w, m) in &SACT[a..b] {{\n\
         \x20           v[FLAGS + w as usize] |= m;\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n\
         \n#[inline(never)]\nfn sources(v: &mut [u64; PLACES]) {{\n\
         \x20   for &(p, s, n, f) in SRUNS.iter() {{\n\
         \x20       let (p, s, n, f) = (p as usize, s as usize, n as usize, f as usize);\n\
         \x20       let mut k = 0;\n\
         \x20       while k + 8 <= n {{\n\
         \x20           let (a, b) = (&v[p + k..p + k + 8], &v[s + k..s + k + 8]);\n\
         \x20           let mut x = 0;\n\
         \x20           for j in 0..8 {{\n\
         \x20               x |= a[j] ^ b[j];\n\
         \x20           }}\n\
         \x20           if x != 0 {{\n\
         \x20               for j in k..k + 8 {{\n\
         \x20                   source_word(v, p, s, f, j);\n\
         \x20               }}\n\
         \x20           }}\n\
         \x20           k += 8;\n\
         \x20       }}\n\
         \x20       for j in k..n {{\n\
         \x20           source_word(v, p, s, f, j);\n\
         \x20       }}\n\
         \x20   }}\n",
        srows.len(),
        srows.join(", "),
        src_act.len(),
        src_act.join(", "),
        acts.len(),
        acts.join(", "),
        a.groups.len()
    );
    for &i in wide_sources {
        writeln!(f, "    {}", check(&a.sources[i as usize])).unwrap();
    }
    f.push_str("}\n");
    out.push(f);
    for (grp, &(_, _, w0, w1)) in a.groups.iter().enumerate() {
        let mut f = format!(
            "\n#[inline(never)]\nfn group_{grp}(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {{\n{}",
            g.local_array(grp)
        );
        for it in &fns[grp] {
            for stmt in g.item(it) {
                writeln!(f, "    {stmt}").unwrap();
            }
        }
        for w in &a.watches[w0 as usize..w1 as usize] {
            writeln!(f, "    {}", check(w)).unwrap();
        }
        f.push_str("}\n");
        out.push(f);
    }
    let arms: String = (0..a.groups.len())
        .map(|k| format!("            {k} => group_{k}(v, mem),\n"))
        .collect();
    // Under `wake`, the groups run are recorded for the edge.
    let (ran0, ran1, ran2) = match ran {
        Some(_) => (
            "        let mut ran = 0u64;\n",
            "            ran |= bits & bits.wrapping_neg();\n",
            "        v[RAN + w] |= ran;\n",
        ),
        None => ("", "", ""),
    };
    out.push(format!(
        "\n/// Settles the combinational logic: the changed sources' consumers, then every active\n\
         /// group in order (a group only activates later groups, so re-reading the flag word\n\
         /// after each group sees its activations).\n\
         #[inline]\npub fn settle(v: &mut [u64; PLACES], mem: &[u64; MEM_WORDS]) {{\n\
         \x20   sources(v);\n\
         \x20   for w in 0..FLAG_WORDS {{\n\
         {ran0}\
         \x20       loop {{\n\
         \x20           let bits = v[FLAGS + w];\n\
         \x20           if bits == 0 {{\n\
         \x20               break;\n\
         \x20           }}\n\
         \x20           v[FLAGS + w] = bits & (bits - 1);\n\
         {ran1}\
         \x20           v[EVALS] += 1;\n\
         \x20           match w * 64 + bits.trailing_zeros() as usize {{\n\
         {arms}\
         \x20           _ => unreachable!(\"no such group\"),\n\
         \x20           }}\n\
         \x20       }}\n\
         {ran2}\
         \x20   }}\n}}\n",
    ));
    let mut edge: Vec<String> = (a.mem_writes.iter())
        .map(|&(en, cons)| format!("if v[{en}] != 0 {{ {}}}", activate(cons)))
        .collect();
    match ran {
        Some(ran) => {
            out.push(wake::registers(g, a, ran, nv));
            edge.extend(g.edge_memories());
            edge.push("registers(v);".into());
            edge.push(wake::reset(g, a, nv));
        }
        None => edge.extend(g.edge()),
    }
    (out, edge)
}

/// The items each generated function prints: the groups of an activity-aware program; for
/// full evaluation, the program in chunks of at most `pr.chunk` statements, reordered depth
/// first (`locals::depth_first`) when batches are unrolled (a small program).
fn functions(p: &Program, pr: locals::Printing, places: usize) -> Vec<Vec<locals::Item>> {
    if let Some(a) = &p.activity {
        return (a.groups.iter())
            .map(|&(start, end, _, _)| locals::items(p, start as usize..end as usize, pr))
            .collect();
    }
    let mut all = locals::items(p, 0..p.main.len(), pr);
    if pr.unroll_runs {
        all = locals::depth_first(p, &all, places);
    }
    all.chunks(pr.chunk).map(|c| c.to_vec()).collect()
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
    /// Places printed as local variables (see [`locals`]).
    local: locals::Locals,
    /// How batches and runs are printed.
    printing: locals::Printing,
}

impl Gen<'_> {
    /// The expression reading place `s`: a literal when constant.
    fn r(&self, s: Place) -> String {
        let s = s as usize;
        if self.local.slot[s] != NONE {
            format!("t[{}]", self.local.slot[s])
        } else if self.konst[s] {
            format!("{:#x}u64", self.init[s])
        } else {
            format!("v[{s}]")
        }
    }

    /// The statements of one item.
    fn item(&mut self, it: &locals::Item) -> Vec<String> {
        match *it {
            locals::Item::Ins(i) => {
                let p = self.p;
                self.ins(&p.main[i as usize])
            }
            locals::Item::Entry { op, w, e } => vec![self.batch(op, w, e)],
        }
    }

    /// The declaration of generated function `f`'s local array (see [`locals`]), if it has
    /// locals.
    fn local_array(&self, f: usize) -> String {
        match self.local.len.get(f) {
            Some(&n) if n > 0 => format!("    let mut t = [0u64; {n}];\n"),
            _ => String::new(),
        }
    }

    /// The assignable expression of place `s` (written by the program or the edge).
    fn dst(&self, s: Place) -> String {
        if self.local.slot[s as usize] != NONE {
            format!("t[{}]", self.local.slot[s as usize])
        } else {
            format!("v[{s}]")
        }
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
