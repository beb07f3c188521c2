//! Verilog names for everything a module declares.
//!
//! Names come from the IR (`Node::name`, port and register names through
//! [`rendergen_hdl::naming`]), are sanitised (no `$`, no keywords) and made unique within the
//! module by suffixing `_1`, `_2`, ... An unnamed node used exactly once by a named wire or an
//! output is printed directly under that name (`assign sum = a_i + b_i;`) instead of through a
//! temporary; a value bound to a variable (`#[name_lets]`) takes the variable's name; other
//! unnamed nodes used once are printed inside their consumer's expression (up to a few
//! operations per expression); an unnamed next value of register `x` is called
//! `x_d`; the remaining unnamed nodes get a short name from their operation and node id
//! (`add17`).

use super::plan::Plan;
use rendergen_hdl::ir::{comb_operands_of, BinOp, Design, ModuleDef, NodeId, Op, UnOp};
use rendergen_hdl::naming;
use std::collections::HashSet;

/// Names of one module's ports, nodes, memories and instances.
pub(crate) struct Names {
    /// Input port names (`x_i`).
    pub inputs: Vec<String>,
    /// Output port names (`x_o`).
    pub outputs: Vec<String>,
    /// Declared name of each node ("" for constants, absorbed and dead nodes).
    pub node: Vec<String>,
    /// For a node printed under another's name: that consumer.
    pub host: Vec<Option<Host>>,
    /// Node printed inside its consumers' expressions (bit-selects, and concatenations and
    /// extensions used once): always self-determined, so inlining never changes a width.
    pub inline: Vec<bool>,
    /// Memory array names.
    pub mems: Vec<String>,
    /// Loop variable of each memory's initial block.
    pub mem_iters: Vec<String>,
    /// Instance names.
    pub insts: Vec<String>,
    /// Wire connected to each output port of each instance.
    pub inst_outs: Vec<Vec<String>>,
    /// The module's sink of unread bits (its name contains "unused"; see `body.rs`).
    pub unused: String,
}

/// Where an absorbed node is printed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Host {
    /// As the driver of the named wire node.
    Wire(NodeId),
    /// As the driver of output port `index`.
    Output(usize),
}

/// A set of taken identifiers.
#[derive(Default)]
pub(crate) struct Scope(HashSet<String>);

impl Scope {
    /// Claims `base` (sanitised), or the first free `base_N`.
    pub fn claim(&mut self, base: &str) -> String {
        let base = naming::sanitize(base);
        let mut name = base.clone();
        let mut n = 1;
        while !self.0.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        name
    }
}

/// Port names of a module (also used by parents to connect instances).
pub(crate) fn port_names(def: &ModuleDef, scope: &mut Scope) -> (Vec<String>, Vec<String>) {
    scope.claim(naming::CLOCK);
    scope.claim(naming::RESET);
    let ins = def
        .inputs
        .iter()
        .map(|p| scope.claim(&naming::input_port(&naming::sanitize(&p.name))))
        .collect();
    let outs = def
        .outputs
        .iter()
        .map(|p| scope.claim(&naming::output_port(&naming::sanitize(&p.name))))
        .collect();
    (ins, outs)
}

/// True for nodes computed by an expression (not ports, state, constants or instance outputs).
pub(crate) fn is_computed(op: &Op) -> bool {
    !matches!(
        op,
        Op::Input(_) | Op::Const(_) | Op::Reg(_) | Op::MemRead { .. } | Op::InstOut { .. }
    )
}

/// True for nodes printed as a `case` in `always @*`: a `select` or `lut` whose index is not a
/// constant and (for a `lut`) with a non-zero entry. The others are plain `assign`s (a
/// constant index chooses its value; an `always @*` reading only constants would never run in
/// an event-driven simulator such as iverilog, leaving the value X).
pub(crate) fn is_case(def: &ModuleDef, op: &Op) -> bool {
    let constant = |id: NodeId| matches!(def.node(id).op, Op::Const(_));
    match op {
        Op::Select { index, cases, .. } => !constant(*index) && !cases.is_empty(),
        Op::Lut { index, table } => {
            let iw = def.node(*index).width;
            let reachable = |i: usize| iw >= 64 || (i as u64) < (1u64 << iw);
            let nonzero = (table.iter().enumerate()).any(|(i, v)| reachable(i) && v.hex() != "0");
            !constant(*index) && nonzero
        }
        _ => false,
    }
}

/// Every prefix [`op_prefix`] gives (what [`super::stats`] counts as a generated name).
pub(crate) const OP_PREFIXES: &[&str] = &[
    "not", "neg", "all", "any", "parity", "add", "sub", "mul", "and", "or", "xor", "shl", "shr",
    "sra", "eq", "ne", "lt", "le", "mux", "cat", "slice", "ext", "sel", "lut", "n",
];

