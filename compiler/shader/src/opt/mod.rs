//! Optimisation passes over the IR.
//!
//! * [`copy_prop`]: uses of a copy read its source.
//! * [`fold`]: constant propagation over [`Lattice`] (optimistic: loop parameters start at ⊤),
//!   folding of operations whose hardware result the host reproduces exactly (integer ops;
//!   FP add/sub/mul/fma/min/max/compares/abs/neg and int→float conversions through
//!   [`eval`]), `if` on a constant, `sel` on a constant.
//! * [`simplify_loops`]: a loop parameter that is only ever its initial value or itself is
//!   the initial value; a result that every break gives the same outside value is that value
//!   (this removes the state the front end carries through one-trip wrapper loops).
//! * [`cse`]: common subexpressions, scoped by the block tree (derivatives only within one
//!   block: they depend on the quad's mask).
//! * [`contract`]: `fadd(fmul(a, b), c)` → `ffma(a, b, c)` where the multiply has no other
//!   use (GLSL allows it unless `precise`; naga drops `precise`, so every GLSL product is
//!   contractible; WGSL programs are not contracted by default — see [`crate::Options`]).
//! * [`dce`]: dead values, phis, loop parameters and results; code after an unconditional
//!   break or continue; empty `if`s.

pub mod eval;

use crate::ir::{defs, map_uses, uses, walk, walk_mut, Lattice, Op, Phi, Program, Stmt, Ty, Value};
use rendergen_shader_isa::Opcode;
use std::collections::{HashMap, HashSet};

/// Runs the passes to a fixed point (at most a few rounds).
pub fn optimise(p: &mut Program, contract_fma: bool) {
    for _ in 0..4 {
        let before = p.clone();
        copy_prop(p);
        fold(p);
        copy_prop(p);
        simplify_loops(p);
        copy_prop(p);
        cse(p);
        dce(p);
        if *p == before {
            break;
        }
    }
    if contract_fma {
        contract(p);
        dce(p);
    }
}

/// Replaces every use through `sub` (following chains).
fn substitute(p: &mut Program, sub: &HashMap<Value, Value>) {
    if sub.is_empty() {
        return;
    }
    let resolve = |mut v: Value| {
        while let Some(&n) = sub.get(&v) {
            v = n;
        }
        v
    };
    walk_mut(&mut p.body, &mut |s| map_uses(s, &mut |v| resolve(v)));
}

/// Uses of copies read the copied value; the copies go.
pub fn copy_prop(p: &mut Program) {
    let mut sub = HashMap::new();
    walk(&p.body, &mut |s| {
        if let Stmt::Def {
            dst,
            op: Op::Copy(src),
        } = s
        {
            sub.insert(*dst, *src);
        }
    });
    substitute(p, &sub);
    remove_defs(&mut p.body, &|s| {
        matches!(
            s,
            Stmt::Def {
                op: Op::Copy(_),
                ..
            }
        )
    });
}

fn remove_defs(b: &mut Vec<Stmt>, dead: &dyn Fn(&Stmt) -> bool) {
    b.retain(|s| !dead(s));
    for s in b {
        match s {
            Stmt::If { then, els, .. } => {
                remove_defs(then, dead);
                remove_defs(els, dead);
            }
            Stmt::Loop { body, .. } => remove_defs(body, dead),
            _ => {}
        }
    }
}

/// The lattice value of every value, to a fixed point.
pub fn lattice(p: &Program) -> Vec<Lattice> {
    let mut lat = vec![Lattice::Top; p.types.len()];
    loop {
        let mut changed = false;
        let mut set = |lat: &mut Vec<Lattice>, v: Value, x: Lattice| {
            let old = lat[v.0 as usize];
            let new = old.meet(x);
            if new != old {
                lat[v.0 as usize] = new;
                changed = true;
            }
        };
        propagate(&p.body, &mut lat, &mut set, &mut Vec::new());
        if !changed {
            return lat;
        }
    }
}

type Setter<'a> = dyn FnMut(&mut Vec<Lattice>, Value, Lattice) + 'a;

