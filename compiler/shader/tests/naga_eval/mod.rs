//! An independent evaluator of naga's IR (written from naga's IR documentation; it shares no
//! code with the compiler): one invocation at a time, structured values (no scalarisation),
//! host f32 with subnormals flushed on input and output and NaN made canonical, true division
//! and host special functions. The compiler's output on the interpreter must equal it bit for
//! bit where the operations are exact, and within a stated tolerance elsewhere.
//!
//! Not covered: derivatives (they need the quad), switch, dynamic indexing of pointers.
#![allow(dead_code)]

use naga::{
    BinaryOperator as Bo, Expression as E, Handle, MathFunction as M, Module, Statement as S,
    TypeInner as T,
};
use std::collections::HashMap;

/// A value.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    F(f32),
    I(i32),
    U(u32),
    B(bool),
    /// Vector, matrix (columns), struct or array.
    Agg(Vec<V>),
    Ptr(Place),
    Image(u32),
    Sampler,
}

/// A variable and a path into it.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    root: Root,
    path: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Root {
    Local(usize, Handle<naga::LocalVariable>),
    Global(Handle<naga::GlobalVariable>),
}

fn ftz(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(0x7FC0_0000)
    } else if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn fv(v: &V) -> f32 {
    match v {
        V::F(x) => ftz(*x),
        other => panic!("expected f32, got {other:?}"),
    }
}

/// Flow out of a statement.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Option<V>),
    Kill,
}

/// The evaluator of one module.
pub struct Eval<'m> {
    pub m: &'m Module,
    pub info: &'m naga::valid::ModuleInfo,
    globals: HashMap<Handle<naga::GlobalVariable>, V>,
    frames: Vec<HashMap<Handle<naga::LocalVariable>, V>>,
}

impl<'m> Eval<'m> {
    /// Evaluates entry point `ep` with named inputs and uniforms (by member name); returns the
    /// outputs by name (`None` if the invocation was discarded).
    pub fn run(
        m: &'m Module,
        info: &'m naga::valid::ModuleInfo,
        ep: usize,
        inputs: &HashMap<String, Vec<f64>>,
        uniforms: &HashMap<String, Vec<f64>>,
    ) -> Option<Vec<(String, Vec<V>)>> {
        let mut e = Eval {
            m,
            info,
            globals: HashMap::new(),
            frames: Vec::new(),
        };
        for (h, g) in m.global_variables.iter() {
            let v = match g.space {
                naga::AddressSpace::Uniform => match &m.types[g.ty].inner {
                    T::Struct { members, .. } => V::Agg(
                        members
                            .iter()
                            .map(|mb| {
                                e.build(
                                    mb.ty,
                                    &mut uniforms
                                        .get(mb.name.as_deref().unwrap_or(""))
                                        .cloned()
                                        .unwrap_or_default()
                                        .into_iter(),
                                )
                            })
                            .collect(),
                    ),
                    _ => e.build(
                        g.ty,
                        &mut uniforms
                            .get(g.name.as_deref().unwrap_or(""))
                            .cloned()
                            .unwrap_or_default()
                            .into_iter(),
                    ),
                },
                naga::AddressSpace::Handle => match m.types[g.ty].inner {
                    T::Image { .. } => V::Image(g.binding.as_ref().unwrap().binding),
                    _ => V::Sampler,
                },
                _ => match g.init {
                    Some(i) => e.const_expr(i),
                    None => e.zero(g.ty),
                },
            };
            e.globals.insert(h, v);
        }
        let entry = &m.entry_points[ep];
        let f = &entry.function;
        let mut args = Vec::new();
        for a in &f.arguments {
            if a.binding.is_some() {
                args.push(
                    e.build(
                        a.ty,
                        &mut inputs
                            .get(a.name.as_deref().unwrap_or(""))
                            .cloned()
                            .unwrap_or_default()
                            .into_iter(),
                    ),
                );
            } else {
                let T::Struct { members, .. } = &m.types[a.ty].inner else {
                    panic!()
                };
                args.push(V::Agg(
                    members
                        .iter()
                        .map(|mb| {
                            e.build(
                                mb.ty,
                                &mut inputs
                                    .get(mb.name.as_deref().unwrap_or(""))
                                    .cloned()
                                    .unwrap_or_default()
                                    .into_iter(),
                            )
                        })
                        .collect(),
                ));
            }
        }
        let (ret, killed) = e.call(f, args);
        if killed {
            return None;
        }
        let mut outs = Vec::new();
        if let (Some(r), Some(v)) = (&f.result, ret) {
            match &r.binding {
                Some(_) => outs.push(("out".to_string(), flatten(&v))),
                None => {
                    let T::Struct { members, .. } = &m.types[r.ty].inner else {
                        panic!()
                    };
                    let V::Agg(parts) = v else { panic!() };
                    for (mb, p) in members.iter().zip(parts) {
                        if matches!(
                            mb.binding,
                            Some(naga::Binding::BuiltIn(naga::BuiltIn::PointSize))
                        ) {
                            continue;
                        }
                        outs.push((mb.name.clone().unwrap_or_default(), flatten(&p)));
                    }
                }
            }
        }
        Some(outs)
    }

