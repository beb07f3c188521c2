//! naga → IR: parse (GLSL 4.50 Vulkan flavour or WGSL), validate, then lower one entry point.
//!
//! Lowering scalarises every value (vectors, matrices column-major, arrays and structs become
//! lists of 32-bit leaves), inlines calls, and builds SSA over naga's local and private
//! variables while walking its structured statements: an `if` gets a phi for each variable leaf
//! its branches leave different, a loop gets a parameter and a result for each leaf of a
//! variable stored inside it. `continue` into a non-empty `continuing` block, `return` and
//! `discard` inside control flow use flags and an extra one-trip loop (see `Lower::lower_loop`).
//! Where inputs, built-ins, uniforms, samplers and outputs go is the ABI (`ABI.md`, [`crate::abi`]).

mod expr;
mod image;
mod sampled;
mod stmt;

use crate::abi;
use crate::ir::{Op, Phi, Program, Stmt, Ty, Value};
use crate::{CompileError, Interface, IoVar, Lang, UniformVar};
use naga::{Block, Expression, Handle, Module, ShaderStage, Span, Statement, TypeInner};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Parses and validates `src`.
pub fn parse(
    src: &str,
    path: &str,
    lang: Lang,
) -> Result<(Module, naga::valid::ModuleInfo), CompileError> {
    let module = match lang {
        Lang::Glsl(stage) => {
            let mut f = naga::front::glsl::Frontend::default();
            f.parse(&naga::front::glsl::Options::from(stage), src)
                .map_err(|e| {
                    let loc = e.errors.first().map(|x| x.meta.location(src));
                    CompileError::at(
                        path,
                        loc,
                        first_line(&e.emit_to_string_with_path(src, path)),
                        e.emit_to_string_with_path(src, path),
                    )
                })?
        }
        Lang::Wgsl => naga::front::wgsl::parse_str(src).map_err(|e| {
            CompileError::at(
                path,
                e.location(src),
                e.message().to_string(),
                e.emit_to_string_with_path(src, path),
            )
        })?,
    };
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| {
        let text = e.emit_to_string_with_path(src, path);
        // The validator's error chain says what is wrong (the first line only where).
        let mut msg = first_line(&text);
        let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(e.as_inner());
        while let Some(c) = cause {
            msg.push_str(&format!(": {c}"));
            cause = c.source();
        }
        CompileError::at(path, e.location(src), msg, text)
    })?;
    Ok((module, info))
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    l.strip_prefix("error: ").unwrap_or(l).to_string()
}

/// A root of a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum VarKey {
    /// A local variable of an inlined call instance.
    Local(u32, u32),
    /// A private global.
    Private(u32),
    /// The return value of a call instance.
    Ret(u32),
    /// Whether the call instance has returned.
    Returned(u32),
    /// Whether the invocation was discarded.
    Killed,
    /// Whether a loop (by id) was left by `break` through its continue wrapper.
    Broke(u32),
}

/// A scalar slot of a variable.
type Slot = (VarKey, u32);

/// Where a pointer points.
#[derive(Clone, Debug)]
pub(crate) enum Root {
    Var(VarKey),
    /// A uniform global (its leaves' words are in `Lower::uniform_words`).
    Uniform(u32),
    /// A storage buffer at this base byte address (`offset` and the dynamic stride count
    /// bytes).
    Storage(u32),
}

/// A pointer: leaves `offset + i·stride + k` of its root, `i` the dynamic index if any.
#[derive(Clone, Debug)]
pub(crate) struct Ptr {
    pub root: Root,
    pub offset: u32,
    pub dynamic: Option<(Value, u32, u32)>,
}

/// A lowered expression.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Leaves(Vec<Value>),
    Ptr(Ptr),
    Image(u32),
    Sampler,
}

/// One inlined function.
pub(crate) struct FnCtx<'m> {
    pub fun: &'m naga::Function,
    pub info: &'m naga::valid::FunctionInfo,
    pub inst: u32,
    pub args: Vec<Val>,
    pub cache: HashMap<Handle<Expression>, Val>,
    /// Whether its body is wrapped in a one-trip loop (early `return`/`discard`).
    pub wrapped: bool,
}