/// One sweep; `loops` holds the (params, results) of the enclosing loops.
fn propagate(
    b: &[Stmt],
    lat: &mut Vec<Lattice>,
    set: &mut Setter,
    loops: &mut Vec<(Vec<Value>, Vec<Value>)>,
) {
    for s in b {
        match s {
            Stmt::Def { dst, op } => {
                let x = match op {
                    Op::Const(w) => Lattice::Const(*w),
                    Op::Input(_) | Op::Uniform(_) | Op::Load(..) => Lattice::Bottom,
                    Op::Copy(v) => lat[v.0 as usize],
                    Op::Alu(code, args) => {
                        let a: Vec<Lattice> = args.iter().map(|v| lat[v.0 as usize]).collect();
                        if a.contains(&Lattice::Bottom) {
                            // sel with a constant condition needs only the chosen operand.
                            match (code, a.as_slice()) {
                                (Opcode::Sel, [Lattice::Const(c), x, y]) => {
                                    if *c != 0 {
                                        *x
                                    } else {
                                        *y
                                    }
                                }
                                _ => Lattice::Bottom,
                            }
                        } else if a.contains(&Lattice::Top) {
                            Lattice::Top
                        } else {
                            let w: Vec<u32> = a
                                .iter()
                                .map(|l| if let Lattice::Const(w) = l { *w } else { 0 })
                                .collect();
                            eval::eval(*code, &w).map_or(Lattice::Bottom, Lattice::Const)
                        }
                    }
                };
                set(lat, *dst, x);
            }
            Stmt::Tex { dst, .. } => dst.iter().for_each(|d| set(lat, *d, Lattice::Bottom)),
            Stmt::Spec { dst, .. } => set(lat, *dst, Lattice::Bottom),
            Stmt::Export { .. } | Stmt::Store { .. } => {}
            Stmt::If {
                cond,
                then,
                els,
                phis,
            } => {
                let c = lat[cond.0 as usize];
                if c != Lattice::Const(0) {
                    propagate(then, lat, set, loops);
                }
                if !matches!(c, Lattice::Const(x) if x != 0) {
                    propagate(els, lat, set, loops);
                }
                for Phi { dst, then, els } in phis {
                    let x = match c {
                        Lattice::Const(0) => lat[els.0 as usize],
                        Lattice::Const(_) => lat[then.0 as usize],
                        Lattice::Top => Lattice::Top,
                        Lattice::Bottom => lat[then.0 as usize].meet(lat[els.0 as usize]),
                    };
                    set(lat, *dst, x);
                }
            }
            Stmt::Loop {
                params,
                init,
                body,
                next,
                results,
            } => {
                for (p, i) in params.iter().zip(init) {
                    set(lat, *p, lat[i.0 as usize]);
                }
                loops.push((params.clone(), results.clone()));
                propagate(body, lat, set, loops);
                loops.pop();
                for (p, n) in params.iter().zip(next) {
                    set(lat, *p, lat[n.0 as usize]);
                }
            }
            Stmt::Break { cond, args } | Stmt::Continue { cond, args } => {
                if lat[cond.0 as usize] == Lattice::Const(0) {
                    continue;
                }
                let (ps, rs) = loops.last().unwrap().clone();
                let targets = if matches!(s, Stmt::Break { .. }) {
                    rs
                } else {
                    ps
                };
                for (t, a) in targets.iter().zip(args) {
                    set(lat, *t, lat[a.0 as usize]);
                }
            }
        }
    }
}

/// Constant propagation and folding (see the module documentation).
pub fn fold(p: &mut Program) {
    let lat = lattice(p);
    // Values proven constant become constant definitions (a Def) or uses of a constant.
    let mut consts: HashMap<(u32, Ty), Value> = HashMap::new();
    walk(&p.body, &mut |s| {
        if let Stmt::Def {
            dst,
            op: Op::Const(w),
        } = s
        {
            consts.entry((*w, p.types[dst.0 as usize])).or_insert(*dst);
        }
    });
    let mut new_consts = Vec::new();
    let mut sub = HashMap::new();
    for (i, l) in lat.iter().enumerate() {
        if let Lattice::Const(w) = l {
            let v = Value(i as u32);
            let ty = p.types[i];
            let c = *consts.entry((*w, ty)).or_insert_with(|| {
                p.types.push(ty);
                let c = Value(p.types.len() as u32 - 1);
                new_consts.push(Stmt::Def {
                    dst: c,
                    op: Op::Const(*w),
                });
                c
            });
            if c != v {
                sub.insert(v, c);
            }
        }
    }
    let mut body = new_consts;
    body.append(&mut p.body);
    p.body = body;
    substitute(p, &sub);
    // Constant conditions select a branch.
    let is_const = |v: Value| match lat.get(v.0 as usize) {
        Some(Lattice::Const(w)) => Some(*w),
        _ => None,
    };
    let mut konst: HashMap<Value, u32> = HashMap::new();
    walk(&p.body, &mut |s| {
        if let Stmt::Def {
            dst,
            op: Op::Const(w),
        } = s
        {
            konst.insert(*dst, *w);
        }
    });
    let k = |v: Value| konst.get(&v).copied().or_else(|| is_const(v));
    fold_branches(&mut p.body, &k);
    walk_mut(&mut p.body, &mut |s| {
        if let Stmt::Def { op, .. } = s {
            if let Op::Alu(Opcode::Sel, a) = op {
                if let Some(c) = k(a[0]) {
                    *op = Op::Copy(if c != 0 { a[1] } else { a[2] });
                }
            }
        }
    });
}