    /// A value of type `ty` from numbers.
    fn build(&self, ty: Handle<naga::Type>, nums: &mut impl Iterator<Item = f64>) -> V {
        self.build_inner(&self.m.types[ty].inner, nums)
    }

    fn build_inner(&self, t: &T, nums: &mut impl Iterator<Item = f64>) -> V {
        let scalar = |s: naga::Scalar, x: f64| match s.kind {
            naga::ScalarKind::Float => V::F(x as f32),
            naga::ScalarKind::Sint => V::I(x as i32),
            naga::ScalarKind::Uint => V::U(x as u32),
            _ => V::B(x != 0.0),
        };
        match t {
            T::Scalar(s) => scalar(*s, nums.next().unwrap_or(0.0)),
            T::Vector { size, scalar: s } => V::Agg(
                (0..*size as usize)
                    .map(|_| scalar(*s, nums.next().unwrap_or(0.0)))
                    .collect(),
            ),
            T::Matrix {
                columns,
                rows,
                scalar: s,
            } => V::Agg(
                (0..*columns as usize)
                    .map(|_| {
                        V::Agg(
                            (0..*rows as usize)
                                .map(|_| scalar(*s, nums.next().unwrap_or(0.0)))
                                .collect(),
                        )
                    })
                    .collect(),
            ),
            T::Array {
                base,
                size: naga::ArraySize::Constant(n),
                ..
            } => V::Agg((0..n.get()).map(|_| self.build(*base, nums)).collect()),
            T::Struct { members, .. } => {
                V::Agg(members.iter().map(|mb| self.build(mb.ty, nums)).collect())
            }
            other => panic!("cannot build {other:?}"),
        }
    }

    fn zero(&self, ty: Handle<naga::Type>) -> V {
        self.build(ty, &mut std::iter::repeat(0.0))
    }

    fn const_expr(&self, h: Handle<E>) -> V {
        match &self.m.global_expressions[h] {
            E::Literal(l) => lit(l),
            E::Constant(c) => self.const_expr(self.m.constants[*c].init),
            E::ZeroValue(t) => self.zero(*t),
            E::Compose { components, .. } => {
                V::Agg(components.iter().map(|c| self.const_expr(*c)).collect())
            }
            E::Splat { size, value } => V::Agg(vec![self.const_expr(*value); *size as usize]),
            other => panic!("constant {other:?}"),
        }
    }

    fn call(&mut self, f: &'m naga::Function, args: Vec<V>) -> (Option<V>, bool) {
        let mut locals = HashMap::new();
        for (h, l) in f.local_variables.iter() {
            locals.insert(h, V::Agg(vec![])); // placeholder, set below
            let _ = l;
        }
        self.frames.push(locals);
        let frame = self.frames.len() - 1;
        let mut cache: HashMap<Handle<E>, V> = HashMap::new();
        for (h, l) in f.local_variables.iter() {
            let v = match l.init {
                Some(i) => self.expr(f, &args, frame, &mut cache, i),
                None => self.zero(l.ty),
            };
            self.frames[frame].insert(h, v);
        }
        let flow = self.block(f, &args, frame, &mut cache, &f.body);
        self.frames.pop();
        match flow {
            Flow::Return(v) => (v, false),
            Flow::Kill => (None, true),
            _ => (None, false),
        }
    }