/// What a statement list contains (for loops' carried slots).
#[derive(Default)]
struct Scan {
    stored: HashSet<VarKey>,
    ret: bool,
    kill: bool,
    call: bool,
    /// `continue` of this loop (not of nested ones).
    cont: bool,
}

/// The lowering state.
pub(crate) struct Lower<'m> {
    pub module: &'m Module,
    pub src: &'m str,
    pub path: &'m str,
    pub prog: Program,
    /// Constants and launch inputs, hoisted to the program's start.
    pub prelude: Vec<Stmt>,
    pub consts: HashMap<(u32, Ty), Value>,
    pub cur: Vec<Stmt>,
    pub vars: BTreeMap<Slot, Value>,
    pub instances: u32,
    pub loops: u32,
    /// Per uniform global: (word, type) of each leaf.
    pub uniform_words: HashMap<u32, Vec<(u32, Ty)>>,
    pub stage: ShaderStage,
    pub iface: Interface,
    pub uses_kill: bool,
    /// The binding of the one sampled texture the program samples, once seen.
    pub tex_binding: Option<u32>,
    /// Nesting of IR blocks (the core's mask stack).
    pub depth: usize,
    /// The slots of each enclosing IR loop (a break's or continue's values).
    pub loop_slots: Vec<Vec<Slot>>,
    /// How each enclosing naga loop maps `break`/`continue`.
    pub loop_kinds: Vec<LoopKind>,
    pub info: &'m naga::valid::ModuleInfo,
    /// The span of the statement being lowered (for expressions without one).
    pub stmt_span: Span,
}

/// How a naga loop was lowered.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LoopKind {
    /// One IR loop: `break` and `continue` map directly.
    Plain,
    /// An outer IR loop and an inner one-trip loop around the body: `continue` leaves the
    /// inner loop, `break` sets the flag and leaves it.
    Wrapped(u32),
    /// A `switch` (a one-trip loop): `break` leaves it; `continue` is not supported inside.
    Switch,
}

/// Lowers entry point `entry` of `module`.
pub fn lower(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    entry: usize,
    src: &str,
    path: &str,
) -> Result<(Program, Interface), CompileError> {
    let ep = &module.entry_points[entry];
    let mut l = Lower {
        module,
        src,
        path,
        prog: Program::default(),
        prelude: Vec::new(),
        consts: HashMap::new(),
        cur: Vec::new(),
        vars: BTreeMap::new(),
        instances: 0,
        loops: 0,
        uniform_words: HashMap::new(),
        stage: ep.stage,
        iface: Interface::default(),
        uses_kill: false,
        tex_binding: None,
        depth: 0,
        loop_slots: Vec::new(),
        loop_kinds: Vec::new(),
        info,
        stmt_span: Span::UNDEFINED,
    };
    l.iface.stage = ep.stage;
    l.iface.workgroup_size = ep.workgroup_size;
    l.iface.entry = ep.name.clone();
    l.globals()?;
    let killed = l.konst(0, Ty::Bool);
    l.vars.insert((VarKey::Killed, 0), killed);
    let args = l.entry_args(&ep.function)?;
    let ret = l.call(
        &ep.function,
        info.get_entry_point(entry),
        args,
        Span::UNDEFINED,
    )?;
    l.exports(&ep.function, ret)?;
    let mut body = std::mem::take(&mut l.prelude);
    body.append(&mut l.cur);
    l.prog.body = body;
    Ok((l.prog, l.iface))
}

/// The scalar type of a naga scalar.
pub(crate) fn scalar_ty(s: naga::Scalar) -> Option<Ty> {
    use naga::ScalarKind as K;
    match (s.kind, s.width) {
        (K::Float | K::AbstractFloat, 4) | (K::AbstractFloat, 8) => Some(Ty::F32),
        (K::Sint | K::AbstractInt, 4) | (K::AbstractInt, 8) => Some(Ty::I32),
        (K::Uint, 4) => Some(Ty::U32),
        (K::Bool, _) => Some(Ty::Bool),
        _ => None,
    }
}

