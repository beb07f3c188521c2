//! Delta debugging of a design on which two engines disagree: the smallest netlist that still
//! disagrees, found by editing the elaborated IR (`rendergen_hdl::ir`) directly.
//!
//! [`reduce`] keeps a design for which a predicate holds ("Verilator still disagrees with the
//! interpreter while iverilog agrees", [`cosim_disagrees`]; or "Verilator still fails to build
//! it with the same message", [`build_fails_with`]) and tries, in turn:
//! 1. dropping top outputs, one at a time;
//! 2. replacing nodes by constant zero, in halving chunks (ddmin), every module of the
//!    hierarchy (a child definition shared by several instances changes in all of them);
//! 3. forwarding a node's operand of the same width to its readers (a node bypassed);
//!
//! and after every edit [`prune`] removes what no output observes: dead nodes, registers,
//! memory read ports, memories, instances and module definitions (renumbering the IR's
//! indices). Passes 2–3 repeat until neither removes anything. A trial that fails to
//! simulate, emit or build (even by a panic) counts as "no longer disagrees".

use super::run_recorded;
use crate::cosim::{cosim_quick_build, CosimEngine, CosimError, COSIM_FLAGS};
use crate::tools::{run_tool, write_design, WorkDir};
use crate::verilog::top_name;
use rendergen_hdl::ir::{Design, ModuleDef, NodeId, Op};
use rendergen_hdl::Bits;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::Command;
use std::time::Duration;

/// Counts of what a design holds (to report a reduction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// Module definitions.
    pub modules: usize,
    /// Nodes, summed over definitions (not flattened).
    pub nodes: usize,
    /// Registers.
    pub regs: usize,
    /// Memories.
    pub mems: usize,
    /// Instances.
    pub insts: usize,
    /// Top outputs.
    pub outputs: usize,
}

impl Size {
    /// The counts of `d`.
    pub fn of(d: &Design) -> Size {
        let m = &d.modules;
        Size {
            modules: m.len(),
            nodes: m.iter().map(|x| x.nodes.len()).sum(),
            regs: m.iter().map(|x| x.regs.len()).sum(),
            mems: m.iter().map(|x| x.mems.len()).sum(),
            insts: m.iter().map(|x| x.insts.len()).sum(),
            outputs: d.top().outputs.len(),
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} modules, {} nodes, {} registers, {} memories, {} instances, {} top outputs",
            self.modules, self.nodes, self.regs, self.mems, self.insts, self.outputs
        )
    }
}

/// True when `engine` co-simulates `design` differently from the interpreter (an output
/// mismatch, not a build failure) over `cycles` cycles of the bench stimulus `stim`, while
/// every other HDL simulator in `agree` matches it (so the difference is not undefined
/// behaviour that the reduction introduced). Verilator models are built as
/// [`check_batch`](super::check_batch) builds them ([`cosim_quick_build`]).
pub fn cosim_disagrees(
    design: &Design,
    cycles: u64,
    stim: u64,
    engine: CosimEngine,
    agree: &[CosimEngine],
) -> bool {
    let (_, trace) = run_recorded(design, cycles, stim);
    matches!(
        cosim_quick_build(design, &trace, engine),
        Err(CosimError::Mismatch { .. })
    ) && agree
        .iter()
        .all(|&e| cosim_quick_build(design, &trace, e).is_ok())
}

/// The signature of a tool failure: its first error line (`%Error`, `error:`, or `Internal
/// Error`) with file names and positions removed, since a reduced design has other files and
/// line numbers; for example `%Error: Internal Error: ../V3EmitCFunc.h:1031: Reduction over
/// single bit value should have been folded` (Verilator 5.006 on design 1118 of seed 0xF022).
/// `None` when the output holds no error line.
pub fn fault_signature(output: &str) -> Option<String> {
    let line = output.lines().find(|l| {
        let l = l.trim_start();
        l.starts_with("%Error") || l.contains("error:") || l.contains("Internal Error")
    })?;
    let words: Vec<&str> = line
        .split_whitespace()
        .filter(|w| !is_verilog_position(w))
        .collect();
    Some(words.join(" "))
}