    fn block(
        &mut self,
        f: &'m naga::Function,
        args: &[V],
        frame: usize,
        cache: &mut HashMap<Handle<E>, V>,
        b: &'m naga::Block,
    ) -> Flow {
        for s in b.iter() {
            let flow = match s {
                S::Emit(r) => {
                    for h in r.clone() {
                        // Emitted again (a loop's next iteration): evaluate afresh.
                        cache.remove(&h);
                        let v = self.expr(f, args, frame, cache, h);
                        cache.insert(h, v);
                    }
                    Flow::Next
                }
                S::Block(b) => self.block(f, args, frame, cache, b),
                S::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let c = matches!(self.expr(f, args, frame, cache, *condition), V::B(true));
                    self.block(f, args, frame, cache, if c { accept } else { reject })
                }
                S::Loop {
                    body,
                    continuing,
                    break_if,
                } => loop {
                    match self.block(f, args, frame, cache, body) {
                        Flow::Break => break Flow::Next,
                        r @ (Flow::Return(_) | Flow::Kill) => break r,
                        _ => {}
                    }
                    match self.block(f, args, frame, cache, continuing) {
                        r @ (Flow::Return(_) | Flow::Kill) => break r,
                        Flow::Break => break Flow::Next,
                        _ => {}
                    }
                    if let Some(b) = break_if {
                        if matches!(self.expr(f, args, frame, cache, *b), V::B(true)) {
                            break Flow::Next;
                        }
                    }
                },
                S::Break => Flow::Break,
                S::Continue => Flow::Continue,
                S::Return { value } => {
                    Flow::Return(value.map(|v| self.expr(f, args, frame, cache, v)))
                }
                S::Kill => Flow::Kill,
                S::Store { pointer, value } => {
                    let V::Ptr(p) = self.expr(f, args, frame, cache, *pointer) else {
                        panic!("store target")
                    };
                    let v = self.expr(f, args, frame, cache, *value);
                    *self.place(&p) = v;
                    Flow::Next
                }
                S::Call {
                    function,
                    arguments,
                    result,
                } => {
                    let a: Vec<V> = arguments
                        .iter()
                        .map(|x| self.expr(f, args, frame, cache, *x))
                        .collect();
                    let (r, killed) = self.call(&self.m.functions[*function], a);
                    if killed {
                        return Flow::Kill;
                    }
                    if let (Some(h), Some(v)) = (result, r) {
                        cache.insert(*h, v);
                    }
                    Flow::Next
                }
                other => panic!("statement {other:?}"),
            };
            if !matches!(flow, Flow::Next) {
                return flow;
            }
        }
        Flow::Next
    }

    fn place(&mut self, p: &Place) -> &mut V {
        let mut v = match p.root {
            Root::Local(fr, h) => self.frames[fr].get_mut(&h).unwrap(),
            Root::Global(g) => self.globals.get_mut(&g).unwrap(),
        };
        for &i in &p.path {
            let V::Agg(items) = v else {
                panic!("path into a scalar")
            };
            v = &mut items[i];
        }
        v
    }

    fn expr(
        &mut self,
        f: &'m naga::Function,
        args: &[V],
        frame: usize,
        cache: &mut HashMap<Handle<E>, V>,
        h: Handle<E>,
    ) -> V {
        if let Some(v) = cache.get(&h) {
            return v.clone();
        }
        let mut ev = |s: &mut Self, x: Handle<E>| s.expr(f, args, frame, cache, x);
        match &f.expressions[h] {
            E::Literal(l) => lit(l),
            E::Constant(c) => self.const_expr(self.m.constants[*c].init),
            E::ZeroValue(t) => self.zero(*t),
            E::Compose { components, .. } => {
                let ty = self.info_ty(f, h);
                let parts: Vec<V> = components.iter().map(|c| ev(self, *c)).collect();
                // GLSL may compose vectors from vectors: flatten for vectors.
                if matches!(ty, T::Vector { .. }) {
                    V::Agg(parts.iter().flat_map(flatten).collect())
                } else {
                    V::Agg(parts)
                }
            }
            E::Splat { size, value } => V::Agg(vec![ev(self, *value); *size as usize]),
            E::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let V::Agg(v) = ev(self, *vector) else {
                    panic!()
                };
                V::Agg(
                    pattern[..*size as usize]
                        .iter()
                        .map(|&c| v[c as usize].clone())
                        .collect(),
                )
            }
            E::FunctionArgument(i) => args[*i as usize].clone(),
            E::LocalVariable(l) => V::Ptr(Place {
                root: Root::Local(frame, *l),
                path: vec![],
            }),
            E::GlobalVariable(g) => match self.m.global_variables[*g].space {
                naga::AddressSpace::Handle => self.globals[g].clone(),
                _ => V::Ptr(Place {
                    root: Root::Global(*g),
                    path: vec![],
                }),
            },
            E::Load { pointer } => {
                let V::Ptr(p) = ev(self, *pointer) else {
                    panic!()
                };
                self.place(&p).clone()
            }
            E::AccessIndex { base, index } => index_into(ev(self, *base), *index as usize),
            E::Access { base, index } => {
                let i = match ev(self, *index) {
                    V::I(x) => x as usize,
                    V::U(x) => x as usize,
                    other => panic!("index {other:?}"),
                };
                index_into(ev(self, *base), i)
            }
            E::Unary { op, expr } => map1(&ev(self, *expr), &|x| match (op, x) {
                (naga::UnaryOperator::Negate, V::F(a)) => V::F(ftz(-ftz(*a))),
                (naga::UnaryOperator::Negate, V::I(a)) => V::I(a.wrapping_neg()),
                (naga::UnaryOperator::LogicalNot, V::B(a)) => V::B(!a),
                (naga::UnaryOperator::BitwiseNot, V::I(a)) => V::I(!a),
                (naga::UnaryOperator::BitwiseNot, V::U(a)) => V::U(!a),
                other => panic!("unary {other:?}"),
            }),
            E::Binary { op, left, right } => {
                let (lt, rt) = (
                    self.info_ty(f, *left).clone(),
                    self.info_ty(f, *right).clone(),
                );
                let (a, b) = (ev(self, *left), ev(self, *right));
                binary(*op, &lt, &rt, a, b)
            }
            E::Select {
                condition,
                accept,
                reject,
            } => {
                let (c, a, r) = (ev(self, *condition), ev(self, *accept), ev(self, *reject));
                match (c, a, r) {
                    (V::B(c), a, r) => {
                        if c {
                            a
                        } else {
                            r
                        }
                    }
                    (V::Agg(c), V::Agg(a), V::Agg(r)) => V::Agg(
                        c.into_iter()
                            .zip(a.into_iter().zip(r))
                            .map(|(c, (a, r))| if c == V::B(true) { a } else { r })
                            .collect(),
                    ),
                    other => panic!("select {other:?}"),
                }
            }
            E::As {
                expr,
                kind,
                convert,
            } => {
                let x = ev(self, *expr);
                map1(&x, &|s| convert_scalar(s, *kind, convert.is_some()))
            }
            E::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => {
                let x = ev(self, *arg);
                let y = arg1.map(|a| ev(self, a));
                let z = arg2.map(|a| ev(self, a));
                math(*fun, x, y, z)
            }
            E::Relational { fun, argument } => {
                let x = ev(self, *argument);
                match fun {
                    naga::RelationalFunction::All => {
                        V::B(flatten(&x).iter().all(|b| *b == V::B(true)))
                    }
                    naga::RelationalFunction::Any => V::B(flatten(&x).contains(&V::B(true))),
                    naga::RelationalFunction::IsNan => map1(&x, &|s| V::B(fv(s).is_nan())),
                    naga::RelationalFunction::IsInf => map1(&x, &|s| V::B(fv(s).is_infinite())),
                }
            }
            E::ImageSample {
                image, coordinate, ..
            } => {
                let V::Image(_) = ev(self, *image) else {
                    panic!()
                };
                let V::Agg(c) = ev(self, *coordinate) else {
                    panic!()
                };
                // The test environment's texture (`common::UnormEnv`): UNORM16 words
                // (bits(s) >> 16, bits(t) >> 16, 0x1234, 0xFFFF), converted by the ABI's
                // u2f(w) · f32(1/65535).
                let k = rendergen_shader_compiler::abi::UNORM16_SCALE;
                let conv = |w: u32| V::F(w as f32 * k);
                V::Agg(vec![
                    conv(fv(&c[0]).to_bits() >> 16),
                    conv(fv(&c[1]).to_bits() >> 16),
                    conv(0x1234),
                    conv(0xFFFF),
                ])
            }
            E::CallResult(_) => panic!("call result before the call"),
            other => panic!("expression {other:?}"),
        }
    }

    fn info_ty(&self, f: &'m naga::Function, h: Handle<E>) -> &'m T {
        // Find the function's info: entry points or functions.
        let fi = self
            .m
            .entry_points
            .iter()
            .position(|e| std::ptr::eq(&e.function, f))
            .map(|i| self.info.get_entry_point(i))
            .unwrap_or_else(|| {
                let (fh, _) = self
                    .m
                    .functions
                    .iter()
                    .find(|(_, g)| std::ptr::eq(*g, f))
                    .unwrap();
                &self.info[fh]
            });
        fi[h].ty.inner_with(&self.m.types)
    }
}

