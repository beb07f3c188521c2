//! Flattening a hierarchical design into one netlist (for the simulator and for analyses that
//! cross module boundaries, such as combinational-loop detection).
//!
//! Instance boundaries become `Wire` nodes: a child's input is a wire driven by the parent's
//! connection, and an instance output in the parent is a wire driven by the child's output
//! driver. Every node keeps its scope (instance path) so the VCD shows the hierarchy.

use crate::error::{ElabError, ErrorKind};
use crate::ir::{comb_operands_of, Design, Memory, Node, NodeId, Op, Port, Reg};

/// One level of the instance hierarchy.
#[derive(Clone, Debug)]
pub struct Scope {
    /// Instance name (the top module's name for the root).
    pub name: String,
    /// Enclosing scope (`None` for the root).
    pub parent: Option<u32>,
    /// Module definition index in the design.
    pub module: usize,
}

/// A design with its hierarchy flattened.
#[derive(Clone, Debug)]
pub struct FlatNetlist {
    /// All nodes; operand ids, `Reg` and `MemRead` indices refer to this netlist.
    pub nodes: Vec<Node>,
    /// Scope of each node.
    pub node_scope: Vec<u32>,
    /// All registers.
    pub regs: Vec<Reg>,
    /// All memories.
    pub mems: Vec<Memory>,
    /// Scope of each memory.
    pub mem_scope: Vec<u32>,
    /// Top-level inputs.
    pub inputs: Vec<Port>,
    /// Top-level outputs.
    pub outputs: Vec<Port>,
    /// The hierarchy; scope 0 is the top.
    pub scopes: Vec<Scope>,
}

impl FlatNetlist {
    /// Flattens `design`.
    pub fn new(design: &Design) -> FlatNetlist {
        let top = design.modules.len() - 1;
        let mut flat = FlatNetlist {
            nodes: Vec::new(),
            node_scope: Vec::new(),
            regs: Vec::new(),
            mems: Vec::new(),
            mem_scope: Vec::new(),
            inputs: design.modules[top].inputs.clone(),
            outputs: design.modules[top].outputs.clone(),
            scopes: vec![Scope {
                name: design.modules[top].name.clone(),
                parent: None,
                module: top,
            }],
        };
        flat.add_module(design, top, 0, None);
        flat
    }

    /// Adds module `m` in scope `scope`; `inputs` are the flat drivers of its inputs (`None` for
    /// the top). Returns the flat ids of its output drivers.
    fn add_module(
        &mut self,
        d: &Design,
        m: usize,
        scope: u32,
        inputs: Option<&[NodeId]>,
    ) -> Vec<NodeId> {
        let def = &d.modules[m];
        let base = self.nodes.len() as NodeId;
        let reg_base = self.regs.len() as u32;
        let mem_base = self.mems.len() as u32;
        self.nodes.extend(def.nodes.iter().cloned());
        self.node_scope
            .extend(std::iter::repeat_n(scope, def.nodes.len()));
        let map = |id: NodeId| id + base;
        for r in &def.regs {
            self.regs.push(Reg {
                node: map(r.node),
                next: r.next.map(map),
                enable: r.enable.map(map),
                reset: r.reset.clone(),
                next_loc: r.next_loc,
            });
        }
        for mem in &def.mems {
            let mut mem = mem.clone();
            for w in &mut mem.writes {
                (w.enable, w.addr, w.data) = (map(w.enable), map(w.addr), map(w.data));
            }
            for r in &mut mem.reads {
                (r.addr, r.node) = (map(r.addr), map(r.node));
                r.enable = r.enable.map(map);
            }
            self.mems.push(mem);
            self.mem_scope.push(scope);
        }
        // Children first, so instance outputs can be resolved.
        let mut child_outputs = Vec::new();
        for inst in &def.insts {
            let drivers: Vec<NodeId> = inst.inputs.iter().map(|i| map(i.unwrap_or(0))).collect();
            let child_scope = self.scopes.len() as u32;
            self.scopes.push(Scope {
                name: inst.name.clone(),
                parent: Some(scope),
                module: inst.module,
            });
            child_outputs.push(self.add_module(d, inst.module, child_scope, Some(&drivers)));
        }
        for i in 0..def.nodes.len() {
            let id = base as usize + i;
            let op = std::mem::replace(&mut self.nodes[id].op, Op::Wire(None));
            self.nodes[id].op = match op {
                Op::Input(p) => match inputs {
                    Some(drivers) => Op::Wire(Some(drivers[p as usize])),
                    None => Op::Input(p),
                },
                Op::InstOut { inst, port } => {
                    Op::Wire(Some(child_outputs[inst as usize][port as usize]))
                }
                Op::Reg(r) => Op::Reg(r + reg_base),
                Op::MemRead { mem, port } => Op::MemRead {
                    mem: mem + mem_base,
                    port,
                },
                other => remap(other, map),
            };
        }
        def.outputs.iter().map(|p| map(p.node)).collect()
    }

