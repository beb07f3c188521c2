//! The compiler's SSA IR: scalar values, structured control flow, explicit interface.
//!
//! * Every [`Value`] is defined once ([`Stmt::Def`], [`Stmt::Tex`], an [`Stmt::If`]'s phis, a
//!   [`Stmt::Loop`]'s parameters and results) and is a 32-bit scalar (the core is scalar per
//!   lane; the front end scalarises vectors and matrices).
//! * Control flow is a tree: `If` with phis at its merge; `Loop` with loop-carried parameters
//!   (initial values, values at the end of the body, values at each `Continue`) and results
//!   (values at each `Break`). This is the shape of the core's mask stack, so the back end
//!   lowers it one-to-one, and a pass can walk it without a CFG.
//! * The interface is explicit: [`Op::Input`] (a launch register of the ABI), [`Op::Uniform`]
//!   (a uniform word), [`Stmt::Tex`] (a sampler word), [`Stmt::Export`] (an output
//!   location). A link-time optimiser can match a vertex program's exports with a fragment
//!   program's inputs by location.
//! * Constants are values ([`Op::Const`]) and the lattice of [`Lattice`] is what SCCP-style
//!   folding works on.

pub mod print;
pub mod verify;

use rendergen_shader_isa::Opcode;

/// An SSA value (index into [`Program::types`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// What a 32-bit value holds (for printing, folding and output formatting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// IEEE binary32.
    F32,
    /// Two's-complement integer.
    I32,
    /// Unsigned integer.
    U32,
    /// 0 or 1.
    Bool,
}

/// A pure scalar operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A constant word.
    Const(u32),
    /// The word a launch puts in register `r` (ABI: inputs, built-ins, thread ids).
    Input(u8),
    /// Uniform word `index` (`ldu`).
    Uniform(u32),
    /// A copy.
    Copy(Value),
    /// The global-memory word at byte address `a + imm` (`ldg`; never merged or moved across
    /// stores).
    Load(Value, u32),
    /// A register-to-register ALU operation of the ISA (never a port, control or immediate
    /// form); its operands in order `a, b, c`.
    Alu(Opcode, Vec<Value>),
}

impl Op {
    /// Operands.
    pub fn args(&self) -> &[Value] {
        match self {
            Op::Copy(v) | Op::Load(v, _) => std::slice::from_ref(v),
            Op::Alu(_, a) => a,
            _ => &[],
        }
    }

    /// Operands, mutable.
    pub fn args_mut(&mut self) -> &mut [Value] {
        match self {
            Op::Copy(v) | Op::Load(v, _) => std::slice::from_mut(v),
            Op::Alu(_, a) => a,
            _ => &mut [],
        }
    }

    /// Whether two equal operations always give equal values wherever both are defined
    /// (derivatives depend on the quad's mask, so they are not merged across blocks).
    pub fn is_cse_candidate(&self) -> bool {
        !matches!(self, Op::Alu(op, _) if is_derivative(*op))
    }
}

/// Whether `op` reads other lanes of the quad.
pub fn is_derivative(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Ddxc | Opcode::Ddyc | Opcode::Ddxf | Opcode::Ddyf
    )
}

/// A phi of an `If`: `dst` is `then` where the then-branch ran, `els` where the else-branch
/// ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phi {
    /// The merged value.
    pub dst: Value,
    /// Its value at the end of the then-branch.
    pub then: Value,
    /// Its value at the end of the else-branch.
    pub els: Value,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `dst = op`.
    Def {
        /// The value defined.
        dst: Value,
        /// Its operation.
        op: Op,
    },
    /// `dst[0..4] = tex(sampler, coord)` (one request per quad; the texture unit uses all
    /// four lanes' coordinates for the level of detail): the unit's four answer words.
    Tex {
        /// The four words of the texel (r, g, b, a).
        dst: [Value; 4],
        /// The sampler word (`tex` immediate; `ABI.md` "Sampled textures").
        sampler: u32,
        /// Coordinates (s, t).
        coord: [Value; 2],
    },
    /// The global-memory word at byte address `addr + imm` = `value` (`stg`; not by helper
    /// lanes).
    Store {
        /// Address register.
        addr: Value,
        /// Address offset.
        imm: u32,
        /// The word.
        value: Value,
    },
    /// `dst = spec(func, a, b)`: the tile engine's special port (`spec`; image loads and stores,
    /// write-out control, `ABI.md`). It has effects: never removed, merged or reordered
    /// against other port instructions.
    Spec {
        /// The port's answer.
        dst: Value,
        /// The function code (`spec` immediate).
        func: u32,
        /// Operand `a`.
        a: Value,
        /// Operand `b`.
        b: Value,
    },
    /// Output location `loc` = `values` (1..=4 words).
    Export {
        /// The location (`export` immediate).
        loc: u32,
        /// The words.
        values: Vec<Value>,
    },
    /// Structured `if` with phis at the merge.
    If {
        /// The condition (non-zero: then).
        cond: Value,
        /// The then-branch.
        then: Vec<Stmt>,
        /// The else-branch.
        els: Vec<Stmt>,
        /// Values merged after it.
        phis: Vec<Phi>,
    },
    /// A loop: `params` take `init` on entry, `next` at the end of the body and a `Continue`'s
    /// values; `results` take a `Break`'s values.
    Loop {
        /// Loop-carried values.
        params: Vec<Value>,
        /// Their values on entry.
        init: Vec<Value>,
        /// The body.
        body: Vec<Stmt>,
        /// The params' values at the end of the body (one per param).
        next: Vec<Value>,
        /// Values defined by the loop's exits.
        results: Vec<Value>,
    },
    /// Lanes with `cond` ≠ 0 leave the innermost loop; `args` become its results.
    Break {
        /// Which lanes leave.
        cond: Value,
        /// One value per result of the loop.
        args: Vec<Value>,
    },
    /// Lanes with `cond` ≠ 0 go to the next iteration; `args` become its params.
    Continue {
        /// Which lanes continue.
        cond: Value,
        /// One value per param of the loop.
        args: Vec<Value>,
    },
}