fn lit(l: &naga::Literal) -> V {
    match *l {
        naga::Literal::F32(x) => V::F(x),
        naga::Literal::I32(x) => V::I(x),
        naga::Literal::U32(x) => V::U(x),
        naga::Literal::Bool(b) => V::B(b),
        naga::Literal::AbstractInt(x) => V::I(x as i32),
        naga::Literal::AbstractFloat(x) => V::F(x as f32),
        other => panic!("literal {other:?}"),
    }
}

/// Leaves in order.
pub fn flatten(v: &V) -> Vec<V> {
    match v {
        V::Agg(items) => items.iter().flat_map(flatten).collect(),
        other => vec![other.clone()],
    }
}

fn index_into(v: V, i: usize) -> V {
    match v {
        V::Ptr(mut p) => {
            p.path.push(i);
            V::Ptr(p)
        }
        V::Agg(mut items) => items.swap_remove(i),
        other => panic!("index into {other:?}"),
    }
}

fn map1(v: &V, f: &dyn Fn(&V) -> V) -> V {
    match v {
        V::Agg(items) => V::Agg(items.iter().map(|x| map1(x, f)).collect()),
        s => f(s),
    }
}

fn map2(a: &V, b: &V, f: &dyn Fn(&V, &V) -> V) -> V {
    match (a, b) {
        (V::Agg(x), V::Agg(y)) => V::Agg(x.iter().zip(y).map(|(p, q)| map2(p, q, f)).collect()),
        (V::Agg(x), s) => V::Agg(x.iter().map(|p| map2(p, s, f)).collect()),
        (s, V::Agg(y)) => V::Agg(y.iter().map(|q| map2(s, q, f)).collect()),
        (p, q) => f(p, q),
    }
}

