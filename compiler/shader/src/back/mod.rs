//! IR → instruction words: instruction selection onto virtual registers, list scheduling for
//! latency ([`sched`]), linear-scan register allocation with register groups
//! ([`regalloc`]), then control-flow targets and encoding.
//!
//! Control flow maps one-to-one: `If` → `if`/`else`/`endif` with the phis' copies at the end
//! of each branch; `Loop` → copies of the initial values, `loop` … copies of the next values,
//! `endloop`; `Break` with values → `if c` / copies / `brk c` / `endif` (without values, just
//! `brk c`); `Continue` likewise with `cont`. Copies into loop parameters are parallel copies
//! (through temporaries where a source is another parameter).

pub mod latency;
pub mod regalloc;
pub mod sched;

use crate::ir::{Op, Program, Stmt, Value};
use rendergen_shader_isa::asm::{resolve, Control};
use rendergen_shader_isa::{Inst, Opcode};
use std::collections::HashMap;

/// A register operand: component `k` of virtual register group `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opnd {
    /// The group.
    pub v: u32,
    /// The component.
    pub k: u8,
}

/// An instruction on virtual registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VInst {
    /// The opcode.
    pub op: Opcode,
    /// Destination (tex: component 0 of a 4-group).
    pub d: Option<Opnd>,
    /// Sources in field order `a, b, c` (tex: component 0 of the coordinate pair; export:
    /// the first of `n`).
    pub srcs: Vec<Opnd>,
    /// Immediate (targets are filled in at encoding).
    pub imm: u32,
    /// `export`'s count.
    pub count: u8,
}

impl VInst {
    fn new(op: Opcode, d: Option<Opnd>, srcs: Vec<Opnd>, imm: u32) -> VInst {
        VInst {
            op,
            d,
            srcs,
            imm,
            count: 0,
        }
    }

    /// Whether it is control flow (a scheduling barrier).
    pub fn is_control(&self) -> bool {
        self.op.unit() == rendergen_shader_isa::Unit::Control
    }

    /// Operand groups it reads, with the number of consecutive components read.
    pub fn reads(&self) -> Vec<(Opnd, usize)> {
        match self.op {
            Opcode::Tex => vec![(self.srcs[0], 2)],
            Opcode::Export => vec![(self.srcs[0], self.count as usize)],
            _ => self.srcs.iter().map(|&s| (s, 1)).collect(),
        }
    }

    /// Components it writes.
    pub fn writes(&self) -> Option<(Opnd, usize)> {
        self.d
            .map(|d| (d, if self.op == Opcode::Tex { 4 } else { 1 }))
    }
}

/// The virtual-register program.
#[derive(Clone, Debug, Default)]
pub struct VProg {
    /// Instructions.
    pub insts: Vec<VInst>,
    /// Size of each group.
    pub sizes: Vec<u8>,
    /// Groups fixed to a physical register (launch inputs).
    pub fixed: HashMap<u32, u8>,
}

impl VProg {
    fn group(&mut self, size: u8) -> u32 {
        self.sizes.push(size);
        self.sizes.len() as u32 - 1
    }
    fn reg(&mut self) -> Opnd {
        Opnd {
            v: self.group(1),
            k: 0,
        }
    }
}

/// What [`generate`] produces.
#[derive(Clone, Debug)]
pub struct Generated {
    /// Instruction words.
    pub words: Vec<u64>,
    /// Their number.
    pub instructions: usize,
    /// Registers used (highest index + 1).
    pub registers: usize,
    /// Estimated cycles of the instruction list before scheduling (each instruction once).
    pub cycles_unscheduled: u64,
    /// The same after scheduling.
    pub cycles_scheduled: u64,
    /// The scheduling window that fitted the core's registers (`usize::MAX`: whole regions;
    /// 0: not scheduled; see [`SCHEDULE_WINDOWS`]).
    pub schedule_window: usize,
}

