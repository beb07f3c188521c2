//! The table of named signals of a flattened design, with the names of
//! [`rendergen_hdl::naming`]: ports `x_i`/`x_o`, registers `x_q`, wires, memory read data and
//! `named` signals by their own name. Shared by `Simulator::signal` and the VCD writer.

use rendergen_hdl::ir::{Design, NodeId, Op};
use rendergen_hdl::{naming, FlatNetlist};
use std::collections::HashSet;

/// A signal visible in the VCD and to `Simulator::signal`.
#[derive(Clone, Debug)]
pub(crate) struct NamedSignal {
    /// Scope index in `FlatNetlist::scopes`.
    pub scope: u32,
    /// Name in its scope (with lowRISC suffix).
    pub name: String,
    /// Flat node carrying the value.
    pub node: NodeId,
    /// Width in bits.
    pub width: u32,
}

/// Dotted path of a scope, e.g. `top.u_fifo`.
pub(crate) fn scope_path(flat: &FlatNetlist, scope: u32) -> String {
    let mut parts = Vec::new();
    let mut s = Some(scope);
    while let Some(i) = s {
        parts.push(flat.scopes[i as usize].name.as_str());
        s = flat.scopes[i as usize].parent;
    }
    parts.reverse();
    parts.join(".")
}

/// All named signals, scope by scope (scopes in `flat.scopes` order), ports first.
pub(crate) fn named_signals(design: &Design, flat: &FlatNetlist) -> Vec<NamedSignal> {
    // A scope's nodes are one contiguous block of the flat netlist (flatten adds a module's own
    // nodes before descending into its instances).
    let mut base = vec![u32::MAX; flat.scopes.len()];
    for (i, s) in flat.node_scope.iter().enumerate().rev() {
        base[*s as usize] = i as u32;
    }
    let mut out = Vec::new();
    for (s, scope) in flat.scopes.iter().enumerate() {
        if base[s] == u32::MAX {
            continue;
        }
        let def = &design.modules[scope.module];
        let b = base[s];
        let mut seen = HashSet::new();
        let mut add = |name: String, local: NodeId| {
            if seen.insert(name.clone()) {
                let node = b + local;
                let width = flat.nodes[node as usize].width;
                out.push(NamedSignal {
                    scope: s as u32,
                    name,
                    node,
                    width,
                });
            }
        };
        for p in &def.inputs {
            add(naming::input_port(&p.name), p.node);
        }
        for p in &def.outputs {
            add(naming::output_port(&p.name), p.node);
        }
        for r in &def.regs {
            let name = def.nodes[r.node as usize].name.as_deref().unwrap_or("reg");
            add(naming::register(name), r.node);
        }
        for (i, node) in def.nodes.iter().enumerate() {
            let Some(name) = &node.name else { continue };
            if matches!(node.op, Op::Input(_) | Op::Reg(_)) {
                continue;
            }
            // An output declared with `output_wire` is the wire of the same name: show it once.
            if def
                .outputs
                .iter()
                .any(|p| p.node == i as NodeId && p.name == *name)
            {
                continue;
            }
            add(name.clone(), i as NodeId);
        }
    }
    out
}
