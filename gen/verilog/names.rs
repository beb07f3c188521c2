//! Verilog names for everything a module declares.
//!
//! Names come from the IR (`Node::name`, port and register names through
//! [`rendergen_hdl::naming`]), are sanitised (no `$`, no keywords) and made unique within the
//! module by suffixing `_1`, `_2`, ... An unnamed node used exactly once by a named wire or an
//! output is printed directly under that name (`assign sum = a_i + b_i;`) instead of through a
//! temporary; an unnamed next value of register `x` is called `x_d`; other unnamed nodes get a
//! short name from their operation and node id (`add17`).

use super::plan::Plan;
use rendergen_hdl::ir::{BinOp, Design, ModuleDef, NodeId, Op, UnOp};
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

/// True for nodes printed as a `case` in `always @*`.
pub(crate) fn is_case(op: &Op) -> bool {
    matches!(op, Op::Select { .. } | Op::Lut { .. })
}

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
            if single_unnamed(d) && !is_case(&def.node(d).op) && host[d as usize].is_none() {
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
        Names {
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

/// Chooses the nodes printed in place (see [`Names::inline`]). A node that some consumer
/// bit-selects (a slice or an extension) keeps its name, since Verilog can only bit-select names.
fn inline_nodes(def: &ModuleDef, plan: &Plan, host: &[Option<Host>]) -> Vec<bool> {
    let n = def.nodes.len();
    let mut selected = vec![false; n];
    for (id, node) in def.nodes.iter().enumerate() {
        if let (true, Op::Slice { a, .. } | Op::Extend { a, .. }) = (plan.live[id], &node.op) {
            selected[*a as usize] = true;
        }
    }
    (0..n)
        .map(|id| {
            let node = &def.nodes[id];
            let ok = plan.live[id] && node.name.is_none() && host[id].is_none() && !selected[id];
            ok && match node.op {
                Op::Slice { .. } => true,
                Op::Concat(_) | Op::Extend { .. } => plan.uses[id] == 1,
                _ => false,
            }
        })
        .collect()
}