/// Instruction selection, scheduling (if `schedule`), register allocation and encoding for a
/// core with `regs` registers per lane. Constants live in registers from the program's start;
/// if that does not fit, they are rematerialised before each use.
///
/// Scheduling for latency hoists long-latency instructions (samples, loads) above their uses
/// and so raises register pressure. When the whole-region schedule does not fit in `regs`, the
/// list is scheduled again in windows of [`SCHEDULE_WINDOWS`] instructions (each smaller
/// window hoists less), and finally kept in source order; the first that fits is taken, before
/// constants are rematerialised.
pub fn generate(p: &Program, regs: usize, schedule: bool) -> Result<Generated, String> {
    let mut last_err = String::new();
    let windows: &[usize] = if schedule { &SCHEDULE_WINDOWS } else { &[0] };
    for remat in [false, true] {
        for &window in windows {
            let mut v = select(p, remat);
            let cycles_unscheduled = sched::estimate(&v.insts);
            if window > 0 {
                sched::schedule(&mut v.insts, window);
            }
            let cycles_scheduled = sched::estimate(&v.insts);
            match regalloc::allocate(&v, regs) {
                Ok(assign) => {
                    let (words, used) = encode(&v, &assign)?;
                    return Ok(Generated {
                        instructions: words.len(),
                        words,
                        registers: used,
                        cycles_unscheduled,
                        cycles_scheduled,
                        schedule_window: window,
                    });
                }
                Err(e) => last_err = e,
            }
        }
    }
    Err(last_err)
}

/// The scheduling windows [`generate`] tries in turn: whole regions, then windows of 64 … 4
/// instructions, then none (0: source order).
pub const SCHEDULE_WINDOWS: [usize; 7] = [usize::MAX, 64, 32, 16, 8, 4, 0];

struct Select {
    v: VProg,
    /// Where each IR value lives.
    at: HashMap<Value, Opnd>,
    /// Constant of each IR value that is one.
    consts: HashMap<Value, u32>,
    /// Constant words materialised at the start (shared) or per use.
    const_regs: HashMap<u32, Opnd>,
    remat: bool,
    /// (params, results) of the enclosing loops.
    loops: Vec<(Vec<Opnd>, Vec<Opnd>)>,
    /// IR uses of each value.
    uses: HashMap<Value, usize>,
}

/// Instruction selection onto virtual registers.
pub fn select(p: &Program, remat: bool) -> VProg {
    let mut s = Select {
        v: VProg::default(),
        at: HashMap::new(),
        consts: HashMap::new(),
        const_regs: HashMap::new(),
        remat,
        loops: Vec::new(),
        uses: HashMap::new(),
    };
    crate::ir::walk(&p.body, &mut |st| {
        for u in crate::ir::uses(st) {
            *s.uses.entry(u).or_insert(0) += 1;
        }
    });
    crate::ir::walk(&p.body, &mut |st| {
        if let Stmt::Def {
            dst,
            op: Op::Const(w),
        } = st
        {
            s.consts.insert(*dst, *w);
        }
    });
    s.block(&p.body);
    s.v.insts.push(VInst::new(Opcode::End, None, vec![], 0));
    // Shared constants: one movi each at the start.
    let mut pre: Vec<VInst> = s
        .const_regs
        .iter()
        .map(|(&w, &o)| VInst::new(Opcode::Movi, Some(o), vec![], w))
        .collect();
    pre.sort_by_key(|i| i.d.unwrap().v);
    pre.append(&mut s.v.insts);
    s.v.insts = pre;
    s.v
}

impl Select {
    fn emit(&mut self, i: VInst) {
        self.v.insts.push(i);
    }

    /// The register holding IR value `x`.
    fn reg(&mut self, x: Value) -> Opnd {
        if let Some(&w) = self.consts.get(&x) {
            return self.const_reg(w);
        }
        self.at[&x]
    }

    fn const_reg(&mut self, w: u32) -> Opnd {
        if self.remat {
            let r = self.v.reg();
            self.emit(VInst::new(Opcode::Movi, Some(r), vec![], w));
            return r;
        }
        if let Some(&r) = self.const_regs.get(&w) {
            return r;
        }
        let r = self.v.reg();
        self.const_regs.insert(w, r);
        r
    }