fn op_prefix(op: &Op) -> &'static str {
    match op {
        Op::Unary(u, _) => match u {
            UnOp::Not => "not",
            UnOp::Neg => "neg",
            UnOp::RedAnd => "all",
            UnOp::RedOr => "any",
            UnOp::RedXor => "parity",
        },
        Op::Binary(b, ..) => match b {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            BinOp::Sra => "sra",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
            BinOp::Lt | BinOp::SLt => "lt",
            BinOp::Le | BinOp::SLe => "le",
        },
        Op::Mux { .. } => "mux",
        Op::Concat(_) => "cat",
        Op::Slice { .. } => "slice",
        Op::Extend { .. } => "ext",
        Op::Select { .. } => "sel",
        Op::Lut { .. } => "lut",
        _ => "n",
    }
}

impl Names {
    /// Names every live part of `def` (a module of `design`).
    pub fn new(design: &Design, def: &ModuleDef, plan: &Plan) -> Names {
        let mut scope = Scope::default();
        let (inputs, outputs) = port_names(def, &mut scope);
        let n = def.nodes.len();
        let mut host = vec![None; n];
        let single_unnamed = |d: NodeId| {
            let node = def.node(d);
            node.name.is_none() && is_computed(&node.op) && plan.uses[d as usize] == 1
        };
        for (id, node) in def.nodes.iter().enumerate() {
            if let (Op::Wire(Some(d)), Some(_), true) = (&node.op, &node.name, plan.live[id]) {
                if single_unnamed(*d) {
                    host[*d as usize] = Some(Host::Wire(id as NodeId));
                }
            }
        }
        for (p, port) in def.outputs.iter().enumerate() {
            let d = port.node;
            if single_unnamed(d) && !is_case(def, &def.node(d).op) && host[d as usize].is_none() {
                host[d as usize] = Some(Host::Output(p));
            }
        }
        let inline = inline_nodes(def, plan, &host);
        let mut node = vec![String::new(); n];
        for (r, reg) in def.regs.iter().enumerate() {
            if plan.reg_live[r] {
                let base = def.node(reg.node).name.as_deref().unwrap_or("r");
                node[reg.node as usize] = scope.claim(&naming::register(base));
            }
        }
        let mems: Vec<String> = def.mems.iter().map(|m| scope.claim(&m.name)).collect();
        let mem_iters = mems
            .iter()
            .map(|m| scope.claim(&format!("{m}_i")))
            .collect();
        for (id, nd) in def.nodes.iter().enumerate() {
            let named = plan.live[id] && host[id].is_none() && !matches!(nd.op, Op::Reg(_));
            if let (true, Some(name), false) = (named, &nd.name, matches!(nd.op, Op::Input(_))) {
                node[id] = scope.claim(name);
            }
        }
        let insts: Vec<String> = def.insts.iter().map(|i| scope.claim(&i.name)).collect();
        let inst_outs: Vec<Vec<String>> = def
            .insts
            .iter()
            .zip(&insts)
            .map(|(inst, iname)| {
                let child = &design.modules[inst.module];
                let ports = child.outputs.iter();
                ports
                    .map(|p| scope.claim(&format!("{iname}_{}", p.name)))
                    .collect()
            })
            .collect();
        for (id, nd) in def.nodes.iter().enumerate() {
            if let Op::InstOut { inst, port } = nd.op {
                node[id] = inst_outs[inst as usize][port as usize].clone();
            }
        }
        // Values bound to a variable in the generator take its name.
        for (id, nd) in def.nodes.iter().enumerate() {
            let needs = plan.live[id] && host[id].is_none() && !inline[id] && node[id].is_empty();
            if let (true, Some(soft)) = (needs, &nd.soft_name) {
                if !matches!(nd.op, Op::Const(_) | Op::Input(_)) {
                    node[id] = scope.claim(soft);
                }
            }
        }
        // Unnamed next values of registers are `x_d`.
        for (r, reg) in def.regs.iter().enumerate() {
            if let (true, Some(d)) = (plan.reg_live[r], reg.next) {
                let free = host[d as usize].is_none() && !inline[d as usize];
                if single_unnamed(d) && free && node[d as usize].is_empty() {
                    let q = def.node(reg.node).name.as_deref().unwrap_or("r");
                    node[d as usize] = scope.claim(&format!("{q}_d"));
                }
            }
        }
        for (p, port) in def.outputs.iter().enumerate() {
            let d = port.node as usize;
            if single_unnamed(port.node) && host[d].is_none() && !inline[d] && node[d].is_empty() {
                node[d] = scope.claim(&def.outputs[p].name);
            }
        }
        for (id, nd) in def.nodes.iter().enumerate() {
            let needs = plan.live[id] && host[id].is_none() && !inline[id] && node[id].is_empty();
            if needs && !matches!(nd.op, Op::Const(_) | Op::Input(_)) {
                node[id] = scope.claim(&format!("{}{id}", op_prefix(&nd.op)));
            }
        }
        for (i, p) in def.inputs.iter().enumerate() {
            node[p.node as usize] = inputs[i].clone();
        }
        let unused = scope.claim("unused");
        Names {
            unused,
            inputs,
            outputs,
            node,
            host,
            inline,
            mems,
            mem_iters,
            insts,
            inst_outs,
        }
    }
}