fn fold_branches(b: &mut Vec<Stmt>, k: &dyn Fn(Value) -> Option<u32>) {
    let mut out = Vec::with_capacity(b.len());
    for mut s in b.drain(..) {
        match &mut s {
            Stmt::If { then, els, .. } => {
                fold_branches(then, k);
                fold_branches(els, k);
            }
            Stmt::Loop { body, .. } => fold_branches(body, k),
            _ => {}
        }
        match s {
            Stmt::If {
                cond,
                then,
                els,
                phis,
            } if k(cond).is_some() => {
                let taken = k(cond).unwrap() != 0;
                out.extend(if taken { then } else { els });
                for ph in phis {
                    let src = if taken { ph.then } else { ph.els };
                    out.push(Stmt::Def {
                        dst: ph.dst,
                        op: Op::Copy(src),
                    });
                }
            }
            Stmt::Break { cond, .. } | Stmt::Continue { cond, .. } if k(cond) == Some(0) => {}
            // Both branches the same (so they define nothing): no branch needed.
            Stmt::If {
                then, els, phis, ..
            } if phis.is_empty() && then == els => out.extend(then),
            // A loop whose only exit is the unconditional break that ends its body runs once.
            Stmt::Loop {
                params,
                init,
                mut body,
                results,
                ..
            } if params.is_empty() && one_trip_only(&body, k) => {
                let Some(Stmt::Break { args, .. }) = body.pop() else {
                    unreachable!()
                };
                let _ = (params, init);
                out.extend(body);
                for (r, a) in results.into_iter().zip(args) {
                    out.push(Stmt::Def {
                        dst: r,
                        op: Op::Copy(a),
                    });
                }
            }
            s => out.push(s),
        }
    }
    *b = out;
}

/// Whether a loop body ends with an unconditional break and has no other break or continue
/// of its own (so it runs exactly once and its parameters are their initial values).
fn one_trip_only(body: &[Stmt], k: &dyn Fn(Value) -> Option<u32>) -> bool {
    let Some(Stmt::Break { cond, .. }) = body.last() else {
        return false;
    };
    if k(*cond).is_none_or(|c| c == 0) {
        return false;
    }
    let (mut conts, mut brks) = (Vec::new(), Vec::new());
    exits(&body[..body.len() - 1], &mut conts, &mut brks);
    conts.is_empty() && brks.is_empty()
}

/// Redundant loop parameters and results (see the module documentation).
pub fn simplify_loops(p: &mut Program) {
    let mut sub = HashMap::new();
    simplify_block(&mut p.body, &mut sub);
    substitute(p, &sub);
}

/// Values of the Continue / Break statements of the loop whose body is `b` (not nested).
fn exits(b: &[Stmt], conts: &mut Vec<Vec<Value>>, brks: &mut Vec<Vec<Value>>) {
    for s in b {
        match s {
            Stmt::Continue { args, .. } => conts.push(args.clone()),
            Stmt::Break { args, .. } => brks.push(args.clone()),
            Stmt::If { then, els, .. } => {
                exits(then, conts, brks);
                exits(els, conts, brks);
            }
            _ => {}
        }
    }
}

fn defined_in(b: &[Stmt]) -> HashSet<Value> {
    let mut d = HashSet::new();
    walk(b, &mut |s| d.extend(defs(s)));
    d
}