fn fop(x: f32, y: f32, op: fn(f32, f32) -> f32) -> V {
    V::F(ftz(op(ftz(x), ftz(y))))
}

fn scalar_binary(op: Bo, a: &V, b: &V) -> V {
    use V::*;
    match (a, b) {
        (F(x), F(y)) => match op {
            Bo::Add => fop(*x, *y, |a, b| a + b),
            Bo::Subtract => fop(*x, *y, |a, b| a - b),
            Bo::Multiply => fop(*x, *y, |a, b| a * b),
            Bo::Divide => fop(*x, *y, |a, b| a / b),
            Bo::Modulo => fop(*x, *y, |a, b| a - b * (a / b).trunc()),
            Bo::Equal => V::B(ftz(*x) == ftz(*y)),
            Bo::NotEqual => V::B(ftz(*x) != ftz(*y)),
            Bo::Less => V::B(ftz(*x) < ftz(*y)),
            Bo::LessEqual => V::B(ftz(*x) <= ftz(*y)),
            Bo::Greater => V::B(ftz(*x) > ftz(*y)),
            Bo::GreaterEqual => V::B(ftz(*x) >= ftz(*y)),
            _ => panic!("float {op:?}"),
        },
        (I(x), I(_) | U(_)) => {
            let yy = match b {
                I(v) => *v,
                U(v) => *v as i32,
                _ => unreachable!(),
            };
            match op {
                Bo::Add => I(x.wrapping_add(yy)),
                Bo::Subtract => I(x.wrapping_sub(yy)),
                Bo::Multiply => I(x.wrapping_mul(yy)),
                Bo::Equal => V::B(*x == yy),
                Bo::NotEqual => V::B(*x != yy),
                Bo::Less => V::B(*x < yy),
                Bo::LessEqual => V::B(*x <= yy),
                Bo::Greater => V::B(*x > yy),
                Bo::GreaterEqual => V::B(*x >= yy),
                Bo::And => I(x & yy),
                Bo::InclusiveOr => I(x | yy),
                Bo::ExclusiveOr => I(x ^ yy),
                Bo::ShiftLeft => I(x.wrapping_shl(yy as u32)),
                Bo::ShiftRight => I(x.wrapping_shr(yy as u32)),
                _ => panic!("int {op:?}"),
            }
        }
        (U(x), U(y)) => match op {
            Bo::Add => U(x.wrapping_add(*y)),
            Bo::Subtract => U(x.wrapping_sub(*y)),
            Bo::Multiply => U(x.wrapping_mul(*y)),
            Bo::Equal => V::B(x == y),
            Bo::NotEqual => V::B(x != y),
            Bo::Less => V::B(x < y),
            Bo::LessEqual => V::B(x <= y),
            Bo::Greater => V::B(x > y),
            Bo::GreaterEqual => V::B(x >= y),
            Bo::And => U(x & y),
            Bo::InclusiveOr => U(x | y),
            Bo::ExclusiveOr => U(x ^ y),
            Bo::ShiftLeft => U(x.wrapping_shl(*y)),
            Bo::ShiftRight => U(x.wrapping_shr(*y)),
            _ => panic!("uint {op:?}"),
        },
        (V::B(x), V::B(y)) => match op {
            Bo::LogicalAnd | Bo::And => V::B(*x && *y),
            Bo::LogicalOr | Bo::InclusiveOr => V::B(*x || *y),
            Bo::Equal => V::B(x == y),
            Bo::NotEqual => V::B(x != y),
            _ => panic!("bool {op:?}"),
        },
        other => panic!("binary {op:?} on {other:?}"),
    }
}