/// A whole program (one entry point).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// The statements.
    pub body: Vec<Stmt>,
    /// The type of each value.
    pub types: Vec<Ty>,
}

impl Program {
    /// A fresh value of type `ty`.
    pub fn new_value(&mut self, ty: Ty) -> Value {
        self.types.push(ty);
        Value(self.types.len() as u32 - 1)
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> Ty {
        self.types[v.0 as usize]
    }

    /// Statements in the tree (every nesting level), for statistics.
    pub fn count_defs(&self) -> usize {
        fn walk(b: &[Stmt]) -> usize {
            b.iter()
                .map(|s| match s {
                    Stmt::If { then, els, .. } => 1 + walk(then) + walk(els),
                    Stmt::Loop { body, .. } => 1 + walk(body),
                    _ => 1,
                })
                .sum()
        }
        walk(&self.body)
    }
}

/// Visits every statement (pre-order) with its nesting level.
pub fn walk(block: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for s in block {
        f(s);
        match s {
            Stmt::If { then, els, .. } => {
                walk(then, f);
                walk(els, f);
            }
            Stmt::Loop { body, .. } => walk(body, f),
            _ => {}
        }
    }
}

/// Visits every statement mutably (pre-order).
pub fn walk_mut(block: &mut [Stmt], f: &mut impl FnMut(&mut Stmt)) {
    for s in block {
        f(s);
        match s {
            Stmt::If { then, els, .. } => {
                walk_mut(then, f);
                walk_mut(els, f);
            }
            Stmt::Loop { body, .. } => walk_mut(body, f),
            _ => {}
        }
    }
}

/// The values a statement reads itself (not those of nested blocks).
pub fn uses(s: &Stmt) -> Vec<Value> {
    match s {
        Stmt::Def { op, .. } => op.args().to_vec(),
        Stmt::Tex { coord, .. } => coord.to_vec(),
        Stmt::Export { values, .. } => values.clone(),
        Stmt::Store { addr, value, .. } => vec![*addr, *value],
        Stmt::Spec { a, b, .. } => vec![*a, *b],
        Stmt::If { cond, phis, .. } => std::iter::once(*cond)
            .chain(phis.iter().flat_map(|p| [p.then, p.els]))
            .collect(),
        Stmt::Loop { init, next, .. } => init.iter().chain(next).copied().collect(),
        Stmt::Break { cond, args } | Stmt::Continue { cond, args } => {
            std::iter::once(*cond).chain(args.iter().copied()).collect()
        }
    }
}

/// Rewrites every value a statement reads itself.
pub fn map_uses(s: &mut Stmt, f: &mut impl FnMut(Value) -> Value) {
    match s {
        Stmt::Def { op, .. } => op.args_mut().iter_mut().for_each(|v| *v = f(*v)),
        Stmt::Tex { coord, .. } => coord.iter_mut().for_each(|v| *v = f(*v)),
        Stmt::Export { values, .. } => values.iter_mut().for_each(|v| *v = f(*v)),
        Stmt::Store { addr, value, .. } => {
            *addr = f(*addr);
            *value = f(*value);
        }
        Stmt::Spec { a, b, .. } => {
            *a = f(*a);
            *b = f(*b);
        }
        Stmt::If { cond, phis, .. } => {
            *cond = f(*cond);
            for p in phis {
                p.then = f(p.then);
                p.els = f(p.els);
            }
        }
        Stmt::Loop { init, next, .. } => {
            init.iter_mut().chain(next).for_each(|v| *v = f(*v));
        }
        Stmt::Break { cond, args } | Stmt::Continue { cond, args } => {
            *cond = f(*cond);
            args.iter_mut().for_each(|v| *v = f(*v));
        }
    }
}

/// The values a statement defines itself.
pub fn defs(s: &Stmt) -> Vec<Value> {
    match s {
        Stmt::Def { dst, .. } => vec![*dst],
        Stmt::Tex { dst, .. } => dst.to_vec(),
        Stmt::Spec { dst, .. } => vec![*dst],
        Stmt::If { phis, .. } => phis.iter().map(|p| p.dst).collect(),
        Stmt::Loop {
            params, results, ..
        } => params.iter().chain(results).copied().collect(),
        _ => vec![],
    }
}

/// The lattice of constant propagation: unknown-yet (⊤), one constant, or varying (⊥).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lattice {
    /// No definition seen yet (optimistic).
    Top,
    /// Always this word.
    Const(u32),
    /// Not a constant.
    Bottom,
}

impl Lattice {
    /// The meet: equal constants stay, anything else falls.
    pub fn meet(self, other: Lattice) -> Lattice {
        match (self, other) {
            (Lattice::Top, x) | (x, Lattice::Top) => x,
            (Lattice::Const(a), Lattice::Const(b)) if a == b => Lattice::Const(a),
            _ => Lattice::Bottom,
        }
    }
}
