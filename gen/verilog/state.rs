//! The state elements of an emitted design with their hierarchical Verilog paths, so that
//! testbenches can start every register and uninitialised memory at zero, as the Rust
//! simulator does (Verilog would start them at X).

use super::names::{port_names, Names, Scope};
use super::plan::Plan;
use rendergen_hdl::ir::{Design, Op};

/// A register or memory, relative to the top module (`u_child.count_q`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateVar {
    /// Hierarchical path below the top module, `.`-separated.
    pub path: String,
    /// Bits per word.
    pub width: u32,
    /// `Some(depth)` for a memory array, `None` for a register.
    pub depth: Option<u32>,
}

/// Every register (including synchronous read-data registers) and every memory without
/// initial contents, in the emitted Verilog of `design`.
pub fn state_vars(design: &Design) -> Vec<StateVar> {
    let mut out = Vec::new();
    walk(design, design.modules.len() - 1, "", &mut out);
    out
}

fn walk(design: &Design, m: usize, prefix: &str, out: &mut Vec<StateVar>) {
    let def = &design.modules[m];
    let plan = Plan::new(def);
    let names = Names::new(design, def, &plan);
    for (id, node) in def.nodes.iter().enumerate() {
        let state = match &node.op {
            Op::Reg(_) => true,
            Op::MemRead { mem, port } => def.mems[*mem as usize].reads[*port as usize].sync,
            _ => false,
        };
        if state && plan.live[id] {
            out.push(StateVar {
                path: format!("{prefix}{}", names.node[id]),
                width: node.width,
                depth: None,
            });
        }
    }
    for (i, mem) in def.mems.iter().enumerate() {
        if plan.mem_live[i] && mem.init.is_none() && !mem.writes.is_empty() {
            out.push(StateVar {
                path: format!("{prefix}{}", names.mems[i]),
                width: mem.width,
                depth: Some(mem.depth),
            });
        }
    }
    for (i, inst) in def.insts.iter().enumerate() {
        walk(
            design,
            inst.module,
            &format!("{prefix}{}.", names.insts[i]),
            out,
        );
    }
}

/// Verilog names of the top module's input and output ports.
pub fn top_ports(design: &Design) -> (Vec<String>, Vec<String>) {
    port_names(design.top(), &mut Scope::default())
}