fn dot(a: &[V], b: &[V]) -> V {
    let mut acc = fop(fv(&a[0]), fv(&b[0]), |x, y| x * y);
    for i in 1..a.len() {
        let m = fop(fv(&a[i]), fv(&b[i]), |x, y| x * y);
        acc = fop(fv(&acc), fv(&m), |x, y| x + y);
    }
    acc
}

fn binary(op: Bo, lt: &T, rt: &T, a: V, b: V) -> V {
    if op == Bo::Multiply {
        match (lt, rt, &a, &b) {
            (T::Matrix { rows, .. }, T::Vector { .. }, V::Agg(cols), V::Agg(v)) => {
                return V::Agg(
                    (0..*rows as usize)
                        .map(|r| {
                            let row: Vec<V> =
                                cols.iter().map(|c| index_into(c.clone(), r)).collect();
                            dot(&row, v)
                        })
                        .collect(),
                );
            }
            (T::Vector { .. }, T::Matrix { .. }, V::Agg(v), V::Agg(cols)) => {
                return V::Agg(
                    cols.iter()
                        .map(|c| {
                            let V::Agg(c) = c else { panic!() };
                            dot(v, c)
                        })
                        .collect(),
                );
            }
            (T::Matrix { rows, .. }, T::Matrix { .. }, V::Agg(ac), V::Agg(bc)) => {
                return V::Agg(
                    bc.iter()
                        .map(|bcol| {
                            let V::Agg(bcol) = bcol else { panic!() };
                            V::Agg(
                                (0..*rows as usize)
                                    .map(|r| {
                                        let row: Vec<V> =
                                            ac.iter().map(|c| index_into(c.clone(), r)).collect();
                                        dot(&row, bcol)
                                    })
                                    .collect(),
                            )
                        })
                        .collect(),
                );
            }
            _ => {}
        }
    }
    map2(&a, &b, &|x, y| scalar_binary(op, x, y))
}

