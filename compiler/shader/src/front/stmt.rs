//! Statements: SSA over variables, structured control flow.

use super::{merge, FnCtx, LoopKind, Lower, Root, Scan, Val, VarKey};
use crate::ir::{Op, Stmt, Ty, Value};
use crate::CompileError;
use naga::{Block, Span, Statement};
use rendergen_shader_isa::Opcode;

impl<'m> Lower<'m> {
    /// Lowers a block.
    pub(crate) fn block(
        &mut self,
        ctx: &mut FnCtx<'m>,
        block: &'m Block,
    ) -> Result<(), CompileError> {
        for (s, span) in block.span_iter() {
            if span.is_defined() {
                self.stmt_span = *span;
            }
            self.stmt(ctx, s, *span)?;
        }
        Ok(())
    }

    /// A break of the innermost IR loop for lanes with `cond`.
    pub(crate) fn emit_break(&mut self, cond: Value) {
        let args = self
            .loop_slots
            .last()
            .unwrap()
            .iter()
            .map(|s| self.vars[s])
            .collect();
        self.cur.push(Stmt::Break { cond, args });
    }

    fn emit_continue(&mut self, cond: Value) {
        let args = self
            .loop_slots
            .last()
            .unwrap()
            .iter()
            .map(|s| self.vars[s])
            .collect();
        self.cur.push(Stmt::Continue { cond, args });
    }