    /// Hierarchical name of a node: `scope.path.name`, or a description of an unnamed node.
    pub fn path_of(&self, id: NodeId) -> String {
        let node = &self.nodes[id as usize];
        let mut path = Vec::new();
        let mut s = Some(self.node_scope[id as usize]);
        while let Some(i) = s {
            path.push(self.scopes[i as usize].name.clone());
            s = self.scopes[i as usize].parent;
        }
        path.reverse();
        match &node.name {
            Some(n) => format!("{}.{n}", path.join(".")),
            None => format!(
                "{}.<{} at {}:{}>",
                path.join("."),
                op_name(&node.op),
                node.loc.file(),
                node.loc.line()
            ),
        }
    }

    /// Combinational fan-in of a node.
    pub fn comb_operands(&self, id: NodeId, f: impl FnMut(NodeId)) {
        comb_operands_of(&self.nodes[id as usize].op, &self.mems, f)
    }
}

/// Name of an operation for messages.
pub fn op_name(op: &Op) -> String {
    match op {
        Op::Binary(b, ..) => format!("{b:?}"),
        Op::Unary(u, _) => format!("{u:?}"),
        Op::Mux { .. } => "mux".into(),
        Op::Concat(_) => "concat".into(),
        Op::Slice { .. } => "slice".into(),
        Op::Extend { .. } => "extend".into(),
        Op::Select { .. } => "select".into(),
        Op::Lut { .. } => "lut".into(),
        Op::Const(_) => "const".into(),
        _ => "signal".into(),
    }
}

fn remap(op: Op, map: impl Fn(NodeId) -> NodeId) -> Op {
    match op {
        Op::Wire(d) => Op::Wire(d.map(&map)),
        Op::Unary(u, a) => Op::Unary(u, map(a)),
        Op::Binary(b, x, y) => Op::Binary(b, map(x), map(y)),
        Op::Mux {
            sel,
            on_true,
            on_false,
        } => Op::Mux {
            sel: map(sel),
            on_true: map(on_true),
            on_false: map(on_false),
        },
        Op::Concat(parts) => Op::Concat(parts.into_iter().map(&map).collect()),
        Op::Slice { a, lo } => Op::Slice { a: map(a), lo },
        Op::Extend { a, signed } => Op::Extend { a: map(a), signed },
        Op::Select {
            index,
            cases,
            default,
        } => Op::Select {
            index: map(index),
            cases: cases.into_iter().map(&map).collect(),
            default: map(default),
        },
        Op::Lut { index, table } => Op::Lut {
            index: map(index),
            table,
        },
        other => other,
    }
}

impl FlatNetlist {
    /// Combinational evaluation order: every node after its combinational operands. On a
    /// combinational cycle, returns the nodes of one cycle, in order.
    pub fn comb_order(&self) -> Result<Vec<NodeId>, Vec<NodeId>> {
        let n = self.nodes.len();
        let mut indegree = vec![0u32; n];
        let mut users: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for id in 0..n as NodeId {
            self.comb_operands(id, |a| {
                indegree[id as usize] += 1;
                users[a as usize].push(id);
            });
        }
        let mut order: Vec<NodeId> = (0..n as NodeId)
            .filter(|i| indegree[*i as usize] == 0)
            .collect();
        let mut head = 0;
        while head < order.len() {
            let id = order[head];
            head += 1;
            for &u in &users[id as usize] {
                indegree[u as usize] -= 1;
                if indegree[u as usize] == 0 {
                    order.push(u);
                }
            }
        }
        if order.len() == n {
            return Ok(order);
        }
        // Walk backwards through unresolved operands until a node repeats: that is a cycle.
        let start = (0..n)
            .find(|i| indegree[*i] > 0)
            .expect("an unresolved node") as NodeId;
        let mut seen = vec![usize::MAX; n];
        let mut path = Vec::new();
        let mut cur = start;
        loop {
            if seen[cur as usize] != usize::MAX {
                let mut cycle = path[seen[cur as usize]..].to_vec();
                cycle.reverse();
                return Err(cycle);
            }
            seen[cur as usize] = path.len();
            path.push(cur);
            let mut next = None;
            self.comb_operands(cur, |a| {
                if next.is_none() && indegree[a as usize] > 0 {
                    next = Some(a)
                }
            });
            cur = next.expect("an unresolved node has an unresolved operand");
        }
    }
}

/// Elaboration check: combinational loops anywhere in the flattened design, with the signals of
/// the loop listed by hierarchical name.
pub(crate) fn find_comb_loops(design: &Design) -> Vec<ElabError> {
    let flat = FlatNetlist::new(design);
    match flat.comb_order() {
        Ok(_) => Vec::new(),
        Err(cycle) => {
            let names: Vec<String> = cycle
                .iter()
                .filter(|id| flat.nodes[**id as usize].name.is_some())
                .map(|id| flat.path_of(*id))
                .collect();
            let names = if names.is_empty() {
                cycle.iter().map(|id| flat.path_of(*id)).collect()
            } else {
                names
            };
            let first = &flat.nodes[cycle[0] as usize];
            let module = flat.scopes[flat.node_scope[cycle[0] as usize] as usize]
                .name
                .clone();
            vec![ElabError {
                kind: ErrorKind::CombLoop,
                message: format!("combinational loop through: {}", names.join(" -> ")),
                module,
                loc: first.loc,
            }]
        }
    }
}