    fn mov(&mut self, d: Opnd, x: Value) {
        if let Some(&w) = self.consts.get(&x) {
            self.emit(VInst::new(Opcode::Movi, Some(d), vec![], w));
        } else {
            let s = self.at[&x];
            if s != d {
                self.emit(VInst::new(Opcode::Mov, Some(d), vec![s], 0));
            }
        }
    }

    /// `dsts ← srcs` as a parallel copy.
    fn parallel_copy(&mut self, dsts: &[Opnd], srcs: &[Value]) {
        let clash = srcs.iter().enumerate().any(|(i, x)| {
            !self.consts.contains_key(x)
                && dsts
                    .iter()
                    .enumerate()
                    .any(|(j, d)| j != i && self.at.get(x) == Some(d))
        });
        if clash {
            let temps: Vec<Opnd> = srcs
                .iter()
                .map(|&x| {
                    let t = self.v.reg();
                    self.mov(t, x);
                    t
                })
                .collect();
            for (d, t) in dsts.iter().zip(temps) {
                self.emit(VInst::new(Opcode::Mov, Some(*d), vec![t], 0));
            }
        } else {
            for (d, &x) in dsts.iter().zip(srcs) {
                self.mov(*d, x);
            }
        }
    }

    /// The values in consecutive components of one group (for `tex` and `export`): reuse the
    /// group if they already are, else copy them into a new one.
    fn consecutive(&mut self, xs: &[Value]) -> Opnd {
        let ops: Vec<Option<Opnd>> = xs
            .iter()
            .map(|x| (!self.consts.contains_key(x)).then(|| self.at[x]))
            .collect();
        if let Some(Some(first)) = ops.first() {
            let ok = ops.iter().enumerate().all(|(i, o)| {
                *o == Some(Opnd {
                    v: first.v,
                    k: first.k + i as u8,
                })
            }) && !self.v.fixed.contains_key(&first.v);
            if ok {
                return *first;
            }
        }
        let g = self.v.group(xs.len() as u8);
        for (i, &x) in xs.iter().enumerate() {
            let to = Opnd { v: g, k: i as u8 };
            // A value used only here is computed straight into the group (no copy).
            let own = self.at.get(&x).copied().filter(|o| {
                self.uses.get(&x) == Some(&1)
                    && self.v.sizes[o.v as usize] == 1
                    && !self.v.fixed.contains_key(&o.v)
            });
            match own {
                Some(o) => {
                    for inst in &mut self.v.insts {
                        for op in inst.d.iter_mut().chain(inst.srcs.iter_mut()) {
                            if *op == o {
                                *op = to;
                            }
                        }
                    }
                    // Everything naming the register now names the group's component.
                    for (ps, rs) in self.loops.iter_mut() {
                        for op in ps.iter_mut().chain(rs.iter_mut()) {
                            if *op == o {
                                *op = to;
                            }
                        }
                    }
                    for op in self.at.values_mut() {
                        if *op == o {
                            *op = to;
                        }
                    }
                }
                None => self.mov(to, x),
            }
        }
        Opnd { v: g, k: 0 }
    }