/// Whether the block ends every path with an unconditional exit (its end is unreachable).
fn ends_unconditionally(b: &[Stmt], konst: &dyn Fn(Value) -> bool) -> bool {
    b.iter().any(
        |s| matches!(s, Stmt::Break { cond, .. } | Stmt::Continue { cond, .. } if konst(*cond)),
    )
}

fn simplify_block(b: &mut [Stmt], sub: &mut HashMap<Value, Value>) {
    let mut nonzero: HashSet<Value> = HashSet::new();
    walk(b, &mut |s| {
        if let Stmt::Def {
            dst,
            op: Op::Const(w),
        } = s
        {
            if *w != 0 {
                nonzero.insert(*dst);
            }
        }
    });
    simplify_rec(b, sub, &nonzero);
}

fn simplify_rec(b: &mut [Stmt], sub: &mut HashMap<Value, Value>, nonzero: &HashSet<Value>) {
    for s in b.iter_mut() {
        match s {
            Stmt::If { then, els, .. } => {
                simplify_rec(then, sub, nonzero);
                simplify_rec(els, sub, nonzero);
            }
            Stmt::Loop {
                params,
                init,
                body,
                next,
                results,
            } => {
                simplify_rec(body, sub, nonzero);
                let (mut conts, mut brks) = (Vec::new(), Vec::new());
                exits(body, &mut conts, &mut brks);
                let one_trip = ends_unconditionally(body, &|v| nonzero.contains(&v));
                let inside = defined_in(body);
                for i in 0..params.len() {
                    let (pv, iv) = (params[i], init[i]);
                    let same = |v: Value| v == pv || v == iv;
                    if (one_trip || same(next[i])) && conts.iter().all(|a| same(a[i])) {
                        sub.insert(pv, iv);
                    }
                }
                for i in 0..results.len() {
                    let resolve = |mut v: Value| {
                        while let Some(&n) = sub.get(&v) {
                            v = n;
                        }
                        v
                    };
                    let vals: HashSet<Value> = brks.iter().map(|a| resolve(a[i])).collect();
                    if vals.len() == 1 {
                        let v = *vals.iter().next().unwrap();
                        if !inside.contains(&v) && !params.contains(&v) {
                            sub.insert(results[i], v);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Common subexpression elimination over the block tree.
pub fn cse(p: &mut Program) {
    let mut sub = HashMap::new();
    let mut scopes: Vec<HashMap<Op, Value>> = Vec::new();
    cse_block(&mut p.body, &mut scopes, &mut sub, &p.types);
    substitute(p, &sub);
    let dead: HashSet<Value> = sub.keys().copied().collect();
    remove_defs(
        &mut p.body,
        &|s| matches!(s, Stmt::Def { dst, .. } if dead.contains(dst)),
    );
}

fn cse_block(
    b: &mut [Stmt],
    scopes: &mut Vec<HashMap<Op, Value>>,
    sub: &mut HashMap<Value, Value>,
    types: &[Ty],
) {
    scopes.push(HashMap::new());
    for s in b.iter_mut() {
        map_uses(s, &mut |v| *sub.get(&v).unwrap_or(&v));
        match s {
            Stmt::Def {
                op: Op::Load(..), ..
            } => {}
            Stmt::Def { dst, op } => {
                let mut key = op.clone();
                if let Op::Alu(code, a) = &mut key {
                    if matches!(
                        code,
                        Opcode::Fadd
                            | Opcode::Fmul
                            | Opcode::Iadd
                            | Opcode::Imul
                            | Opcode::And
                            | Opcode::Or
                            | Opcode::Xor
                            | Opcode::Fmin
                            | Opcode::Fmax
                            | Opcode::Feq
                            | Opcode::Fne
                            | Opcode::Ieq
                            | Opcode::Ine
                    ) {
                        a.sort();
                    }
                }
                if let Op::Const(w) = key {
                    // Constants of different types are different values for printing only;
                    // the word is what matters, but keep the type so the IR stays typed.
                    key = Op::Alu(
                        Opcode::Movi,
                        vec![Value(w), Value(types[dst.0 as usize] as u32)],
                    );
                }
                let local_only = !op.is_cse_candidate();
                let found = if local_only {
                    scopes.last().unwrap().get(&key).copied()
                } else {
                    scopes.iter().rev().find_map(|sc| sc.get(&key).copied())
                };
                match found {
                    Some(v) => {
                        sub.insert(*dst, v);
                    }
                    None => {
                        scopes.last_mut().unwrap().insert(key, *dst);
                    }
                }
            }
            Stmt::If { then, els, .. } => {
                cse_block(then, scopes, sub, types);
                cse_block(els, scopes, sub, types);
            }
            Stmt::Loop { body, .. } => cse_block(body, scopes, sub, types),
            _ => {}
        }
        // Phis and loop lists read values rewritten inside the blocks.
        map_uses(s, &mut |v| *sub.get(&v).unwrap_or(&v));
    }
    scopes.pop();
}

/// Number of uses of each value.
fn use_counts(p: &Program) -> Vec<u32> {
    let mut n = vec![0u32; p.types.len()];
    walk(&p.body, &mut |s| {
        uses(s).iter().for_each(|v| n[v.0 as usize] += 1)
    });
    n
}

/// `fadd(fmul(a, b), c)` → `ffma(a, b, c)` when the multiply has no other use and is in the
/// same block.
pub fn contract(p: &mut Program) {
    let n = use_counts(p);
    contract_block(&mut p.body, &n);
}

fn contract_block(b: &mut [Stmt], n: &[u32]) {
    let mut muls: HashMap<Value, (Value, Value)> = HashMap::new();
    for s in b.iter_mut() {
        match s {
            Stmt::Def {
                dst,
                op: Op::Alu(Opcode::Fmul, a),
            } if n[dst.0 as usize] == 1 => {
                muls.insert(*dst, (a[0], a[1]));
            }
            Stmt::Def { op, .. } => {
                if let Op::Alu(Opcode::Fadd, a) = op {
                    let pick = if muls.contains_key(&a[0]) {
                        Some((a[0], a[1]))
                    } else if muls.contains_key(&a[1]) {
                        Some((a[1], a[0]))
                    } else {
                        None
                    };
                    if let Some((m, c)) = pick {
                        let (x, y) = muls.remove(&m).unwrap();
                        *op = Op::Alu(Opcode::Ffma, vec![x, y, c]);
                    }
                }
            }
            Stmt::If { then, els, .. } => {
                contract_block(then, n);
                contract_block(els, n);
            }
            Stmt::Loop { body, .. } => contract_block(body, n),
            _ => {}
        }
    }
}

/// Dead-code elimination (see the module documentation).
pub fn dce(p: &mut Program) {
    // Code after an unconditional exit; its values' remaining uses (phi operands of paths that
    // never reach the merge) become zero.
    let mut nonzero = HashSet::new();
    walk(&p.body, &mut |s| {
        if let Stmt::Def {
            dst,
            op: Op::Const(w),
        } = s
        {
            if *w != 0 {
                nonzero.insert(*dst);
            }
        }
    });
    let mut gone = HashSet::new();
    cut_after_exits(&mut p.body, &nonzero, &mut gone);
    if !gone.is_empty() {
        let mut zeros: HashMap<Ty, Value> = HashMap::new();
        let mut sub = HashMap::new();
        let mut pre = Vec::new();
        for &v in &gone {
            let ty = p.types[v.0 as usize];
            let z = *zeros.entry(ty).or_insert_with(|| {
                p.types.push(ty);
                let z = Value(p.types.len() as u32 - 1);
                pre.push(Stmt::Def {
                    dst: z,
                    op: Op::Const(0),
                });
                z
            });
            sub.insert(v, z);
        }
        pre.append(&mut p.body);
        p.body = pre;
        substitute(p, &sub);
    }
    // Liveness to a fixed point.
    let mut live = vec![false; p.types.len()];
    loop {
        let mut changed = false;
        mark(&p.body, &mut live, &mut changed, &mut Vec::new());
        if !changed {
            break;
        }
    }
    sweep(&mut p.body, &live);
}

fn cut_after_exits(b: &mut Vec<Stmt>, nonzero: &HashSet<Value>, gone: &mut HashSet<Value>) {
    if let Some(i) = b.iter().position(|s| matches!(s, Stmt::Break { cond, .. } | Stmt::Continue { cond, .. } if nonzero.contains(cond))) {
        for s in b.drain(i + 1..) {
            gone.extend(defs(&s));
            walk(std::slice::from_ref(&s), &mut |x| gone.extend(defs(x)));
        }
    }
    for s in b.iter_mut() {
        match s {
            Stmt::If { then, els, .. } => {
                cut_after_exits(then, nonzero, gone);
                cut_after_exits(els, nonzero, gone);
            }
            Stmt::Loop { body, .. } => cut_after_exits(body, nonzero, gone),
            _ => {}
        }
    }
}

fn mark(
    b: &[Stmt],
    live: &mut [bool],
    changed: &mut bool,
    loops: &mut Vec<(Vec<Value>, Vec<Value>)>,
) {
    fn set(live: &mut [bool], v: Value) {
        live[v.0 as usize] = true;
    }
    let before = live.iter().filter(|&&x| x).count();
    for s in b {
        match s {
            Stmt::Def { dst, op } => {
                if live[dst.0 as usize] {
                    op.args().iter().for_each(|&v| set(live, v));
                }
            }
            Stmt::Tex { dst, coord, .. } => {
                if dst.iter().any(|d| live[d.0 as usize]) {
                    coord.iter().for_each(|&v| set(live, v));
                }
            }
            Stmt::Export { values, .. } => values.iter().for_each(|&v| set(live, v)),
            Stmt::Store { addr, value, .. } => {
                set(live, *addr);
                set(live, *value);
            }
            Stmt::Spec { a, b, .. } => {
                set(live, *a);
                set(live, *b);
            }
            Stmt::If {
                cond,
                then,
                els,
                phis,
            } => {
                set(live, *cond);
                for ph in phis {
                    if live[ph.dst.0 as usize] {
                        set(live, ph.then);
                        set(live, ph.els);
                    }
                }
                mark(then, live, changed, loops);
                mark(els, live, changed, loops);
            }
            Stmt::Loop {
                params,
                init,
                body,
                next,
                results,
            } => {
                for i in 0..params.len() {
                    if live[params[i].0 as usize] {
                        set(live, init[i]);
                        set(live, next[i]);
                    }
                }
                loops.push((params.clone(), results.clone()));
                mark(body, live, changed, loops);
                loops.pop();
            }
            Stmt::Break { cond, args } | Stmt::Continue { cond, args } => {
                set(live, *cond);
                let (ps, rs) = loops.last().unwrap();
                let targets = if matches!(s, Stmt::Break { .. }) {
                    rs
                } else {
                    ps
                };
                for (t, a) in targets.iter().zip(args) {
                    if live[t.0 as usize] {
                        set(live, *a);
                    }
                }
            }
        }
    }
    if live.iter().filter(|&&x| x).count() != before {
        *changed = true;
    }
}

fn sweep(b: &mut Vec<Stmt>, live: &[bool]) {
    let l = |v: &Value| live[v.0 as usize];
    b.retain_mut(|s| match s {
        Stmt::Def { dst, .. } => l(dst),
        Stmt::Tex { dst, .. } => dst.iter().any(l),
        Stmt::If {
            then, els, phis, ..
        } => {
            sweep(then, live);
            sweep(els, live);
            phis.retain(|p| l(&p.dst));
            !(then.is_empty() && els.is_empty() && phis.is_empty())
        }
        Stmt::Loop {
            params,
            init,
            body,
            next,
            results,
        } => {
            let keep_p: Vec<bool> = params.iter().map(l).collect();
            let keep_r: Vec<bool> = results.iter().map(l).collect();
            prune_exits(body, &keep_p, &keep_r);
            let f = |v: &mut Vec<Value>, keep: &[bool]| {
                let mut i = 0;
                v.retain(|_| {
                    i += 1;
                    keep[i - 1]
                });
            };
            f(params, &keep_p);
            f(init, &keep_p);
            f(next, &keep_p);
            f(results, &keep_r);
            sweep(body, live);
            true
        }
        _ => true,
    });
}

/// Drops the dead positions from the loop's own breaks and continues.
fn prune_exits(b: &mut [Stmt], keep_p: &[bool], keep_r: &[bool]) {
    for s in b {
        match s {
            Stmt::Break { args, .. } => retain_mask(args, keep_r),
            Stmt::Continue { args, .. } => retain_mask(args, keep_p),
            Stmt::If { then, els, .. } => {
                prune_exits(then, keep_p, keep_r);
                prune_exits(els, keep_p, keep_r);
            }
            _ => {}
        }
    }
}

fn retain_mask(v: &mut Vec<Value>, keep: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
