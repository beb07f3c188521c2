//! The table of named signals of a flattened design, with the names of
//! [`rendergen_hdl::naming`]: ports `x_i`/`x_o`, registers `x_q`, wires, memory read data and
//! `named` signals by their own name, then values with a soft name (`#[name_lets]`). Shared by `Simulator::signal` and the VCD writer.

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
    /// For a register holding a hardware enum: the variant names by code.
    pub variants: Option<&'static [&'static str]>,
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
        // Adds a signal unless its name is taken in this scope; says whether it did.
        let mut add = |name: String, local: NodeId| {
            let fresh = seen.insert(name.clone());
            if fresh {
                let node = b + local;
                let width = flat.nodes[node as usize].width;
                out.push(NamedSignal {
                    scope: s as u32,
                    name,
                    node,
                    width,
                    variants: None,
                });
            }
            fresh
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
        // Values named after the variable they were bound to (`#[name_lets]`), after every
        // designer name, made unique within the scope.
        for (i, node) in def.nodes.iter().enumerate() {
            let (None, Some(soft)) = (&node.name, &node.soft_name) else {
                continue;
            };
            let mut k = 0;
            while !add(
                if k == 0 {
                    soft.clone()
                } else {
                    format!("{soft}_{k}")
                },
                i as NodeId,
            ) {
                k += 1;
            }
        }
    }
    // Registers holding a hardware enum carry its variant names (for waveforms).
    for sig in &mut out {
        let def = &design.modules[flat.scopes[sig.scope as usize].module];
        let local = sig.node - base[sig.scope as usize];
        let is_reg = matches!(def.nodes[local as usize].op, Op::Reg(_));
        if let Some((_, v)) = def.enum_regs.iter().find(|(n, _)| is_reg && *n == local) {
            sig.variants = Some(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::Simulator;
    use rendergen_hdl::{name_lets, Design, Module};

    #[name_lets]
    fn accumulate(m: &mut Module) {
        let a = m.input("a", 8);
        let acc = m.reg("acc", 8).reset(0);
        let sum = acc.q() + a;
        let doubled = (sum + sum).named("sum");
        acc.next(doubled);
        // Reaches nothing: computed only when observed (rustc rightly calls it unused).
        #[allow(unused_variables)]
        let spare = a ^ 0x55;
        m.output("y", acc.q());
    }

    #[test]
    fn soft_names_are_signals_after_designer_names() {
        let mut sim = Simulator::new(&Design::build("top", accumulate).unwrap()).unwrap();
        let a = sim.input("a").unwrap();
        // The designer's `sum` keeps its name; the variable `sum` becomes `sum_1`.
        let twice = sim.signal("top.sum").unwrap();
        let once = sim.signal("top.sum_1").unwrap();
        let spare = sim.signal("top.spare").unwrap();
        sim.poke(a, 3);
        sim.step();
        sim.poke(a, 1);
        assert_eq!(sim.peek_signal(once).to_u64(), 6 + 1);
        assert_eq!(sim.peek_signal(twice).to_u64(), 14);
        assert_eq!(sim.peek_signal(spare).to_u64(), 1 ^ 0x55);
    }
}