    fn block(&mut self, b: &[Stmt]) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Def { dst, op } => self.def(*dst, op),
            Stmt::Tex {
                dst,
                sampler,
                coord,
            } => {
                let c = self.consecutive(coord);
                let g = self.v.group(4);
                for (i, d) in dst.iter().enumerate() {
                    self.at.insert(*d, Opnd { v: g, k: i as u8 });
                }
                self.emit(VInst::new(
                    Opcode::Tex,
                    Some(Opnd { v: g, k: 0 }),
                    vec![c],
                    *sampler,
                ));
            }
            Stmt::Spec { dst, func, a, b } => {
                let d = self.v.reg();
                let a = self.reg(*a);
                let b = self.reg(*b);
                self.emit(VInst::new(Opcode::Spec, Some(d), vec![a, b], *func));
                self.at.insert(*dst, d);
            }
            Stmt::Store { addr, imm, value } => {
                let a = self.reg(*addr);
                let b = self.reg(*value);
                self.emit(VInst::new(Opcode::Stg, None, vec![a, b], *imm));
            }
            Stmt::Export { loc, values } => {
                let a = self.consecutive(values);
                let mut i = VInst::new(Opcode::Export, None, vec![a], *loc);
                i.count = values.len() as u8;
                self.emit(i);
            }
            Stmt::If {
                cond,
                then,
                els,
                phis,
            } => {
                let c = self.reg(*cond);
                let dsts: Vec<Opnd> = phis.iter().map(|_| self.v.reg()).collect();
                self.emit(VInst::new(Opcode::If, None, vec![c], 0));
                self.block(then);
                let tv: Vec<Value> = phis.iter().map(|p| p.then).collect();
                self.parallel_copy(&dsts, &tv);
                if !els.is_empty() || !phis.is_empty() {
                    self.emit(VInst::new(Opcode::Else, None, vec![], 0));
                    self.block(els);
                    let ev: Vec<Value> = phis.iter().map(|p| p.els).collect();
                    self.parallel_copy(&dsts, &ev);
                }
                self.emit(VInst::new(Opcode::Endif, None, vec![], 0));
                for (p, d) in phis.iter().zip(dsts) {
                    self.at.insert(p.dst, d);
                }
            }
            Stmt::Loop {
                params,
                init,
                body,
                next,
                results,
            } => {
                let ps: Vec<Opnd> = params.iter().map(|_| self.v.reg()).collect();
                let rs: Vec<Opnd> = results.iter().map(|_| self.v.reg()).collect();
                self.parallel_copy(&ps, init);
                for (p, r) in params.iter().zip(&ps) {
                    self.at.insert(*p, *r);
                }
                self.loops.push((ps.clone(), rs.clone()));
                self.emit(VInst::new(Opcode::Loop, None, vec![], 0));
                self.block(body);
                self.parallel_copy(&ps, next);
                self.emit(VInst::new(Opcode::Endloop, None, vec![], 0));
                self.loops.pop();
                for (x, r) in results.iter().zip(rs) {
                    self.at.insert(*x, r);
                }
            }
            Stmt::Break { cond, args } | Stmt::Continue { cond, args } => {
                let brk = matches!(s, Stmt::Break { .. });
                let (ps, rs) = self.loops.last().unwrap().clone();
                let dsts = if brk { rs } else { ps };
                let op = if brk { Opcode::Brk } else { Opcode::Cont };
                let always = self.consts.get(cond).is_some_and(|&w| w != 0);
                if args.is_empty() || always {
                    self.parallel_copy(&dsts, args);
                    let c = self.reg(*cond);
                    self.emit(VInst::new(op, None, vec![c], 0));
                } else {
                    let c = self.reg(*cond);
                    self.emit(VInst::new(Opcode::If, None, vec![c], 0));
                    self.parallel_copy(&dsts, args);
                    let c = self.reg(*cond);
                    self.emit(VInst::new(op, None, vec![c], 0));
                    self.emit(VInst::new(Opcode::Endif, None, vec![], 0));
                }
            }
        }
    }

    fn def(&mut self, dst: Value, op: &Op) {
        match op {
            Op::Const(_) => {}
            Op::Input(r) => {
                let g = self.v.group(1);
                self.v.fixed.insert(g, *r);
                self.at.insert(dst, Opnd { v: g, k: 0 });
            }
            Op::Uniform(i) => {
                let d = self.v.reg();
                self.emit(VInst::new(Opcode::Ldu, Some(d), vec![], *i));
                self.at.insert(dst, d);
            }
            Op::Load(a, imm) => {
                let d = self.v.reg();
                let a = self.reg(*a);
                self.emit(VInst::new(Opcode::Ldg, Some(d), vec![a], *imm));
                self.at.insert(dst, d);
            }
            Op::Copy(x) => {
                if let Some(&w) = self.consts.get(x) {
                    self.consts.insert(dst, w);
                } else {
                    let o = self.at[x];
                    self.at.insert(dst, o);
                }
            }
            Op::Alu(code, args) => {
                let d = self.v.reg();
                self.at.insert(dst, d);
                if let Some(i) = self.immediate_form(*code, args, d) {
                    self.emit(i);
                    return;
                }
                let srcs = args.iter().map(|&a| self.reg(a)).collect();
                self.emit(VInst::new(*code, Some(d), srcs, 0));
            }
        }
    }

    /// An immediate form for an operation with a constant operand.
    fn immediate_form(&mut self, code: Opcode, args: &[Value], d: Opnd) -> Option<VInst> {
        use Opcode as O;
        if args.len() != 2 {
            return None;
        }
        let (a, b) = (args[0], args[1]);
        let ca = self.consts.get(&a).copied();
        let cb = self.consts.get(&b).copied();
        let commutative = matches!(
            code,
            O::Fadd | O::Fmul | O::Iadd | O::Imul | O::And | O::Or | O::Xor
        );
        let (x, k) = match (ca, cb) {
            (_, Some(k)) => (a, k),
            (Some(k), None) if commutative => (b, k),
            _ => return None,
        };
        if self.consts.contains_key(&x) {
            return None;
        }
        let (op, imm) = match code {
            O::Fadd => (O::Faddi, k),
            O::Fsub => (O::Faddi, k ^ 0x8000_0000),
            O::Fmul => (O::Fmuli, k),
            O::Iadd => (O::Iaddi, k),
            O::Isub => (O::Iaddi, k.wrapping_neg()),
            O::Imul => (O::Imuli, k),
            O::And => (O::Andi, k),
            O::Or => (O::Ori, k),
            O::Xor => (O::Xori, k),
            O::Shl => (O::Shli, k),
            O::Shr => (O::Shri, k),
            O::Sar => (O::Sari, k),
            _ => return None,
        };
        // fsub with a NaN immediate: the sign flip is harmless (NaN is canonical either way).
        let src = self.at[&x];
        Some(VInst::new(op, Some(d), vec![src], imm))
    }
}