    fn stmt(
        &mut self,
        ctx: &mut FnCtx<'m>,
        s: &'m Statement,
        span: Span,
    ) -> Result<(), CompileError> {
        match s {
            Statement::Emit(range) => {
                for h in range.clone() {
                    self.expr(ctx, h)?;
                }
            }
            Statement::Block(b) => self.block(ctx, b)?,
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let cond = self.expr_leaves(ctx, *condition)?[0];
                self.lower_if(cond, |l, then| {
                    l.block(ctx, if then { accept } else { reject })
                })?;
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                self.lower_loop(ctx, body, continuing, *break_if)?;
            }
            Statement::Break => {
                let one = self.konst(1, Ty::Bool);
                match *self.loop_kinds.last().unwrap() {
                    LoopKind::Plain | LoopKind::Switch => self.emit_break(one),
                    LoopKind::Wrapped(id) => {
                        self.vars.insert((VarKey::Broke(id), 0), one);
                        self.emit_break(one);
                    }
                }
            }
            Statement::Continue => {
                let one = self.konst(1, Ty::Bool);
                match *self.loop_kinds.last().unwrap() {
                    LoopKind::Plain => self.emit_continue(one),
                    LoopKind::Wrapped(_) => self.emit_break(one),
                    LoopKind::Switch => {
                        return Err(self.unsupported("continue inside a switch", span))
                    }
                }
            }
            Statement::Return { value } => {
                if let Some(v) = value {
                    let leaves = self.expr_leaves(ctx, *v)?;
                    for (i, x) in leaves.into_iter().enumerate() {
                        self.vars.insert((VarKey::Ret(ctx.inst), i as u32), x);
                    }
                }
                self.leave_function(ctx);
            }
            Statement::Kill => {
                self.uses_kill = true;
                let one = self.konst(1, Ty::Bool);
                self.vars.insert((VarKey::Killed, 0), one);
                self.leave_function(ctx);
            }
            Statement::Store { pointer, value } => {
                let Val::Ptr(p) = self.expr(ctx, *pointer)? else {
                    return Err(self.unsupported("store through a non-pointer", span));
                };
                let v = self.expr_leaves(ctx, *value)?;
                if let Root::Storage(base) = p.root {
                    let t = ctx.info[*value].ty.inner_with(&self.module.types);
                    let mut lay = Vec::new();
                    self.layout(t, 0, &mut lay, span)?;
                    let (a, off) = self.storage_address(&p, base);
                    for ((o, _), x) in lay.into_iter().zip(v) {
                        self.cur.push(Stmt::Store {
                            addr: a,
                            imm: off.wrapping_add(o),
                            value: x,
                        });
                    }
                    return Ok(());
                }
                self.store(&p, &v, span)?;
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                let mut args = Vec::new();
                for a in arguments {
                    args.push(self.expr(ctx, *a)?);
                }
                let f = &self.module.functions[*function];
                let info = &self.info[*function];
                let ret = self.call(f, info, args, span)?;
                if let Some(r) = result {
                    ctx.cache.insert(*r, Val::Leaves(ret));
                }
            }
            Statement::Switch { selector, cases } => self.lower_switch(ctx, *selector, cases)?,
            Statement::ControlBarrier(_) | Statement::MemoryBarrier(_) => {
                return Err(self.unsupported("barrier", span))
            }
            Statement::Atomic { .. } | Statement::ImageAtomic { .. } => {
                return Err(self.unsupported("atomic operation", span))
            }
            Statement::ImageStore {
                image,
                coordinate,
                array_index,
                value,
            } => self.image_store(ctx, *image, *coordinate, *array_index, *value, span)?,
            other => {
                let name = format!("{other:?}");
                let name = name
                    .split([' ', '(', '{'])
                    .next()
                    .unwrap_or("statement")
                    .to_string();
                return Err(self.unsupported(format!("statement {name}"), span));
            }
        }
        Ok(())
    }

    /// `return` (or `discard`): the lanes leave the function's wrapper loop.
    fn leave_function(&mut self, ctx: &FnCtx) {
        if ctx.wrapped {
            let one = self.konst(1, Ty::Bool);
            self.vars.insert((VarKey::Returned(ctx.inst), 0), one);
            self.emit_break(one);
        }
    }

    /// `if cond { then } else { els }` with phis.
    pub(crate) fn lower_if(
        &mut self,
        cond: Value,
        mut branch: impl FnMut(&mut Self, bool) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        self.enter()?;
        let before = self.vars.clone();
        let outer = std::mem::take(&mut self.cur);
        branch(self, true)?;
        let then_stmts = std::mem::take(&mut self.cur);
        let then_vars = std::mem::replace(&mut self.vars, before.clone());
        branch(self, false)?;
        let els_stmts = std::mem::replace(&mut self.cur, outer);
        let (phis, merged) = merge(&before, &then_vars, &self.vars, &mut self.prog);
        self.vars = merged;
        self.cur.push(Stmt::If {
            cond,
            then: then_stmts,
            els: els_stmts,
            phis,
        });
        self.depth -= 1;
        Ok(())
    }

    /// One more level of the mask stack.
    pub(crate) fn enter(&mut self) -> Result<(), CompileError> {
        self.depth += 1;
        if self.depth > rendergen_shader_isa::MAX_DEPTH {
            return Err(CompileError::plain(
                self.path,
                format!(
                    "control flow nested deeper than the core's mask stack ({} levels)",
                    rendergen_shader_isa::MAX_DEPTH
                ),
            ));
        }
        Ok(())
    }

    /// A naga loop. Without a `continue` that must run `continuing`, one IR loop:
    /// `body; continuing; break if break_if`. Otherwise an outer loop around a one-trip inner
    /// loop holding the body: `continue` leaves the inner loop, `break` also sets a flag the
    /// outer loop breaks on. A loop that contains `return`/`discard` is followed by a break on
    /// the function's returned flag.
    pub(crate) fn lower_loop(
        &mut self,
        ctx: &mut FnCtx<'m>,
        body: &'m Block,
        continuing: &'m Block,
        break_if: Option<naga::Handle<naga::Expression>>,
    ) -> Result<(), CompileError> {
        let mut scan = Scan::default();
        self.scan(body, ctx, &mut scan, true);
        let mut scan_c = Scan::default();
        self.scan(continuing, ctx, &mut scan_c, false);
        scan.stored.extend(scan_c.stored);
        scan.call |= scan_c.call;
        let wrapped = scan.cont && !(continuing.is_empty() && break_if.is_none());
        let slots = self.carried_slots(&scan, ctx.inst, false);
        let returns = scan.ret || scan.kill;
        let tail = |l: &mut Self, ctx: &mut FnCtx<'m>| -> Result<(), CompileError> {
            l.block(ctx, continuing)?;
            if let Some(b) = break_if {
                let c = l.expr_leaves(ctx, b)?[0];
                l.emit_break(c);
            }
            Ok(())
        };
        if !wrapped {
            self.loop_kinds.push(LoopKind::Plain);
            self.with_loop(slots, |l| {
                l.block(ctx, body)?;
                tail(l, ctx)
            })?;
        } else {
            let id = self.loops;
            self.loops += 1;
            self.loop_kinds.push(LoopKind::Wrapped(id));
            let mut inner = slots.clone();
            inner.push((VarKey::Broke(id), 0));
            self.with_loop(slots, |l| {
                let zero = l.konst(0, Ty::Bool);
                l.vars.insert((VarKey::Broke(id), 0), zero);
                l.with_loop(inner, |l| {
                    l.block(ctx, body)?;
                    let one = l.konst(1, Ty::Bool);
                    l.emit_break(one);
                    Ok(())
                })?;
                if returns {
                    let r = l.vars[&(VarKey::Returned(ctx.inst), 0)];
                    l.emit_break(r);
                }
                let b = l.vars.remove(&(VarKey::Broke(id), 0)).unwrap();
                l.emit_break(b);
                tail(l, ctx)
            })?;
        }
        self.loop_kinds.pop();
        if returns {
            let r = self.vars[&(VarKey::Returned(ctx.inst), 0)];
            self.emit_break(r);
        }
        Ok(())
    }

    /// `switch`: a one-trip loop; case `i` runs if the selector matches it or case `i − 1`
    /// ran and falls through; a case that does not fall through ends the switch (a break).
    /// `default` matches when no value does.
    fn lower_switch(
        &mut self,
        ctx: &mut FnCtx<'m>,
        selector: naga::Handle<naga::Expression>,
        cases: &'m [naga::SwitchCase],
    ) -> Result<(), CompileError> {
        let sel = self.expr_leaves(ctx, selector)?[0];
        let mut scan = Scan::default();
        for c in cases {
            self.scan(&c.body, ctx, &mut scan, false);
        }
        let slots = self.carried_slots(&scan, ctx.inst, false);
        let returns = scan.ret || scan.kill;
        self.loop_kinds.push(LoopKind::Switch);
        self.with_loop(slots, |l| {
            let mut hits = Vec::new();
            for c in cases {
                let v = match c.value {
                    naga::SwitchValue::I32(v) => Some(l.konst(v as u32, Ty::I32)),
                    naga::SwitchValue::U32(v) => Some(l.konst(v, Ty::U32)),
                    naga::SwitchValue::Default => None,
                };
                hits.push(v.map(|v| l.def(Op::Alu(Opcode::Ieq, vec![sel, v]), Ty::Bool)));
            }
            let zero = l.konst(0, Ty::Bool);
            let one = l.konst(1, Ty::Bool);
            let mut any = zero;
            for h in hits.iter().flatten() {
                any = l.def(Op::Alu(Opcode::Or, vec![any, *h]), Ty::Bool);
            }
            let default = l.def(Op::Alu(Opcode::Xor, vec![any, one]), Ty::Bool);
            let mut carried = zero;
            for (c, h) in cases.iter().zip(hits) {
                let hit = h.unwrap_or(default);
                let run = l.def(Op::Alu(Opcode::Or, vec![hit, carried]), Ty::Bool);
                l.lower_if(
                    run,
                    |l, then| if then { l.block(ctx, &c.body) } else { Ok(()) },
                )?;
                if c.fall_through {
                    carried = run;
                } else {
                    l.emit_break(run);
                    carried = zero;
                }
            }
            l.emit_break(one);
            Ok(())
        })?;
        self.loop_kinds.pop();
        if returns {
            let r = self.vars[&(VarKey::Returned(ctx.inst), 0)];
            self.emit_break(r);
        }
        Ok(())
    }

    /// Writes `v` through `p`.
    fn store(&mut self, p: &super::Ptr, v: &[Value], span: Span) -> Result<(), CompileError> {
        let Root::Var(key) = p.root else {
            return Err(self.unsupported("store to a uniform", span));
        };
        match p.dynamic {
            None => {
                for (k, &x) in v.iter().enumerate() {
                    self.vars.insert((key, p.offset + k as u32), x);
                }
            }
            Some((index, stride, count)) => {
                for i in 0..count {
                    let ic = self.konst(i, Ty::I32);
                    let hit = self.def(Op::Alu(Opcode::Ieq, vec![index, ic]), Ty::Bool);
                    for (k, &x) in v.iter().enumerate() {
                        let slot = (key, p.offset + i * stride + k as u32);
                        let old = self.vars[&slot];
                        let ty = self.prog.ty(old);
                        let new = self.def(Op::Alu(Opcode::Sel, vec![hit, x, old]), ty);
                        self.vars.insert(slot, new);
                    }
                }
            }
        }
        Ok(())
    }
}