fn convert_scalar(s: &V, kind: naga::ScalarKind, convert: bool) -> V {
    use naga::ScalarKind as K;
    if !convert {
        let bits = match s {
            V::F(x) => x.to_bits(),
            V::I(x) => *x as u32,
            V::U(x) => *x,
            V::B(b) => *b as u32,
            _ => panic!(),
        };
        return match kind {
            K::Float => V::F(f32::from_bits(bits)),
            K::Sint => V::I(bits as i32),
            K::Uint => V::U(bits),
            _ => V::B(bits != 0),
        };
    }
    match (s, kind) {
        (V::F(x), K::Sint) => V::I(ftz(*x) as i32),
        (V::F(x), K::Uint) => V::U(ftz(*x) as u32),
        (V::F(x), K::Bool) => V::B(ftz(*x) != 0.0),
        (V::F(x), K::Float) => V::F(*x),
        (V::I(x), K::Float) => V::F(*x as f32),
        (V::U(x), K::Float) => V::F(*x as f32),
        (V::I(x), K::Uint) => V::U(*x as u32),
        (V::U(x), K::Sint) => V::I(*x as i32),
        (V::I(x), K::Bool) => V::B(*x != 0),
        (V::U(x), K::Bool) => V::B(*x != 0),
        (V::B(b), K::Float) => V::F(*b as u32 as f32),
        (V::B(b), K::Sint) => V::I(*b as i32),
        (V::B(b), K::Uint) => V::U(*b as u32),
        (x, _) => x.clone(),
    }
}

fn f1(x: &V, f: fn(f64) -> f64) -> V {
    map1(x, &|s| V::F(ftz(f(fv(s) as f64) as f32)))
}