/// Physical registers, control targets and words.
fn encode(v: &VProg, assign: &[u8]) -> Result<(Vec<u64>, usize), String> {
    let phys = |o: Opnd| assign[o.v as usize] + o.k;
    let mut insts: Vec<Inst> = Vec::new();
    let mut used = 0usize;
    for vi in &v.insts {
        let mut i = Inst::new(vi.op);
        i.imm = vi.imm;
        if let Some(d) = vi.d {
            i.d = phys(d);
        }
        let s: Vec<u8> = vi.srcs.iter().map(|&o| phys(o)).collect();
        use rendergen_shader_isa::Format as F;
        match vi.op.format() {
            F::Export => {
                i.a = s[0];
                i.b = vi.count;
            }
            F::Abi => {
                i.a = s[0];
                i.b = s[1];
            }
            _ => {
                if let Some(&a) = s.first() {
                    i.a = a;
                }
                if let Some(&b) = s.get(1) {
                    i.b = b;
                }
                if let Some(&c) = s.get(2) {
                    i.c = c;
                }
            }
        }
        if vi.op == Opcode::Mov && i.d == i.a {
            continue;
        }
        used = used.max(i.regs_needed());
        insts.push(i);
    }
    let ctl: Vec<Control> = insts
        .iter()
        .enumerate()
        .map(|(pc, i)| Control {
            op: Some(i.op),
            pc: pc as u32,
            line: pc + 1,
        })
        .collect();
    let (targets, errors) = resolve(&ctl);
    if let Some((_, e)) = errors.first() {
        return Err(format!(
            "the program's control flow does not fit the core's mask stack ({} levels): {e}",
            rendergen_shader_isa::MAX_DEPTH
        ));
    }
    for (i, t) in insts.iter_mut().zip(targets) {
        if let Some(t) = t {
            i.imm = t;
        }
    }
    Ok((insts.iter().map(Inst::encode).collect(), used))
}