/// `name.v:54:19:` and the like: a position in an emitted Verilog file.
fn is_verilog_position(word: &str) -> bool {
    match word.split_once(".v:") {
        Some((_, rest)) => rest
            .trim_end_matches(':')
            .split(':')
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

/// The front end of `engine` on `design`'s Verilog, in a fresh directory: Verilator translates
/// it to C++ with the co-simulation build's options (`--cc -O3` and
/// `cosim::COSIM_FLAGS`; the C++ is not compiled), iverilog compiles it. Returns the tool's
/// combined output when it fails, `None` when it succeeds.
pub fn front_end_failure(design: &Design, engine: CosimEngine) -> Option<String> {
    let dir = WorkDir::new("reduce").ok()?;
    let files = write_design(design, dir.path()).ok()?;
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let mut cmd = match engine {
        CosimEngine::Verilator => {
            let mut c = Command::new("verilator");
            c.args(["--cc", "--top-module"])
                .arg(top_name(design))
                .args(["-Mdir", "obj", "--x-assign", "0", "--x-initial", "0"])
                .args(["-Wno-fatal", "-Wno-lint", "-Wno-style", "-O3"])
                .args(COSIM_FLAGS);
            c
        }
        CosimEngine::Iverilog => {
            let mut c = Command::new("iverilog");
            c.args(["-g2005", "-o", "sim.vvp", "-s"])
                .arg(top_name(design));
            c
        }
    };
    cmd.args(&names);
    match run_tool(&mut cmd, dir.path(), Duration::from_secs(300)) {
        Ok(f) if f.code == Some(0) => None,
        Ok(f) => Some(f.combined()),
        Err(e) => Some(e.to_string()),
    }
}

/// True when `engine`'s front end ([`front_end_failure`]) fails on `design` with a fault of
/// signature `signature` ([`fault_signature`]): the predicate that reduces a tool crash, where
/// [`cosim_disagrees`] reduces a wrong value. A trial that fails differently (an edit that
/// made the Verilog illegal, another crash) is not interesting.
pub fn build_fails_with(design: &Design, engine: CosimEngine, signature: &str) -> bool {
    front_end_failure(design, engine)
        .and_then(|out| fault_signature(&out))
        .is_some_and(|s| s == signature)
}

/// The smallest design found that keeps `fails` true, starting from `design` (for which it
/// must hold). `log` receives one line per kept edit.
pub fn reduce(
    design: &Design,
    mut fails: impl FnMut(&Design) -> bool,
    mut log: impl FnMut(&str),
) -> Design {
    let mut check = |d: &Design| catch_unwind(AssertUnwindSafe(|| fails(d))).unwrap_or(false);
    let mut cur = prune(design);
    if !check(&cur) {
        // Pruning alone changed the outcome (should not happen): keep the original.
        cur = design.clone();
    }
    log(&format!("start: {}", Size::of(&cur)));
    // 1. Top outputs.
    let mut k = 0;
    while k < cur.top().outputs.len() && cur.top().outputs.len() > 1 {
        let mut t = cur.clone();
        t.modules.last_mut().unwrap().outputs.remove(k);
        let t = prune(&t);
        if check(&t) {
            cur = t;
            log(&format!("output dropped: {}", Size::of(&cur)));
        } else {
            k += 1;
        }
    }
    loop {
        let before = Size::of(&cur);
        // 2. Nodes to zero, ddmin-style.
        let mut chunk = zero_candidates(&cur).len().div_ceil(2).max(1);
        loop {
            let mut progressed = false;
            let mut start = 0;
            loop {
                let cands = zero_candidates(&cur);
                if start >= cands.len() {
                    break;
                }
                let end = (start + chunk).min(cands.len());
                let mut t = cur.clone();
                for &(m, n) in &cands[start..end] {
                    let node = &mut t.modules[m].nodes[n as usize];
                    node.op = Op::Const(Bits::zero(node.width));
                }
                let t = prune(&t);
                if check(&t) {
                    cur = t;
                    progressed = true;
                    log(&format!("{} nodes zeroed: {}", end - start, Size::of(&cur)));
                } else {
                    start = end;
                }
            }
            if chunk == 1 && !progressed {
                break;
            }
            if !progressed {
                chunk = chunk.div_ceil(2).min(chunk - 1).max(1);
            }
        }
        // 3. Bypasses.
        let mut i = 0;
        loop {
            let cands = bypass_candidates(&cur);
            let Some(&(m, from, to)) = cands.get(i) else {
                break;
            };
            let mut t = cur.clone();
            substitute(&mut t.modules[m], from, to);
            let t = prune(&t);
            if check(&t) {
                cur = t;
                log(&format!("node bypassed: {}", Size::of(&cur)));
            } else {
                i += 1;
            }
        }
        if Size::of(&cur) == before {
            break;
        }
    }
    cur
}

/// Nodes worth replacing by zero: everything but inputs and zero constants (a register's,
/// read port's or instance's output replaced, [`prune`] drops the register, port or instance).
fn zero_candidates(d: &Design) -> Vec<(usize, NodeId)> {
    let mut v = Vec::new();
    for (mi, m) in d.modules.iter().enumerate() {
        for (ni, n) in m.nodes.iter().enumerate() {
            let skip = match &n.op {
                Op::Input(_) => true,
                Op::Const(b) => b.words().iter().all(|&w| w == 0),
                _ => false,
            };
            if !skip {
                v.push((mi, ni as NodeId));
            }
        }
    }
    v
}

/// `(module, node, operand)`: an operand of the node's width that could replace it.
fn bypass_candidates(d: &Design) -> Vec<(usize, NodeId, NodeId)> {
    let mut v = Vec::new();
    for (mi, m) in d.modules.iter().enumerate() {
        for (ni, n) in m.nodes.iter().enumerate() {
            if matches!(n.op, Op::Input(_)) {
                continue;
            }
            let mut ops = Vec::new();
            m.comb_operands(ni as NodeId, |o| ops.push(o));
            ops.dedup();
            for o in ops {
                if m.node(o).width == n.width && o != ni as NodeId {
                    v.push((mi, ni as NodeId, o));
                }
            }
        }
    }
    v
}

/// Every reader of `from` in `m` reads `to` instead.
fn substitute(m: &mut ModuleDef, from: NodeId, to: NodeId) {
    let f = |x: NodeId| if x == from { to } else { x };
    remap_module(m, &f);
}

/// Applies `f` to every node reference of `m` (ops, ports, registers, memories, instances).
fn remap_module(m: &mut ModuleDef, f: &impl Fn(NodeId) -> NodeId) {
    for n in &mut m.nodes {
        remap_op(&mut n.op, f);
    }
    for p in m.outputs.iter_mut() {
        p.node = f(p.node);
    }
    for r in &mut m.regs {
        r.next = r.next.map(f);
        r.enable = r.enable.map(f);
    }
    for mem in &mut m.mems {
        for w in &mut mem.writes {
            w.enable = f(w.enable);
            w.addr = f(w.addr);
            w.data = f(w.data);
        }
        for r in &mut mem.reads {
            r.addr = f(r.addr);
            r.enable = r.enable.map(f);
        }
    }
    for i in &mut m.insts {
        for x in i.inputs.iter_mut().flatten() {
            *x = f(*x);
        }
    }
}

/// Applies `f` to the operands of `op`.
fn remap_op(op: &mut Op, f: &impl Fn(NodeId) -> NodeId) {
    match op {
        Op::Input(_) | Op::Const(_) | Op::Reg(_) | Op::MemRead { .. } | Op::InstOut { .. } => {}
        Op::Wire(d) => *d = d.map(f),
        Op::Unary(_, a) | Op::Slice { a, .. } | Op::Extend { a, .. } => *a = f(*a),
        Op::Lut { index, .. } => *index = f(*index),
        Op::Binary(_, a, b) => {
            *a = f(*a);
            *b = f(*b);
        }
        Op::Mux {
            sel,
            on_true,
            on_false,
        } => {
            *sel = f(*sel);
            *on_true = f(*on_true);
            *on_false = f(*on_false);
        }
        Op::Concat(parts) => parts.iter_mut().for_each(|p| *p = f(*p)),
        Op::Select {
            index,
            cases,
            default,
        } => {
            *index = f(*index);
            cases.iter_mut().for_each(|c| *c = f(*c));
            *default = f(*default);
        }
    }
}

/// `design` without what no top output observes: dead nodes, registers, read ports,
/// memories, instances and unreachable module definitions, with every index renumbered.
pub fn prune(design: &Design) -> Design {
    let mut d = design.clone();
    for m in &mut d.modules {
        prune_module(m);
    }
    // Unreachable definitions (children come before parents; the top is last).
    let n = d.modules.len();
    let mut used = vec![false; n];
    used[n - 1] = true;
    for mi in (0..n).rev() {
        if used[mi] {
            for i in &d.modules[mi].insts {
                used[i.module] = true;
            }
        }
    }
    let mut new_index = vec![usize::MAX; n];
    let mut k = 0;
    for (mi, &u) in used.iter().enumerate() {
        if u {
            new_index[mi] = k;
            k += 1;
        }
    }
    let mut mi = 0;
    d.modules.retain(|_| {
        mi += 1;
        used[mi - 1]
    });
    for m in &mut d.modules {
        for i in &mut m.insts {
            i.module = new_index[i.module];
        }
    }
    d
}

/// Removes the dead parts of one definition (its ports stay: parents connect to them).
fn prune_module(m: &mut ModuleDef) {
    let n = m.nodes.len();
    let mut live = vec![false; n];
    let mut stack: Vec<NodeId> = m.outputs.iter().map(|p| p.node).collect();
    stack.extend(m.inputs.iter().map(|p| p.node));
    stack.extend(m.localparams.iter().copied());
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut live[id as usize], true) {
            continue;
        }
        match &m.nodes[id as usize].op {
            Op::Reg(r) => {
                let r = &m.regs[*r as usize];
                stack.extend(r.next.iter().chain(r.enable.iter()).copied());
            }
            Op::MemRead { mem, port } => {
                let mem = &m.mems[*mem as usize];
                let rp = &mem.reads[*port as usize];
                stack.push(rp.addr);
                stack.extend(rp.enable);
                for w in &mem.writes {
                    stack.extend([w.enable, w.addr, w.data]);
                }
            }
            Op::InstOut { inst, .. } => {
                stack.extend(m.insts[*inst as usize].inputs.iter().flatten().copied());
            }
            _ => {}
        }
        m.comb_operands(id, |o| stack.push(o));
    }
    // Registers, read ports, memories and instances whose output node is live (and still of
    // their kind: a node replaced by a constant frees its register).
    let reg_live: Vec<bool> = (0..m.regs.len())
        .map(|i| {
            let node = m.regs[i].node as usize;
            live[node] && m.nodes[node].op == Op::Reg(i as u32)
        })
        .collect();
    let port_live: Vec<Vec<bool>> = m
        .mems
        .iter()
        .enumerate()
        .map(|(mi, mem)| {
            (0..mem.reads.len())
                .map(|p| {
                    let node = mem.reads[p].node as usize;
                    live[node]
                        && m.nodes[node].op
                            == (Op::MemRead {
                                mem: mi as u32,
                                port: p as u32,
                            })
                })
                .collect()
        })
        .collect();
    let mem_live: Vec<bool> = port_live.iter().map(|p| p.iter().any(|&x| x)).collect();
    let mut inst_live = vec![false; m.insts.len()];
    for (id, node) in m.nodes.iter().enumerate() {
        if let Op::InstOut { inst, .. } = node.op {
            if live[id] {
                inst_live[inst as usize] = true;
            }
        }
    }
    // New indices.
    let renumber = |keep: &[bool]| -> Vec<u32> {
        let mut k = 0;
        keep.iter()
            .map(|&x| {
                let i = k;
                k += x as u32;
                if x {
                    i
                } else {
                    u32::MAX
                }
            })
            .collect()
    };
    let node_map = renumber(&live);
    let reg_map = renumber(&reg_live);
    let mem_map = renumber(&mem_live);
    let port_map: Vec<Vec<u32>> = port_live.iter().map(|p| renumber(p)).collect();
    let inst_map = renumber(&inst_live);
    let f = |x: NodeId| node_map[x as usize];
    let mut nodes = Vec::new();
    for (id, mut node) in std::mem::take(&mut m.nodes).into_iter().enumerate() {
        if !live[id] {
            continue;
        }
        match &mut node.op {
            Op::Reg(r) => *r = reg_map[*r as usize],
            Op::MemRead { mem, port } => {
                *port = port_map[*mem as usize][*port as usize];
                *mem = mem_map[*mem as usize];
            }
            Op::InstOut { inst, .. } => *inst = inst_map[*inst as usize],
            op => remap_op(op, &f),
        }
        nodes.push(node);
    }
    m.nodes = nodes;
    let mut i = 0;
    m.regs.retain(|_| {
        i += 1;
        reg_live[i - 1]
    });
    for r in &mut m.regs {
        r.node = f(r.node);
        r.next = r.next.map(f);
        r.enable = r.enable.map(f);
    }
    let mut mi = 0;
    m.mems.retain(|_| {
        mi += 1;
        mem_live[mi - 1]
    });
    let kept_ports: Vec<&Vec<bool>> = port_live
        .iter()
        .zip(&mem_live)
        .filter(|(_, &l)| l)
        .map(|(p, _)| p)
        .collect();
    for (mem, keep) in m.mems.iter_mut().zip(kept_ports) {
        let mut p = 0;
        mem.reads.retain(|_| {
            p += 1;
            keep[p - 1]
        });
        for r in &mut mem.reads {
            r.node = f(r.node);
            r.addr = f(r.addr);
            r.enable = r.enable.map(f);
        }
        for w in &mut mem.writes {
            w.enable = f(w.enable);
            w.addr = f(w.addr);
            w.data = f(w.data);
        }
    }
    let mut ii = 0;
    m.insts.retain(|_| {
        ii += 1;
        inst_live[ii - 1]
    });
    for inst in &mut m.insts {
        for x in inst.inputs.iter_mut().flatten() {
            *x = f(*x);
        }
    }
    for p in m.inputs.iter_mut().chain(m.outputs.iter_mut()) {
        p.node = f(p.node);
    }
    for x in &mut m.localparams {
        *x = f(*x);
    }
    m.enum_regs.retain(|(n, _)| live[*n as usize]);
    for (x, _) in &mut m.enum_regs {
        *x = f(*x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rendergen_hdl::{cat, Design as D};

    /// A fault's signature leaves out file names and positions (a reduced design has other
    /// ones) and keeps the message; output without an error has none.
    #[test]
    fn fault_signatures_ignore_positions() {
        let a = "%Error: Internal Error: fuzz_module_2.v:54:19: ../V3EmitCFunc.h:1031: \
                 Reduction over single bit value should have been folded\n   54 |   assign mux22";
        let b = "%Warning-WIDTH: x.v:3: ...\n%Error: Internal Error: fuzz_one.v:7:3: \
                 ../V3EmitCFunc.h:1031: Reduction over single bit value should have been folded";
        let want = "%Error: Internal Error: ../V3EmitCFunc.h:1031: Reduction over single bit \
                    value should have been folded";
        assert_eq!(fault_signature(a).as_deref(), Some(want));
        assert_eq!(fault_signature(b).as_deref(), Some(want));
        let other = "%Error: t.v:2:14: Value too wide for 32-bits expected in this context";
        assert_ne!(fault_signature(other).as_deref(), Some(want));
        assert_eq!(fault_signature("- V e r i l a t i o n   R e p o r t"), None);
        assert!(is_verilog_position("fuzz_module_2.v:54:19:"));
        assert!(!is_verilog_position("../V3EmitCFunc.h:1031:"));
    }

    /// Pruning keeps the behaviour and drops what no output sees; the reducer finds the
    /// one node a predicate looks for.
    #[test]
    fn prune_and_reduce_keep_what_the_predicate_needs() {
        let d = D::build("t", |m| {
            let a = m.input("a", 8);
            let b = m.input("b", 8);
            let r = m.reg("r", 8).reset(3);
            let dead = m.reg("dead", 4);
            dead.next(a.slice(0, 4));
            r.next(a + b);
            let mem = m.memory("mem", 8, 4).init(&[1, 2, 3, 4]);
            let q = mem.read_comb(a.slice(0, 2));
            mem.write(b.bit(0), a.slice(2, 2), b);
            let _unused = mem.read_sync(b.slice(0, 2), None);
            m.output("o", cat(&[r.q() ^ q, a.lt(b)]));
        })
        .unwrap();
        let p = prune(&d);
        assert_eq!(Size::of(&p).regs, 1);
        assert_eq!(p.modules[0].mems[0].reads.len(), 1);
        let h = |d: &Design| run_recorded(d, 20, 5).0;
        assert_eq!(h(&d), h(&p), "pruning changed the outputs");
        // "Fails" while the design still holds an unsigned less-than.
        let has_lt = |d: &Design| {
            d.modules.iter().any(|m| {
                m.nodes
                    .iter()
                    .any(|n| matches!(n.op, Op::Binary(rendergen_hdl::ir::BinOp::Lt, _, _)))
            })
        };
        let r = reduce(&d, has_lt, |_| {});
        let s = Size::of(&r);
        assert!(has_lt(&r));
        assert_eq!((s.regs, s.mems), (0, 0), "{s}");
        // Inputs a, b, the compare, and the output's zeroed/bypassed remains.
        assert!(s.nodes <= 5, "{s}: {:?}", r.modules[0].nodes);
        run_recorded(&r, 4, 1);
    }
}