fn math(fun: M, x: V, y: Option<V>, z: Option<V>) -> V {
    let y = y.unwrap_or(V::F(0.0));
    let z = z.unwrap_or(V::F(0.0));
    match fun {
        M::Abs => map1(&x, &|s| match s {
            V::F(a) => V::F(ftz(*a).abs()),
            V::I(a) => V::I(a.wrapping_abs()),
            o => o.clone(),
        }),
        M::Min => map2(&x, &y, &|a, b| match (a, b) {
            (V::F(p), V::F(q)) => V::F(ftz(*p).min(ftz(*q))),
            (V::I(p), V::I(q)) => V::I(*p.min(q)),
            (V::U(p), V::U(q)) => V::U(*p.min(q)),
            _ => panic!(),
        }),
        M::Max => map2(&x, &y, &|a, b| match (a, b) {
            (V::F(p), V::F(q)) => V::F(ftz(*p).max(ftz(*q))),
            (V::I(p), V::I(q)) => V::I(*p.max(q)),
            (V::U(p), V::U(q)) => V::U(*p.max(q)),
            _ => panic!(),
        }),
        M::Clamp => {
            let lo = math(M::Max, x, Some(y), None);
            math(M::Min, lo, Some(z), None)
        }
        M::Saturate => map1(&x, &|s| V::F(fv(s).clamp(0.0, 1.0))),
        M::Sin => f1(&x, f64::sin),
        M::Cos => f1(&x, f64::cos),
        M::Tan => f1(&x, f64::tan),
        M::Exp => f1(&x, f64::exp),
        M::Exp2 => f1(&x, f64::exp2),
        M::Log => f1(&x, f64::ln),
        M::Log2 => f1(&x, f64::log2),
        M::Sqrt => f1(&x, f64::sqrt),
        M::InverseSqrt => f1(&x, |a| 1.0 / a.sqrt()),
        M::Floor => f1(&x, f64::floor),
        M::Ceil => f1(&x, f64::ceil),
        M::Trunc => f1(&x, f64::trunc),
        M::Fract => map1(&x, &|s| {
            let a = fv(s);
            V::F(ftz(a - a.floor()))
        }),
        M::Round => f1(&x, f64::round_ties_even),
        M::Pow => map2(&x, &y, &|a, b| {
            V::F(ftz((fv(a) as f64).powf(fv(b) as f64) as f32))
        }),
        // Fused where the source asks for it (fma): one rounding.
        M::Fma => zip3(&x, &y, &z, |a, b, c| V::F(ftz(a.mul_add(b, c)))),
        // The specification's x·(1 − a) + y·a.
        M::Mix => zip3(&x, &y, &z, |a, b, t| V::F(ftz(a * (1.0 - t) + b * t))),
        M::Step => map2(&x, &y, &|e, v| V::F(if fv(v) < fv(e) { 0.0 } else { 1.0 })),
        M::SmoothStep => {
            let (V::F(e0), V::F(e1)) = (&x, &y) else {
                panic!("vector smoothstep edges")
            };
            map1(&z, &|v| {
                let t = ((fv(v) - e0) / (e1 - e0)).clamp(0.0, 1.0);
                V::F(t * t * (3.0 - 2.0 * t))
            })
        }
        M::Dot => {
            let (V::Agg(a), V::Agg(b)) = (&x, &y) else {
                panic!()
            };
            if let V::F(_) = a[0] {
                dot(a, b)
            } else {
                let mut acc = 0i64;
                for (p, q) in a.iter().zip(b) {
                    if let (V::I(p), V::I(q)) = (p, q) {
                        acc += (*p as i64) * (*q as i64)
                    }
                }
                V::I(acc as i32)
            }
        }
        M::Cross => {
            let (V::Agg(a), V::Agg(b)) = (&x, &y) else {
                panic!()
            };
            let c = |i: usize, j: usize| {
                fop(
                    fv(&fop(fv(&a[i]), fv(&b[j]), |p, q| p * q)),
                    fv(&fop(fv(&a[j]), fv(&b[i]), |p, q| p * q)),
                    |p, q| p - q,
                )
            };
            V::Agg(vec![c(1, 2), c(2, 0), c(0, 1)])
        }
        M::Length => {
            let l: Vec<f64> = flatten(&x).iter().map(|s| fv(s) as f64).collect();
            V::F(l.iter().map(|a| a * a).sum::<f64>().sqrt() as f32)
        }
        M::Distance => {
            let a: Vec<f64> = flatten(&x).iter().map(|s| fv(s) as f64).collect();
            let b: Vec<f64> = flatten(&y).iter().map(|s| fv(s) as f64).collect();
            V::F(
                a.iter()
                    .zip(&b)
                    .map(|(p, q)| (p - q) * (p - q))
                    .sum::<f64>()
                    .sqrt() as f32,
            )
        }
        M::Normalize => {
            let l: Vec<f64> = flatten(&x).iter().map(|s| fv(s) as f64).collect();
            let n = l.iter().map(|a| a * a).sum::<f64>().sqrt();
            V::Agg(l.iter().map(|a| V::F((a / n) as f32)).collect())
        }
        M::Sign => map1(&x, &|s| {
            V::F(match fv(s) {
                a if a > 0.0 => 1.0,
                a if a < 0.0 => -1.0,
                _ => 0.0,
            })
        }),
        M::Radians => f1(&x, f64::to_radians),
        M::Degrees => f1(&x, f64::to_degrees),
        other => panic!("math {other:?}"),
    }
}

/// `f` over the leaves of three values (scalars broadcast), shaped like the widest.
fn zip3(x: &V, y: &V, z: &V, f: fn(f32, f32, f32) -> V) -> V {
    let (a, b, c) = (flatten(x), flatten(y), flatten(z));
    let n = a.len().max(b.len()).max(c.len());
    let at = |v: &Vec<V>, i: usize| fv(&v[if v.len() == 1 { 0 } else { i }]);
    let out: Vec<V> = (0..n).map(|i| f(at(&a, i), at(&b, i), at(&c, i))).collect();
    if n == 1 && !matches!(x, V::Agg(_)) && !matches!(y, V::Agg(_)) && !matches!(z, V::Agg(_)) {
        out.into_iter().next().unwrap()
    } else {
        V::Agg(out)
    }
}