/// Largest number of operations printed in one inlined expression tree; bigger trees are cut
/// at named temporaries so that lines stay readable.
const INLINE_WEIGHT: u32 = 6;

/// Chooses the nodes printed in place (see [`Names::inline`]): slices; zero extensions and
/// concatenations that are pure wiring, at every use; and computed nodes without a name used
/// exactly once, as long as the expression they join stays small. A node that some
/// consumer bit-selects (a slice or a sign extension) keeps its name, since Verilog can only
/// bit-select names; arithmetic right shifts keep theirs because an unsigned context around
/// `$signed(x) >>> n` would turn it into a logical shift; `case` nodes are statements.
fn inline_nodes(def: &ModuleDef, plan: &Plan, host: &[Option<Host>]) -> Vec<bool> {
    let n = def.nodes.len();
    let mut selected = vec![false; n];
    for (id, node) in def.nodes.iter().enumerate() {
        if !plan.live[id] {
            continue;
        }
        match node.op {
            Op::Slice { a, .. } => selected[a as usize] = true,
            Op::Extend { a, signed: true } if def.node(a).width > 1 => selected[a as usize] = true,
            // A shift amount wider than 32 bits is printed clamped to 32 bits, bit-selected
            // (see `expr.rs`).
            Op::Binary(BinOp::Shl | BinOp::Shr | BinOp::Sra, _, b)
                if def.node(b).width > 32 && !matches!(def.node(b).op, Op::Const(_)) =>
            {
                selected[b as usize] = true
            }
            // A reduction of more than 64 bits is printed as the reduction of its 64-bit
            // parts, bit-selected (see `expr.rs`, `wide_reduction`).
            Op::Unary(UnOp::RedAnd | UnOp::RedOr | UnOp::RedXor, a)
                if def.node(a).width > 64 && !matches!(def.node(a).op, Op::Const(_)) =>
            {
                selected[a as usize] = true
            }
            _ => {}
        }
    }
    // A register's next value keeps its `x_d` name (the lowRISC `_d`/`_q` pair).
    let mut next_of_reg = vec![false; n];
    for (r, reg) in def.regs.iter().enumerate() {
        if let (true, Some(d)) = (plan.reg_live[r], reg.next) {
            next_of_reg[d as usize] = true;
        }
    }
    let candidate = |id: usize| {
        let node = &def.nodes[id];
        let ok = plan.live[id]
            && node.name.is_none()
            && node.soft_name.is_none()
            && host[id].is_none()
            && !selected[id]
            && !next_of_reg[id]
            && !def.localparams.contains(&(id as NodeId));
        if !ok {
            return None;
        }
        // The most operations the node's inlined expression may hold.
        match node.op {
            Op::Slice { .. } => Some(u32::MAX),
            Op::Binary(BinOp::Sra, ..) => None,
            ref op if is_computed(op) && !is_case(def, op) && plan.uses[id] == 1 => {
                Some(INLINE_WEIGHT)
            }
            // Pure wiring (zero extensions, concatenations of names and bit-selects) is
            // repeated at each use rather than named.
            Op::Extend { signed: false, .. } | Op::Concat(_) => Some(0),
            _ => None,
        }
    };
    let mut inline = vec![false; n];
    // Weight of each decided node: operations printed in its expression (0 when named).
    let mut weight: Vec<Option<u32>> = vec![None; n];
    for root in 0..n {
        decide(def, root, &candidate, &mut inline, &mut weight);
    }
    inline
}

/// Decides whether `root` is inlined, operands first (iteratively: expression chains can be
/// long). Returns nothing; fills `inline` and `weight`.
fn decide(
    def: &ModuleDef,
    root: usize,
    candidate: &impl Fn(usize) -> Option<u32>,
    inline: &mut [bool],
    weight: &mut [Option<u32>],
) {
    let mut stack = vec![(root, false)];
    while let Some((id, expanded)) = stack.pop() {
        if weight[id].is_some() {
            continue;
        }
        let op = &def.nodes[id].op;
        let Some(limit) = candidate(id) else {
            weight[id] = Some(0);
            continue;
        };
        if !expanded {
            stack.push((id, true));
            comb_operands_of(op, &def.mems, |o| {
                if weight[o as usize].is_none() {
                    stack.push((o as usize, false));
                }
            });
            continue;
        }
        // Bit-selects, extensions and concatenations print no operator.
        let mut w = u32::from(!matches!(
            op,
            Op::Slice { .. } | Op::Extend { .. } | Op::Concat(_)
        ));
        comb_operands_of(op, &def.mems, |o| w += weight[o as usize].unwrap_or(0));
        if w <= limit {
            inline[id] = true;
            weight[id] = Some(w);
        } else {
            weight[id] = Some(0);
        }
    }
}