impl<'m> Lower<'m> {
    /// An error at `span` naming the construct.
    pub fn unsupported(&self, what: impl std::fmt::Display, span: Span) -> CompileError {
        // naga leaves some expressions (GLSL built-in calls) without a span: use the
        // statement's.
        let span = if span.is_defined() {
            span
        } else {
            self.stmt_span
        };
        let loc = span.is_defined().then(|| span.location(self.src));
        let msg = format!("unsupported by the shader core: {what}");
        CompileError::at(self.path, loc, msg.clone(), String::new())
    }

    /// The leaves of a type.
    pub fn leaves(&self, inner: &TypeInner, span: Span) -> Result<Vec<Ty>, CompileError> {
        let bad = |what: &str| self.unsupported(what, span);
        Ok(match inner {
            TypeInner::Scalar(s) => {
                vec![scalar_ty(*s).ok_or_else(|| bad("64-bit or 16-bit scalar"))?]
            }
            TypeInner::Vector { size, scalar } => {
                vec![
                    scalar_ty(*scalar).ok_or_else(|| bad("64-bit or 16-bit vector"))?;
                    *size as usize
                ]
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => vec![
                scalar_ty(*scalar).ok_or_else(|| bad("16-bit matrix"))?;
                *columns as usize * *rows as usize
            ],
            TypeInner::Array { base, size, .. } => {
                let n = match size {
                    naga::ArraySize::Constant(n) => n.get() as usize,
                    _ => return Err(bad("runtime-sized array")),
                };
                let one = self.leaves(&self.module.types[*base].inner, span)?;
                one.repeat(n)
            }
            TypeInner::Struct { members, .. } => {
                let mut v = Vec::new();
                for m in members {
                    v.extend(self.leaves(&self.module.types[m.ty].inner, span)?);
                }
                v
            }
            TypeInner::Atomic(_) => return Err(bad("atomic type")),
            other => return Err(bad(format!("type {other:?}").as_str())),
        })
    }

    /// Leaves of a type handle.
    pub fn leaves_of(&self, ty: Handle<naga::Type>, span: Span) -> Result<Vec<Ty>, CompileError> {
        self.leaves(&self.module.types[ty].inner, span)
    }

    /// Byte offsets (std140 / WGSL uniform layout, as naga records them) of a type's leaves.
    fn uniform_layout(
        &self,
        ty: Handle<naga::Type>,
        base: u32,
        out: &mut Vec<(u32, Ty)>,
        span: Span,
    ) -> Result<(), CompileError> {
        self.layout(&self.module.types[ty].inner, base, out, span)
    }

    /// Byte offsets of a type's leaves in a buffer (uniform or storage layout, as naga
    /// records it).
    pub fn layout(
        &self,
        inner: &TypeInner,
        base: u32,
        out: &mut Vec<(u32, Ty)>,
        span: Span,
    ) -> Result<(), CompileError> {
        match inner {
            TypeInner::Scalar(_) | TypeInner::Vector { .. } => {
                for (i, t) in self.leaves(inner, span)?.into_iter().enumerate() {
                    out.push((base + 4 * i as u32, t));
                }
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => {
                let t =
                    scalar_ty(*scalar).ok_or_else(|| self.unsupported("16-bit matrix", span))?;
                let stride = if *rows == naga::VectorSize::Bi { 8 } else { 16 };
                for c in 0..*columns as u32 {
                    for r in 0..*rows as u32 {
                        out.push((base + c * stride + 4 * r, t));
                    }
                }
            }
            TypeInner::Array {
                base: elem,
                size,
                stride,
            } => {
                let naga::ArraySize::Constant(n) = size else {
                    return Err(self.unsupported("runtime-sized array", span));
                };
                for i in 0..n.get() {
                    self.uniform_layout(*elem, base + i * stride, out, span)?;
                }
            }
            TypeInner::Struct { members, .. } => {
                for m in members {
                    self.uniform_layout(m.ty, base + m.offset, out, span)?;
                }
            }
            other => return Err(self.unsupported(format!("uniform of type {other:?}"), span)),
        }
        Ok(())
    }

    /// Records uniforms and samplers; gives private globals their initial values.
    fn globals(&mut self) -> Result<(), CompileError> {
        for (h, g) in self.module.global_variables.iter() {
            let span = self.module.global_variables.get_span(h);
            let name = g.name.clone().unwrap_or_default();
            match g.space {
                naga::AddressSpace::Private => {
                    let tys = self.leaves_of(g.ty, span)?;
                    let init = match g.init {
                        Some(e) => self.const_expr(e, span)?,
                        None => tys.iter().map(|&t| self.konst(0, t)).collect(),
                    };
                    for (i, v) in init.into_iter().enumerate() {
                        self.vars
                            .insert((VarKey::Private(h.index() as u32), i as u32), v);
                    }
                }
                naga::AddressSpace::Uniform => {
                    let b = g
                        .binding
                        .as_ref()
                        .ok_or_else(|| self.unsupported("uniform without a binding", span))?;
                    if b.group != 0 || b.binding >= abi::UNIFORM_BINDINGS {
                        return Err(self.unsupported(
                            format!("uniform binding (group {}, binding {}): the ABI has group 0, bindings 0..{}", b.group, b.binding, abi::UNIFORM_BINDINGS),
                            span,
                        ));
                    }
                    let mut words = Vec::new();
                    self.uniform_layout(g.ty, 0, &mut words, span)?;
                    let base = abi::uniform_word(b.binding, 0);
                    let words: Vec<(u32, Ty)> = words
                        .into_iter()
                        .map(|(off, t)| (base + off / 4, t))
                        .collect();
                    // Members by name (a block's members, or the variable itself).
                    match &self.module.types[g.ty].inner {
                        TypeInner::Struct { members, .. } => {
                            let mut at = 0;
                            for m in members {
                                let n = self.leaves_of(m.ty, span)?.len();
                                self.iface.uniforms.push(UniformVar {
                                    name: m.name.clone().unwrap_or_default(),
                                    words: words[at..at + n].to_vec(),
                                });
                                at += n;
                            }
                        }
                        _ => self.iface.uniforms.push(UniformVar {
                            name,
                            words: words.clone(),
                        }),
                    }
                    self.uniform_words.insert(h.index() as u32, words);
                }
                naga::AddressSpace::Handle => {
                    if let TypeInner::Image { class, .. } = self.module.types[g.ty].inner {
                        let b = g
                            .binding
                            .as_ref()
                            .ok_or_else(|| self.unsupported("texture without a binding", span))?;
                        match class {
                            naga::ImageClass::Storage { format, .. } => {
                                let ok = b.group == 0
                                    && (b.binding <= abi::TILE_DEPTH_BINDING
                                        || b.binding == abi::WRITEOUT_BINDING);
                                if !ok {
                                    return Err(self.unsupported(format!("storage image at group {}, binding {}: the ABI has group 0, bindings 0..=7 (render targets), {} (depth), {} (write-out control)", b.group, b.binding, abi::TILE_DEPTH_BINDING, abi::WRITEOUT_BINDING), span));
                                }
                                let channels = image::format_channels(format).ok_or_else(|| self.unsupported(format!("storage image format {format:?} (the ABI has rgba8, rgba16f, rg16f, r32f, r32ui)"), span))?;
                                self.iface.images.push(crate::ImageVar {
                                    name,
                                    binding: b.binding,
                                    format: format!("{format:?}"),
                                    channels,
                                });
                            }
                            _ => self.iface.samplers.push((name, b.binding)),
                        }
                    }
                }
                naga::AddressSpace::Function => {}
                naga::AddressSpace::Storage { .. } => {
                    let b = g.binding.as_ref().ok_or_else(|| {
                        self.unsupported("storage buffer without a binding", span)
                    })?;
                    if b.group != 0 || b.binding >= abi::STORAGE_BINDINGS {
                        return Err(self.unsupported(format!("storage binding (group {}, binding {}): the ABI has group 0, bindings 0..{}", b.group, b.binding, abi::STORAGE_BINDINGS), span));
                    }
                    // Leaves the core cannot hold (atomics, 64-bit) are errors here.
                    let elem = |t: Handle<naga::Type>| match self.module.types[t].inner {
                        TypeInner::Array {
                            base,
                            size: naga::ArraySize::Dynamic,
                            ..
                        } => base,
                        _ => t,
                    };
                    if let TypeInner::Struct { members, .. } = &self.module.types[g.ty].inner {
                        for m in members {
                            self.leaves_of(elem(m.ty), span)?;
                        }
                    } else {
                        self.leaves_of(elem(g.ty), span)?;
                    }
                    self.iface.buffers.push((name, b.binding));
                }
                naga::AddressSpace::WorkGroup => {
                    return Err(self.unsupported(format!("workgroup variable `{name}`"), span))
                }
                other => {
                    return Err(
                        self.unsupported(format!("address space {other:?} (`{name}`)"), span)
                    )
                }
            }
        }
        Ok(())
    }

    /// A constant of type `ty` (hoisted, shared).
    pub fn konst(&mut self, word: u32, ty: Ty) -> Value {
        if let Some(&v) = self.consts.get(&(word, ty)) {
            return v;
        }
        let v = self.prog.new_value(ty);
        self.prelude.push(Stmt::Def {
            dst: v,
            op: Op::Const(word),
        });
        self.consts.insert((word, ty), v);
        v
    }

    /// A float constant.
    pub fn fconst(&mut self, x: f32) -> Value {
        self.konst(x.to_bits(), Ty::F32)
    }

    /// `dst = op` in the current block.
    pub fn def(&mut self, op: Op, ty: Ty) -> Value {
        let v = self.prog.new_value(ty);
        self.cur.push(Stmt::Def { dst: v, op });
        v
    }

    /// A launch register's word (hoisted).
    fn input(&mut self, reg: u8, ty: Ty) -> Value {
        let v = self.prog.new_value(ty);
        self.prelude.push(Stmt::Def {
            dst: v,
            op: Op::Input(reg),
        });
        v
    }

    /// The entry point's arguments from the launch registers.
    fn entry_args(&mut self, fun: &naga::Function) -> Result<Vec<Val>, CompileError> {
        let mut args = Vec::new();
        for a in &fun.arguments {
            let name = a.name.clone().unwrap_or_default();
            let mut leaves = Vec::new();
            match &a.binding {
                Some(b) => leaves.extend(self.bound_input(b, a.ty, &name)?),
                None => {
                    let TypeInner::Struct { members, .. } = &self.module.types[a.ty].inner else {
                        return Err(self.unsupported(
                            format!("entry argument `{name}` without a binding"),
                            Span::UNDEFINED,
                        ));
                    };
                    for m in members {
                        let b = m.binding.as_ref().ok_or_else(|| {
                            self.unsupported("input member without a binding", Span::UNDEFINED)
                        })?;
                        let n = m.name.clone().unwrap_or_default();
                        leaves.extend(self.bound_input(b, m.ty, &n)?);
                    }
                }
            }
            args.push(Val::Leaves(leaves));
        }
        Ok(args)
    }

    fn bound_input(
        &mut self,
        b: &naga::Binding,
        ty: Handle<naga::Type>,
        name: &str,
    ) -> Result<Vec<Value>, CompileError> {
        let tys = self.leaves_of(ty, Span::UNDEFINED)?;
        let base = match b {
            naga::Binding::Location { location, .. } => abi::input_register(*location, tys.len())
                .ok_or_else(|| {
                self.unsupported(
                    format!(
                        "input `{name}` at location {location} (the ABI has 0..={})",
                        abi::MAX_INPUT_LOCATION
                    ),
                    Span::UNDEFINED,
                )
            })?,
            naga::Binding::BuiltIn(bi) => {
                abi::builtin_register(self.stage, *bi).ok_or_else(|| {
                    self.unsupported(
                        format!("built-in {bi:?} (`{name}`) in a {:?} shader", self.stage),
                        Span::UNDEFINED,
                    )
                })?
            }
        };
        let leaves: Vec<Value> = tys
            .iter()
            .enumerate()
            .map(|(i, &t)| self.input(base + i as u8, t))
            .collect();
        self.iface.inputs.push(IoVar {
            name: name.to_string(),
            slot: base as u32,
            tys,
        });
        Ok(leaves)
    }

    /// The entry point's result as exports (skipped by discarded lanes).
    fn exports(&mut self, fun: &naga::Function, ret: Vec<Value>) -> Result<(), CompileError> {
        let Some(res) = &fun.result else {
            return Ok(());
        };
        let mut outs: Vec<(Option<naga::Binding>, Handle<naga::Type>, String)> = Vec::new();
        match &res.binding {
            Some(b) => outs.push((Some(b.clone()), res.ty, "out".into())),
            None => {
                if let TypeInner::Struct { members, .. } = &self.module.types[res.ty].inner {
                    for m in members {
                        outs.push((m.binding.clone(), m.ty, m.name.clone().unwrap_or_default()));
                    }
                }
            }
        }
        let mut stmts = Vec::new();
        let mut at = 0;
        for (b, ty, name) in outs {
            let tys = self.leaves_of(ty, Span::UNDEFINED)?;
            let values = ret[at..at + tys.len()].to_vec();
            at += tys.len();
            let loc = match b {
                Some(naga::Binding::Location { location, .. }) => location,
                Some(naga::Binding::BuiltIn(bi)) => match abi::builtin_export(bi) {
                    Some(l) => l,
                    None if matches!(bi, naga::BuiltIn::PointSize) => continue,
                    None => {
                        return Err(self.unsupported(
                            format!("output built-in {bi:?} (`{name}`)"),
                            Span::UNDEFINED,
                        ))
                    }
                },
                None => {
                    return Err(self.unsupported(
                        format!("output `{name}` without a binding"),
                        Span::UNDEFINED,
                    ))
                }
            };
            if values.len() > 4 {
                return Err(self.unsupported(
                    format!("output `{name}` of {} words (at most 4)", values.len()),
                    Span::UNDEFINED,
                ));
            }
            self.iface.outputs.push(IoVar {
                name,
                slot: loc,
                tys,
            });
            stmts.push(Stmt::Export { loc, values });
        }
        if self.uses_kill {
            let killed = self.vars[&(VarKey::Killed, 0)];
            let one = self.konst(1, Ty::Bool);
            let alive = self.def(
                Op::Alu(rendergen_shader_isa::Opcode::Xor, vec![killed, one]),
                Ty::Bool,
            );
            self.cur.push(Stmt::If {
                cond: alive,
                then: stmts,
                els: vec![],
                phis: vec![],
            });
        } else {
            self.cur.extend(stmts);
        }
        Ok(())
    }

    /// Evaluates a module-level constant expression.
    pub fn const_expr(
        &mut self,
        h: Handle<Expression>,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        let e = &self.module.global_expressions[h];
        Ok(match e {
            Expression::Literal(lit) => vec![self.literal(*lit, span)?],
            Expression::Constant(c) => self.const_expr(self.module.constants[*c].init, span)?,
            Expression::ZeroValue(ty) => {
                let tys = self.leaves_of(*ty, span)?;
                tys.into_iter().map(|t| self.konst(0, t)).collect()
            }
            Expression::Compose { components, .. } => {
                let mut v = Vec::new();
                for c in components.clone() {
                    v.extend(self.const_expr(c, span)?);
                }
                v
            }
            Expression::Splat { size, value } => {
                let one = self.const_expr(*value, span)?;
                one.repeat(*size as usize)
            }
            other => return Err(self.unsupported(format!("constant expression {other:?}"), span)),
        })
    }

    /// A literal's word.
    pub fn literal(&mut self, lit: naga::Literal, span: Span) -> Result<Value, CompileError> {
        use naga::Literal as L;
        Ok(match lit {
            L::F32(x) => self.fconst(x),
            L::AbstractFloat(x) => self.fconst(x as f32),
            L::I32(x) => self.konst(x as u32, Ty::I32),
            L::AbstractInt(x) => self.konst(x as u32, Ty::I32),
            L::U32(x) => self.konst(x, Ty::U32),
            L::Bool(b) => self.konst(b as u32, Ty::Bool),
            other => return Err(self.unsupported(format!("literal {other:?}"), span)),
        })
    }

    /// Inlines `fun` with `args`; returns its result's leaves.
    pub fn call(
        &mut self,
        fun: &'m naga::Function,
        info: &'m naga::valid::FunctionInfo,
        args: Vec<Val>,
        span: Span,
    ) -> Result<Vec<Value>, CompileError> {
        let inst = self.instances;
        self.instances += 1;
        let mut ctx = FnCtx {
            fun,
            info,
            inst,
            args,
            cache: HashMap::new(),
            wrapped: false,
        };
        // Locals: their initial values (naga's are constant expressions of the function).
        for (h, lv) in fun.local_variables.iter() {
            let tys = self.leaves_of(lv.ty, span)?;
            let init = match lv.init {
                Some(e) => self.expr_leaves(&mut ctx, e)?,
                None => tys.iter().map(|&t| self.konst(0, t)).collect(),
            };
            for (i, v) in init.into_iter().enumerate() {
                self.vars
                    .insert((VarKey::Local(inst, h.index() as u32), i as u32), v);
            }
        }
        let ret_tys = match &fun.result {
            Some(r) => self.leaves_of(r.ty, span)?,
            None => vec![],
        };
        for (i, &t) in ret_tys.iter().enumerate() {
            let z = self.konst(0, t);
            self.vars.insert((VarKey::Ret(inst), i as u32), z);
        }
        let zero = self.konst(0, Ty::Bool);
        self.vars.insert((VarKey::Returned(inst), 0), zero);
        let mut scan = Scan::default();
        self.scan(&fun.body, &ctx, &mut scan, true);
        ctx.wrapped = scan.kill || has_early_return(&fun.body);
        if ctx.wrapped {
            let slots = self.carried_slots(&scan, inst, true);
            self.with_loop(slots, |l| {
                l.block(&mut ctx, &fun.body)?;
                let one = l.konst(1, Ty::Bool);
                l.emit_break(one);
                Ok(())
            })?;
        } else {
            self.block(&mut ctx, &fun.body)?;
        }
        let ret = (0..ret_tys.len() as u32)
            .map(|i| self.vars[&(VarKey::Ret(inst), i)])
            .collect();
        // The instance's slots are dead now.
        self.vars.retain(|(k, _), _| !matches!(k, VarKey::Local(i, _) | VarKey::Ret(i) | VarKey::Returned(i) if *i == inst));
        Ok(ret)
    }

    /// What a block contains.
    fn scan(&self, block: &Block, ctx: &FnCtx, out: &mut Scan, top: bool) {
        for s in block.iter() {
            match s {
                Statement::Store { pointer, .. } => {
                    if let Some(k) = self.root_of(ctx, *pointer) {
                        out.stored.insert(k);
                    }
                }
                Statement::Block(b) => self.scan(b, ctx, out, top),
                Statement::If { accept, reject, .. } => {
                    self.scan(accept, ctx, out, top);
                    self.scan(reject, ctx, out, top);
                }
                Statement::Switch { cases, .. } => {
                    cases.iter().for_each(|c| self.scan(&c.body, ctx, out, top))
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    self.scan(body, ctx, out, false);
                    self.scan(continuing, ctx, out, false);
                }
                Statement::Return { .. } => out.ret = true,
                Statement::Kill => out.kill = true,
                Statement::Call { .. } => out.call = true,
                Statement::Continue if top => out.cont = true,
                _ => {}
            }
        }
    }

    /// The variable a pointer expression is rooted at.
    fn root_of(&self, ctx: &FnCtx, mut h: Handle<Expression>) -> Option<VarKey> {
        loop {
            match ctx.fun.expressions[h] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => h = base,
                Expression::LocalVariable(l) => {
                    return Some(VarKey::Local(ctx.inst, l.index() as u32))
                }
                Expression::GlobalVariable(g) => return Some(VarKey::Private(g.index() as u32)),
                Expression::FunctionArgument(i) => {
                    return match &ctx.args[i as usize] {
                        Val::Ptr(Ptr {
                            root: Root::Var(k), ..
                        }) => Some(*k),
                        _ => None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// The slots a loop carries: leaves of variables stored in it, return state if it returns,
    /// every private global and the discard flag if it calls.
    fn carried_slots(&self, scan: &Scan, inst: u32, wrapper: bool) -> Vec<Slot> {
        self.vars
            .keys()
            .filter(|(k, _)| match k {
                VarKey::Local(..) => scan.stored.contains(k),
                VarKey::Private(_) => scan.stored.contains(k) || scan.call,
                VarKey::Ret(i) | VarKey::Returned(i) => {
                    *i == inst && (scan.ret || scan.kill || wrapper)
                }
                VarKey::Killed => scan.kill || scan.call,
                VarKey::Broke(_) => false,
            })
            .copied()
            .collect()
    }

    /// Runs `body` inside an IR loop carrying `slots`; afterwards the slots hold the loop's
    /// results. `body` must end every path with a break or continue (or fall through:
    /// next iteration).
    pub fn with_loop(
        &mut self,
        slots: Vec<Slot>,
        body: impl FnOnce(&mut Self) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
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
        let outer = std::mem::take(&mut self.cur);
        let init: Vec<Value> = slots.iter().map(|s| self.vars[s]).collect();
        let params: Vec<Value> = init
            .iter()
            .map(|&v| {
                let t = self.prog.ty(v);
                self.prog.new_value(t)
            })
            .collect();
        for (s, &p) in slots.iter().zip(&params) {
            self.vars.insert(*s, p);
        }
        self.loop_slots.push(slots.clone());
        let r = body(self);
        self.loop_slots.pop();
        r?;
        let next: Vec<Value> = slots.iter().map(|s| self.vars[s]).collect();
        let results: Vec<Value> = init
            .iter()
            .map(|&v| {
                let t = self.prog.ty(v);
                self.prog.new_value(t)
            })
            .collect();
        for (s, &r) in slots.iter().zip(&results) {
            self.vars.insert(*s, r);
        }
        let body = std::mem::replace(&mut self.cur, outer);
        self.cur.push(Stmt::Loop {
            params,
            init,
            body,
            next,
            results,
        });
        self.depth -= 1;
        Ok(())
    }
}

/// Whether a function returns anywhere but at the end of its top-level block.
fn has_early_return(body: &Block) -> bool {
    fn any_return(b: &Block) -> bool {
        b.iter().any(|s| match s {
            Statement::Return { .. } | Statement::Kill => true,
            Statement::Block(b) => any_return(b),
            Statement::If { accept, reject, .. } => any_return(accept) || any_return(reject),
            Statement::Loop {
                body, continuing, ..
            } => any_return(body) || any_return(continuing),
            Statement::Switch { cases, .. } => cases.iter().any(|c| any_return(&c.body)),
            _ => false,
        })
    }
    let n = body.len();
    body.iter().enumerate().any(|(i, s)| match s {
        Statement::Return { .. } => i + 1 != n,
        Statement::Block(b) => any_return(b),
        Statement::If { accept, reject, .. } => any_return(accept) || any_return(reject),
        Statement::Loop {
            body, continuing, ..
        } => any_return(body) || any_return(continuing),
        Statement::Switch { cases, .. } => cases.iter().any(|c| any_return(&c.body)),
        _ => false,
    })
}

/// Phis for the slots the two branches leave different (slots created inside a branch are
/// local to it and dropped).
pub(crate) fn merge(
    before: &BTreeMap<Slot, Value>,
    then: &BTreeMap<Slot, Value>,
    els: &BTreeMap<Slot, Value>,
    prog: &mut Program,
) -> (Vec<Phi>, BTreeMap<Slot, Value>) {
    let mut phis = Vec::new();
    let mut out = BTreeMap::new();
    for s in before.keys() {
        let (t, e) = (then[s], els[s]);
        if t == e {
            out.insert(*s, t);
        } else {
            let dst = prog.new_value(prog.ty(t));
            phis.push(Phi {
                dst,
                then: t,
                els: e,
            });
            out.insert(*s, dst);
        }
    }
    (phis, out)
}
