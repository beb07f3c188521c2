//! Expressions: scalarised into IR values.

use super::{scalar_ty, FnCtx, Lower, Ptr, Root, Val, VarKey};
use crate::ir::{Op, Stmt, Ty, Value};
use crate::CompileError;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, Span, TypeInner};
use rendergen_shader_isa::Opcode;

impl<'m> Lower<'m> {
    fn span(&self, ctx: &FnCtx, h: Handle<Expression>) -> Span {
        ctx.fun.expressions.get_span(h)
    }

    /// The naga type of an expression.
    pub(super) fn inner(&self, ctx: &FnCtx<'m>, h: Handle<Expression>) -> &'m TypeInner {
        ctx.info[h].ty.inner_with(&self.module.types)
    }

    /// The scalar type of an expression's leaves.
    fn kind(&self, ctx: &FnCtx<'m>, h: Handle<Expression>) -> Ty {
        self.inner(ctx, h)
            .scalar()
            .and_then(scalar_ty)
            .unwrap_or(Ty::F32)
    }

    /// An expression's leaves (loads through pointers are not implicit in naga).
    pub(crate) fn expr_leaves(
        &mut self,
        ctx: &mut FnCtx<'m>,
        h: Handle<Expression>,
    ) -> Result<Vec<Value>, CompileError> {
        match self.expr(ctx, h)? {
            Val::Leaves(v) => Ok(v),
            _ => Err(self.unsupported("a pointer or handle used as a value", self.span(ctx, h))),
        }
    }

    pub(super) fn alu(&mut self, op: Opcode, args: &[Value], ty: Ty) -> Value {
        self.def(Op::Alu(op, args.to_vec()), ty)
    }

    /// Lowers (once) an expression.
    pub(crate) fn expr(
        &mut self,
        ctx: &mut FnCtx<'m>,
        h: Handle<Expression>,
    ) -> Result<Val, CompileError> {
        if let Some(v) = ctx.cache.get(&h) {
            return Ok(v.clone());
        }
        let v = self.expr_uncached(ctx, h)?;
        ctx.cache.insert(h, v.clone());
        Ok(v)
    }

    fn expr_uncached(
        &mut self,
        ctx: &mut FnCtx<'m>,
        h: Handle<Expression>,
    ) -> Result<Val, CompileError> {
        let span = self.span(ctx, h);
        let e = &ctx.fun.expressions[h];
        let leaves = |v: Vec<Value>| Ok(Val::Leaves(v));
        match e {
            Expression::Literal(lit) => leaves(vec![self.literal(*lit, span)?]),
            Expression::Constant(c) => {
                let init = self.module.constants[*c].init;
                leaves(self.const_expr(init, span)?)
            }
            Expression::ZeroValue(ty) => {
                let tys = self.leaves_of(*ty, span)?;
                leaves(tys.into_iter().map(|t| self.konst(0, t)).collect())
            }
            Expression::Compose { components, .. } => {
                let mut v = Vec::new();
                for c in components {
                    v.extend(self.expr_leaves(ctx, *c)?);
                }
                leaves(v)
            }
            Expression::Splat { size, value } => {
                let x = self.expr_leaves(ctx, *value)?;
                leaves(x.repeat(*size as usize))
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let x = self.expr_leaves(ctx, *vector)?;
                leaves(
                    pattern[..*size as usize]
                        .iter()
                        .map(|&c| x[c as usize])
                        .collect(),
                )
            }
            Expression::FunctionArgument(i) => Ok(ctx.args[*i as usize].clone()),
            Expression::CallResult(_) => Err(self.unsupported("call result before its call", span)),
            Expression::LocalVariable(l) => Ok(Val::Ptr(Ptr {
                root: Root::Var(VarKey::Local(ctx.inst, l.index() as u32)),
                offset: 0,
                dynamic: None,
            })),
            Expression::GlobalVariable(g) => {
                let gv = &self.module.global_variables[*g];
                match gv.space {
                    naga::AddressSpace::Private => Ok(Val::Ptr(Ptr {
                        root: Root::Var(VarKey::Private(g.index() as u32)),
                        offset: 0,
                        dynamic: None,
                    })),
                    naga::AddressSpace::Uniform => Ok(Val::Ptr(Ptr {
                        root: Root::Uniform(g.index() as u32),
                        offset: 0,
                        dynamic: None,
                    })),
                    naga::AddressSpace::Storage { .. } => Ok(Val::Ptr(Ptr {
                        root: Root::Storage(crate::abi::storage_address(
                            gv.binding.as_ref().map_or(0, |b| b.binding),
                        )),
                        offset: 0,
                        dynamic: None,
                    })),
                    naga::AddressSpace::Handle => match self.module.types[gv.ty].inner {
                        TypeInner::Image { .. } => {
                            Ok(Val::Image(gv.binding.as_ref().map_or(0, |b| b.binding)))
                        }
                        _ => Ok(Val::Sampler),
                    },
                    other => {
                        Err(self.unsupported(format!("global in address space {other:?}"), span))
                    }
                }
            }
            Expression::Load { pointer } => {
                let Val::Ptr(p) = self.expr(ctx, *pointer)? else {
                    return Err(self.unsupported("load from a non-pointer", span));
                };
                if let Root::Storage(base) = p.root {
                    return leaves(self.storage_load(&p, base, self.inner(ctx, h), span)?);
                }
                let n = self.leaves(self.inner(ctx, h), span)?.len() as u32;
                leaves(self.load(&p, n, span)?)
            }
            Expression::AccessIndex { base, index } => self.access(ctx, *base, Err(*index), span),
            Expression::Access { base, index } => {
                let i = self.expr_leaves(ctx, *index)?[0];
                self.access(ctx, *base, Ok(i), span)
            }
            Expression::Unary { op, expr } => {
                let ty = self.kind(ctx, *expr);
                let x = self.expr_leaves(ctx, *expr)?;
                let out = x
                    .into_iter()
                    .map(|a| match (op, ty) {
                        (naga::UnaryOperator::Negate, Ty::F32) => self.alu(Opcode::Fneg, &[a], ty),
                        (naga::UnaryOperator::Negate, _) => {
                            let z = self.konst(0, ty);
                            self.alu(Opcode::Isub, &[z, a], ty)
                        }
                        (naga::UnaryOperator::LogicalNot, _)
                        | (naga::UnaryOperator::BitwiseNot, Ty::Bool) => {
                            let one = self.konst(1, Ty::Bool);
                            self.alu(Opcode::Xor, &[a, one], Ty::Bool)
                        }
                        (naga::UnaryOperator::BitwiseNot, _) => self.alu(Opcode::Not, &[a], ty),
                    })
                    .collect();
                leaves(out)
            }
            Expression::Binary { op, left, right } => {
                let v = self.binary(ctx, *op, *left, *right, span)?;
                leaves(v)
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let c = self.expr_leaves(ctx, *condition)?;
                let a = self.expr_leaves(ctx, *accept)?;
                let r = self.expr_leaves(ctx, *reject)?;
                let ty = self.kind(ctx, *accept);
                let out = (0..a.len())
                    .map(|i| self.alu(Opcode::Sel, &[c[i.min(c.len() - 1)], a[i], r[i]], ty))
                    .collect();
                leaves(out)
            }
            Expression::Derivative { axis, ctrl, expr } => {
                let x = self.expr_leaves(ctx, *expr)?;
                let fine = matches!(ctrl, naga::DerivativeControl::Fine);
                let (dx, dy) = if fine {
                    (Opcode::Ddxf, Opcode::Ddyf)
                } else {
                    (Opcode::Ddxc, Opcode::Ddyc)
                };
                let out = x
                    .into_iter()
                    .map(|a| match axis {
                        naga::DerivativeAxis::X => self.alu(dx, &[a], Ty::F32),
                        naga::DerivativeAxis::Y => self.alu(dy, &[a], Ty::F32),
                        naga::DerivativeAxis::Width => {
                            let x = self.alu(dx, &[a], Ty::F32);
                            let y = self.alu(dy, &[a], Ty::F32);
                            let x = self.alu(Opcode::Fabs, &[x], Ty::F32);
                            let y = self.alu(Opcode::Fabs, &[y], Ty::F32);
                            self.alu(Opcode::Fadd, &[x, y], Ty::F32)
                        }
                    })
                    .collect();
                leaves(out)
            }
            Expression::Relational { fun, argument } => {
                let x = self.expr_leaves(ctx, *argument)?;
                let out = match fun {
                    naga::RelationalFunction::All => vec![self.reduce(Opcode::And, &x, Ty::Bool)],
                    naga::RelationalFunction::Any => vec![self.reduce(Opcode::Or, &x, Ty::Bool)],
                    naga::RelationalFunction::IsNan => x
                        .iter()
                        .map(|&a| self.alu(Opcode::Fne, &[a, a], Ty::Bool))
                        .collect(),
                    naga::RelationalFunction::IsInf => {
                        let inf = self.fconst(f32::INFINITY);
                        x.iter()
                            .map(|&a| {
                                let m = self.alu(Opcode::Fabs, &[a], Ty::F32);
                                self.alu(Opcode::Feq, &[m, inf], Ty::Bool)
                            })
                            .collect()
                    }
                };
                leaves(out)
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => {
                let v = self.math(ctx, *fun, *arg, *arg1, *arg2, span)?;
                leaves(v)
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => {
                let from = self.kind(ctx, *expr);
                let x = self.expr_leaves(ctx, *expr)?;
                let to = match (kind, convert) {
                    (naga::ScalarKind::Float, _) => Ty::F32,
                    (naga::ScalarKind::Sint, _) => Ty::I32,
                    (naga::ScalarKind::Uint, _) => Ty::U32,
                    (naga::ScalarKind::Bool, _) => Ty::Bool,
                    _ => return Err(self.unsupported("abstract cast", span)),
                };
                if convert.is_none() {
                    return leaves(x.into_iter().map(|a| self.def(Op::Copy(a), to)).collect());
                }
                let out = x.into_iter().map(|a| self.convert(a, from, to)).collect();
                leaves(out)
            }
            Expression::ImageLoad {
                image,
                coordinate,
                array_index,
                sample,
                level,
            } => {
                if self.is_sampled(ctx, *image) {
                    if array_index.is_some() || sample.is_some() {
                        return Err(self
                            .unsupported("texelFetch of an array or multisampled texture", span));
                    }
                    return leaves(self.texel_fetch(ctx, *image, *coordinate, *level, span)?);
                }
                if level.is_some() {
                    return Err(self.unsupported("image load with a level", span));
                }
                let ty = self.kind(ctx, h);
                let index = array_index.or(*sample);
                leaves(self.image_load(ctx, *image, *coordinate, index, ty, span)?)
            }
            Expression::ImageSample {
                image,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                gather,
                ..
            } => {
                let unsupported = if depth_ref.is_some() {
                    Some("texture depth comparison")
                } else if array_index.is_some() {
                    Some("texture array sampling")
                } else if offset.is_some() {
                    Some("texture sampling with an offset (add it to texelFetch coordinates)")
                } else {
                    None
                };
                leaves(self.image_sample(
                    ctx,
                    *image,
                    *coordinate,
                    level,
                    *gather,
                    unsupported,
                    span,
                )?)
            }
            other => {
                let name = format!("{other:?}");
                let name = name
                    .split([' ', '(', '{'])
                    .next()
                    .unwrap_or("expression")
                    .to_string();
                let what = match name.as_str() {
                    "AtomicResult" => "atomic operation".to_string(),
                    n if n.starts_with("Subgroup") => "subgroup operation".to_string(),
                    n => format!("expression {n}"),
                };
                Err(self.unsupported(what, span))
            }
        }
    }

    /// Loads `n` leaves through a pointer.
    fn load(&mut self, p: &Ptr, n: u32, span: Span) -> Result<Vec<Value>, CompileError> {
        let read = |l: &mut Self, leaf: u32| -> Result<Value, CompileError> {
            match p.root {
                Root::Var(k) => l
                    .vars
                    .get(&(k, leaf))
                    .copied()
                    .ok_or_else(|| l.unsupported("read of an unknown variable", span)),
                Root::Storage(_) => unreachable!("storage loads go through storage_load"),
                Root::Uniform(g) => {
                    let (word, ty) = l.uniform_words[&g][leaf as usize];
                    let v = l.prog.new_value(ty);
                    l.prelude.push(Stmt::Def {
                        dst: v,
                        op: Op::Uniform(word),
                    });
                    Ok(v)
                }
            }
        };
        let mut out = Vec::new();
        for k in 0..n {
            match p.dynamic {
                None => out.push(read(self, p.offset + k)?),
                Some((index, stride, count)) => {
                    let mut acc = read(self, p.offset + k)?;
                    for i in 1..count {
                        let x = read(self, p.offset + i * stride + k)?;
                        let ic = self.konst(i, Ty::I32);
                        let hit = self.alu(Opcode::Ieq, &[index, ic], Ty::Bool);
                        let ty = self.prog.ty(x);
                        acc = self.alu(Opcode::Sel, &[hit, x, acc], ty);
                    }
                    out.push(acc);
                }
            }
        }
        Ok(out)
    }

    /// The address register (dynamic index × stride, or zero) and static offset of a storage
    /// pointer.
    pub(crate) fn storage_address(&mut self, p: &Ptr, base: u32) -> (Value, u32) {
        let a = match p.dynamic {
            Some((i, stride, _)) => {
                let s = self.konst(stride, Ty::U32);
                self.alu(Opcode::Imul, &[i, s], Ty::U32)
            }
            None => self.konst(0, Ty::U32),
        };
        (a, base.wrapping_add(p.offset))
    }

    /// Loads a value of type `t` from a storage buffer.
    fn storage_load(
        &mut self,
        p: &Ptr,
        base: u32,
        t: &TypeInner,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        let mut lay = Vec::new();
        self.layout(t, 0, &mut lay, span)?;
        let (a, off) = self.storage_address(p, base);
        Ok(lay
            .into_iter()
            .map(|(o, ty)| self.def(Op::Load(a, off.wrapping_add(o)), ty))
            .collect())
    }

    /// `base[index]` on a storage pointer: byte offsets.
    fn storage_access(
        &mut self,
        mut p: Ptr,
        pointee: &TypeInner,
        index: Result<Value, u32>,
        span: Span,
    ) -> Result<Val, CompileError> {
        let (offs, stride): (Vec<u32>, u32) = match pointee {
            TypeInner::Struct { members, .. } => (members.iter().map(|m| m.offset).collect(), 0),
            TypeInner::Array { stride, size, .. } => {
                let n = match size {
                    naga::ArraySize::Constant(n) => n.get(),
                    _ => 0,
                };
                ((0..n).map(|i| i * stride).collect(), *stride)
            }
            TypeInner::Vector { size, .. } => ((0..*size as u32).map(|i| 4 * i).collect(), 4),
            TypeInner::Matrix { columns, rows, .. } => {
                let s = if *rows == naga::VectorSize::Bi { 8 } else { 16 };
                ((0..*columns as u32).map(|i| s * i).collect(), s)
            }
            other => return Err(self.unsupported(format!("indexing into {other:?}"), span)),
        };
        match index {
            Err(i) => p.offset += offs.get(i as usize).copied().unwrap_or(i * stride),
            Ok(v) => {
                if p.dynamic.is_some() {
                    return Err(self.unsupported("more than one dynamic index into a buffer", span));
                }
                p.dynamic = Some((v, stride, 0));
            }
        }
        Ok(Val::Ptr(p))
    }

    /// `base[index]` (constant: `Err(i)`, dynamic: `Ok(value)`), on a pointer or a value.
    fn access(
        &mut self,
        ctx: &mut FnCtx<'m>,
        base: Handle<Expression>,
        index: Result<Value, u32>,
        span: Span,
    ) -> Result<Val, CompileError> {
        let bt = self.inner(ctx, base);
        if let Val::Ptr(
            p @ Ptr {
                root: Root::Storage(_),
                ..
            },
        ) = self.expr(ctx, base)?
        {
            let pointee = match bt {
                TypeInner::Pointer { base: t, .. } => self.module.types[*t].inner.clone(),
                TypeInner::ValuePointer {
                    size: Some(size),
                    scalar,
                    ..
                } => TypeInner::Vector {
                    size: *size,
                    scalar: *scalar,
                },
                other => other.clone(),
            };
            return self.storage_access(p, &pointee, index, span);
        }
        let pointee = match bt {
            TypeInner::Pointer { base: t, .. } => &self.module.types[*t].inner,
            TypeInner::ValuePointer {
                size: Some(_),
                scalar,
                ..
            } => {
                // A vector behind a pointer: element = one leaf.
                let _ = scalar;
                &TypeInner::Scalar(naga::Scalar::F32)
            }
            t => t,
        };
        // Leaves before element i, and leaves per element.
        let (offset_of, stride, count): (Vec<u32>, u32, u32) = match pointee {
            TypeInner::Struct { members, .. } => {
                let mut offs = Vec::new();
                let mut at = 0;
                for m in members {
                    offs.push(at);
                    at += self.leaves_of(m.ty, span)?.len() as u32;
                }
                (offs, 0, members.len() as u32)
            }
            TypeInner::Vector { size, .. } => ((0..*size as u32).collect(), 1, *size as u32),
            TypeInner::Matrix { columns, rows, .. } => {
                let r = *rows as u32;
                (
                    (0..*columns as u32).map(|c| c * r).collect(),
                    r,
                    *columns as u32,
                )
            }
            TypeInner::Array { base: t, size, .. } => {
                let n = match size {
                    naga::ArraySize::Constant(n) => n.get(),
                    _ => return Err(self.unsupported("runtime-sized array", span)),
                };
                let s = self.leaves_of(*t, span)?.len() as u32;
                ((0..n).map(|i| i * s).collect(), s, n)
            }
            TypeInner::Scalar(_) if matches!(bt, TypeInner::ValuePointer { .. }) => {
                // ValuePointer to a vector: its size.
                let TypeInner::ValuePointer {
                    size: Some(size), ..
                } = bt
                else {
                    unreachable!()
                };
                ((0..*size as u32).collect(), 1, *size as u32)
            }
            other => return Err(self.unsupported(format!("indexing into {other:?}"), span)),
        };
        match self.expr(ctx, base)? {
            Val::Ptr(mut p) => {
                match index {
                    Err(i) => p.offset += offset_of[i as usize],
                    Ok(v) => {
                        if p.dynamic.is_some() {
                            return Err(self
                                .unsupported("more than one dynamic index into a variable", span));
                        }
                        p.dynamic = Some((v, stride, count));
                    }
                }
                Ok(Val::Ptr(p))
            }
            Val::Leaves(x) => {
                let elem = if count == 0 {
                    0
                } else {
                    (x.len() as u32) / count.max(1)
                };
                match index {
                    Err(i) => {
                        let start = offset_of[i as usize] as usize;
                        let end = offset_of
                            .get(i as usize + 1)
                            .map_or(x.len(), |&e| e as usize);
                        Ok(Val::Leaves(x[start..end].to_vec()))
                    }
                    Ok(v) => {
                        let mut out = Vec::new();
                        for k in 0..elem as usize {
                            let mut acc = x[k];
                            for i in 1..count as usize {
                                let ic = self.konst(i as u32, Ty::I32);
                                let hit = self.alu(Opcode::Ieq, &[v, ic], Ty::Bool);
                                let xi = x[i * elem as usize + k];
                                let ty = self.prog.ty(xi);
                                acc = self.alu(Opcode::Sel, &[hit, xi, acc], ty);
                            }
                            out.push(acc);
                        }
                        Ok(Val::Leaves(out))
                    }
                }
            }
            _ => Err(self.unsupported("indexing a texture or sampler", span)),
        }
    }

    /// The word of a constant value.
    pub(super) fn const_of(&self, v: Value) -> Option<u32> {
        self.consts
            .iter()
            .find(|(_, &c)| c == v)
            .map(|((w, _), _)| *w)
    }

    fn reduce(&mut self, op: Opcode, x: &[Value], ty: Ty) -> Value {
        let mut acc = x[0];
        for &a in &x[1..] {
            acc = self.alu(op, &[acc, a], ty);
        }
        acc
    }

    /// A value converted between scalar types.
    fn convert(&mut self, a: Value, from: Ty, to: Ty) -> Value {
        use Ty::*;
        match (from, to) {
            (F32, I32) => self.alu(Opcode::F2i, &[a], to),
            (F32, U32) => self.alu(Opcode::F2u, &[a], to),
            (I32, F32) => self.alu(Opcode::I2f, &[a], to),
            (U32, F32) => self.alu(Opcode::U2f, &[a], to),
            (Bool, F32) => {
                let (one, zero) = (self.fconst(1.0), self.fconst(0.0));
                self.alu(Opcode::Sel, &[a, one, zero], F32)
            }
            (F32, Bool) => {
                let zero = self.fconst(0.0);
                self.alu(Opcode::Fne, &[a, zero], Bool)
            }
            (I32 | U32, Bool) => {
                let zero = self.konst(0, from);
                self.alu(Opcode::Ine, &[a, zero], Bool)
            }
            _ => self.def(Op::Copy(a), to),
        }
    }

    /// `a op b` on scalars of type `ty`.
    fn scalar_binary(
        &mut self,
        op: B,
        ty: Ty,
        a: Value,
        b: Value,
        span: Span,
    ) -> Result<Value, CompileError> {
        use Opcode as O;
        let f = ty == Ty::F32;
        let (code, swap, out) = match op {
            B::Add => (if f { O::Fadd } else { O::Iadd }, false, ty),
            B::Subtract => (if f { O::Fsub } else { O::Isub }, false, ty),
            B::Multiply => (if f { O::Fmul } else { O::Imul }, false, ty),
            B::Divide if f => {
                let r = self.alu(O::Rcp, &[b], ty);
                return Ok(self.alu(O::Fmul, &[a, r], ty));
            }
            B::Modulo if f => {
                // a − b·trunc(a/b) (naga's float remainder).
                let r = self.alu(O::Rcp, &[b], ty);
                let q = self.alu(O::Fmul, &[a, r], ty);
                let t = self.alu(O::Trunc, &[q], ty);
                let bt = self.alu(O::Fmul, &[b, t], ty);
                return Ok(self.alu(O::Fsub, &[a, bt], ty));
            }
            B::Divide | B::Modulo => {
                // By a constant power of two only: shifts and masks.
                let k = self
                    .const_of(b)
                    .filter(|&d| d != 0 && d.is_power_of_two() && (ty == Ty::U32 || d < 1 << 31));
                let Some(d) = k else {
                    return Err(self.unsupported(
                        "integer division or remainder (except by a constant power of two)",
                        span,
                    ));
                };
                if d == 1 {
                    return Ok(if op == B::Divide {
                        a
                    } else {
                        self.konst(0, ty)
                    });
                }
                let sh = self.konst(d.trailing_zeros(), Ty::U32);
                if ty == Ty::U32 {
                    return Ok(if op == B::Divide {
                        self.alu(O::Shr, &[a, sh], ty)
                    } else {
                        let m = self.konst(d - 1, Ty::U32);
                        self.alu(O::And, &[a, m], ty)
                    });
                }
                // Signed: truncate toward zero; the remainder takes the dividend's sign.
                let s31 = self.konst(31, Ty::U32);
                let sign = self.alu(O::Sar, &[a, s31], ty);
                let bias_sh = self.konst(32 - d.trailing_zeros(), Ty::U32);
                let bias = self.alu(O::Shr, &[sign, bias_sh], ty);
                let t = self.alu(O::Iadd, &[a, bias], ty);
                let q = self.alu(O::Sar, &[t, sh], ty);
                return Ok(if op == B::Divide {
                    q
                } else {
                    let qd = self.alu(O::Shl, &[q, sh], ty);
                    self.alu(O::Isub, &[a, qd], ty)
                });
            }
            B::Equal => (if f { O::Feq } else { O::Ieq }, false, Ty::Bool),
            B::NotEqual => (if f { O::Fne } else { O::Ine }, false, Ty::Bool),
            B::Less => (
                if f {
                    O::Flt
                } else if ty == Ty::U32 {
                    O::Ult
                } else {
                    O::Ilt
                },
                false,
                Ty::Bool,
            ),
            B::LessEqual => (
                if f {
                    O::Fle
                } else if ty == Ty::U32 {
                    O::Ule
                } else {
                    O::Ile
                },
                false,
                Ty::Bool,
            ),
            B::Greater => (
                if f {
                    O::Fgt
                } else if ty == Ty::U32 {
                    O::Ult
                } else {
                    O::Ilt
                },
                !f,
                Ty::Bool,
            ),
            B::GreaterEqual => (
                if f {
                    O::Fge
                } else if ty == Ty::U32 {
                    O::Ule
                } else {
                    O::Ile
                },
                !f,
                Ty::Bool,
            ),
            B::And | B::LogicalAnd => (O::And, false, ty),
            B::InclusiveOr | B::LogicalOr => (O::Or, false, ty),
            B::ExclusiveOr => (O::Xor, false, ty),
            B::ShiftLeft => (O::Shl, false, ty),
            B::ShiftRight => (if ty == Ty::I32 { O::Sar } else { O::Shr }, false, ty),
        };
        let args = if swap { [b, a] } else { [a, b] };
        Ok(self.alu(code, &args, out))
    }

    fn binary(
        &mut self,
        ctx: &mut FnCtx<'m>,
        op: B,
        left: Handle<Expression>,
        right: Handle<Expression>,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        let ty = self.kind(ctx, left);
        let (lt, rt) = (self.inner(ctx, left), self.inner(ctx, right));
        let a = self.expr_leaves(ctx, left)?;
        let b = self.expr_leaves(ctx, right)?;
        if op == B::Multiply {
            match (lt, rt) {
                (TypeInner::Matrix { columns, rows, .. }, TypeInner::Vector { .. }) => {
                    let (c, r) = (*columns as usize, *rows as usize);
                    return Ok((0..r)
                        .map(|j| self.dot((0..c).map(|k| (a[k * r + j], b[k])).collect()))
                        .collect());
                }
                (TypeInner::Vector { .. }, TypeInner::Matrix { columns, rows, .. }) => {
                    let (c, r) = (*columns as usize, *rows as usize);
                    return Ok((0..c)
                        .map(|k| self.dot((0..r).map(|j| (a[j], b[k * r + j])).collect()))
                        .collect());
                }
                (
                    TypeInner::Matrix {
                        columns: kc, rows, ..
                    },
                    TypeInner::Matrix { columns, .. },
                ) => {
                    let (k, r, c) = (*kc as usize, *rows as usize, *columns as usize);
                    let mut out = Vec::new();
                    for col in 0..c {
                        for row in 0..r {
                            let pairs = (0..k).map(|i| (a[i * r + row], b[col * k + i])).collect();
                            out.push(self.dot(pairs));
                        }
                    }
                    return Ok(out);
                }
                _ => {}
            }
        }
        let n = a.len().max(b.len());
        let mut out = Vec::new();
        for i in 0..n {
            let x = a[if a.len() == 1 { 0 } else { i }];
            let y = b[if b.len() == 1 { 0 } else { i }];
            out.push(self.scalar_binary(op, ty, x, y, span)?);
        }
        Ok(out)
    }

    /// `Σ x·y` in order: a multiply, then multiply-adds (contracted later).
    fn dot(&mut self, pairs: Vec<(Value, Value)>) -> Value {
        let mut acc = self.alu(Opcode::Fmul, &[pairs[0].0, pairs[0].1], Ty::F32);
        for &(x, y) in &pairs[1..] {
            let m = self.alu(Opcode::Fmul, &[x, y], Ty::F32);
            acc = self.alu(Opcode::Fadd, &[acc, m], Ty::F32);
        }
        acc
    }

    fn f1(&mut self, op: Opcode, a: Value) -> Value {
        self.alu(op, &[a], Ty::F32)
    }

    fn f2(&mut self, op: Opcode, a: Value, b: Value) -> Value {
        self.alu(op, &[a, b], Ty::F32)
    }

    fn math(
        &mut self,
        ctx: &mut FnCtx<'m>,
        fun: M,
        arg: Handle<Expression>,
        arg1: Option<Handle<Expression>>,
        arg2: Option<Handle<Expression>>,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        use Opcode as O;
        let ty = self.kind(ctx, arg);
        let x = self.expr_leaves(ctx, arg)?;
        let y = match arg1 {
            Some(h) => self.expr_leaves(ctx, h)?,
            None => vec![],
        };
        let z = match arg2 {
            Some(h) => self.expr_leaves(ctx, h)?,
            None => vec![],
        };
        let n = x.len();
        let at = |v: &Vec<Value>, i: usize| v[if v.len() == 1 { 0 } else { i }];
        let each = |l: &mut Self, f: &mut dyn FnMut(&mut Self, usize) -> Value| -> Vec<Value> {
            (0..n).map(|i| f(l, i)).collect()
        };
        let int = ty != Ty::F32;
        Ok(match fun {
            M::Abs if !int => each(self, &mut |l, i| l.f1(O::Fabs, x[i])),
            M::Abs if ty == Ty::I32 => each(self, &mut |l, i| {
                let zero = l.konst(0, ty);
                let neg = l.alu(O::Isub, &[zero, x[i]], ty);
                let lt = l.alu(O::Ilt, &[x[i], zero], Ty::Bool);
                l.alu(O::Sel, &[lt, neg, x[i]], ty)
            }),
            M::Abs => x.clone(),
            M::Min | M::Max if !int => {
                let op = if fun == M::Min { O::Fmin } else { O::Fmax };
                each(self, &mut |l, i| l.f2(op, x[i], at(&y, i)))
            }
            M::Min | M::Max => {
                let lt = if ty == Ty::U32 { O::Ult } else { O::Ilt };
                each(self, &mut |l, i| {
                    let (a, b) = (x[i], at(&y, i));
                    let c = l.alu(lt, &[a, b], Ty::Bool);
                    if fun == M::Min {
                        l.alu(O::Sel, &[c, a, b], ty)
                    } else {
                        l.alu(O::Sel, &[c, b, a], ty)
                    }
                })
            }
            M::Clamp if !int => each(self, &mut |l, i| {
                let m = l.f2(O::Fmax, x[i], at(&y, i));
                l.f2(O::Fmin, m, at(&z, i))
            }),
            M::Saturate => each(self, &mut |l, i| {
                let (zero, one) = (l.fconst(0.0), l.fconst(1.0));
                let m = l.f2(O::Fmax, x[i], zero);
                l.f2(O::Fmin, m, one)
            }),
            M::Sin => each(self, &mut |l, i| l.f1(O::Sin, x[i])),
            M::Cos => each(self, &mut |l, i| l.f1(O::Cos, x[i])),
            M::Tan => each(self, &mut |l, i| {
                let s = l.f1(O::Sin, x[i]);
                let c = l.f1(O::Cos, x[i]);
                let r = l.f1(O::Rcp, c);
                l.f2(O::Fmul, s, r)
            }),
            M::Exp2 => each(self, &mut |l, i| l.f1(O::Exp2, x[i])),
            M::Log2 => each(self, &mut |l, i| l.f1(O::Log2, x[i])),
            M::Exp => each(self, &mut |l, i| {
                let k = l.fconst(std::f32::consts::LOG2_E);
                let m = l.f2(O::Fmul, x[i], k);
                l.f1(O::Exp2, m)
            }),
            M::Log => each(self, &mut |l, i| {
                let k = l.fconst(std::f32::consts::LN_2);
                let g = l.f1(O::Log2, x[i]);
                l.f2(O::Fmul, g, k)
            }),
            M::Pow => each(self, &mut |l, i| {
                let g = l.f1(O::Log2, x[i]);
                let m = l.f2(O::Fmul, at(&y, i), g);
                l.f1(O::Exp2, m)
            }),
            M::Sqrt => each(self, &mut |l, i| l.f1(O::Sqrt, x[i])),
            M::InverseSqrt => each(self, &mut |l, i| l.f1(O::Rsqrt, x[i])),
            M::Floor => each(self, &mut |l, i| l.f1(O::Floor, x[i])),
            M::Ceil => each(self, &mut |l, i| l.f1(O::Ceil, x[i])),
            M::Trunc => each(self, &mut |l, i| l.f1(O::Trunc, x[i])),
            M::Fract => each(self, &mut |l, i| l.f1(O::Fract, x[i])),
            M::Round => each(self, &mut |l, i| l.f1(O::Rndeven, x[i])),
            M::Radians | M::Degrees => {
                let k = if fun == M::Radians {
                    std::f32::consts::PI / 180.0
                } else {
                    180.0 / std::f32::consts::PI
                };
                each(self, &mut |l, i| {
                    let k = l.fconst(k);
                    l.f2(O::Fmul, x[i], k)
                })
            }
            M::Sign if !int => each(self, &mut |l, i| {
                let (zero, one, mone) = (l.fconst(0.0), l.fconst(1.0), l.fconst(-1.0));
                let gt = l.alu(O::Fgt, &[x[i], zero], Ty::Bool);
                let lt = l.alu(O::Flt, &[x[i], zero], Ty::Bool);
                let s = l.alu(O::Sel, &[lt, mone, zero], Ty::F32);
                l.alu(O::Sel, &[gt, one, s], Ty::F32)
            }),
            M::Fma => each(self, &mut |l, i| {
                l.alu(O::Ffma, &[x[i], at(&y, i), at(&z, i)], Ty::F32)
            }),
            M::Mix => each(self, &mut |l, i| {
                // a + (b − a)·t
                let d = l.f2(O::Fsub, at(&y, i), x[i]);
                let m = l.f2(O::Fmul, d, at(&z, i));
                l.f2(O::Fadd, x[i], m)
            }),
            M::Step => {
                // step(edge, x) = x < edge ? 0 : 1
                let n = x.len().max(y.len());
                (0..n)
                    .map(|i| {
                        let (zero, one) = (self.fconst(0.0), self.fconst(1.0));
                        let lt = self.alu(O::Flt, &[at(&y, i), at(&x, i)], Ty::Bool);
                        self.alu(O::Sel, &[lt, zero, one], Ty::F32)
                    })
                    .collect()
            }
            M::SmoothStep => {
                let n = x.len().max(y.len()).max(z.len());
                (0..n)
                    .map(|i| {
                        let (e0, e1, v) = (at(&x, i), at(&y, i), at(&z, i));
                        let (zero, one, two, three) = (
                            self.fconst(0.0),
                            self.fconst(1.0),
                            self.fconst(2.0),
                            self.fconst(3.0),
                        );
                        let num = self.f2(O::Fsub, v, e0);
                        let den = self.f2(O::Fsub, e1, e0);
                        let r = self.f1(O::Rcp, den);
                        let t = self.f2(O::Fmul, num, r);
                        let t = self.f2(O::Fmax, t, zero);
                        let t = self.f2(O::Fmin, t, one);
                        let tt = self.f2(O::Fmul, t, t);
                        let t2 = self.f2(O::Fmul, two, t);
                        let s = self.f2(O::Fsub, three, t2);
                        self.f2(O::Fmul, tt, s)
                    })
                    .collect()
            }
            M::Dot if !int => vec![self.dot(x.iter().copied().zip(y.iter().copied()).collect())],
            M::Dot => {
                let mut acc = self.alu(O::Imul, &[x[0], y[0]], ty);
                for i in 1..n {
                    let m = self.alu(O::Imul, &[x[i], y[i]], ty);
                    acc = self.alu(O::Iadd, &[acc, m], ty);
                }
                vec![acc]
            }
            M::Cross => {
                let c = |l: &mut Self, i: usize, j: usize| {
                    let a = l.f2(O::Fmul, x[i], y[j]);
                    let b = l.f2(O::Fmul, x[j], y[i]);
                    l.f2(O::Fsub, a, b)
                };
                vec![c(self, 1, 2), c(self, 2, 0), c(self, 0, 1)]
            }
            M::Length | M::Distance => {
                let v: Vec<Value> = if fun == M::Distance {
                    (0..n).map(|i| self.f2(O::Fsub, x[i], y[i])).collect()
                } else {
                    x.clone()
                };
                if v.len() == 1 {
                    vec![self.f1(O::Fabs, v[0])]
                } else {
                    let d = self.dot(v.iter().map(|&a| (a, a)).collect());
                    vec![self.f1(O::Sqrt, d)]
                }
            }
            M::Normalize => {
                let d = self.dot(x.iter().map(|&a| (a, a)).collect());
                let r = self.f1(O::Rsqrt, d);
                x.iter().map(|&a| self.f2(O::Fmul, a, r)).collect()
            }
            M::Reflect => {
                // i − 2·dot(n, i)·n
                let d = self.dot(y.iter().copied().zip(x.iter().copied()).collect());
                let two = self.fconst(2.0);
                let d2 = self.f2(O::Fmul, d, two);
                (0..n)
                    .map(|i| {
                        let m = self.f2(O::Fmul, d2, y[i]);
                        self.f2(O::Fsub, x[i], m)
                    })
                    .collect()
            }
            M::Transpose => {
                let TypeInner::Matrix { columns, rows, .. } = self.inner(ctx, arg) else {
                    unreachable!()
                };
                let (c, r) = (*columns as usize, *rows as usize);
                let mut out = Vec::new();
                for j in 0..r {
                    for k in 0..c {
                        out.push(x[k * r + j]);
                    }
                }
                out
            }
            other => return Err(self.unsupported(format!("built-in function {other:?}"), span)),
        })
    }
}
