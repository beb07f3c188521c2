//! The ABI applied to concrete data: named inputs to launch registers, named uniforms to
//! uniform words, exports back to named outputs. The command line and the tests use it; the
//! interpreter or the RTL runs the words.

use crate::ir::Ty;
use crate::Interface;
use std::collections::BTreeMap;

/// One invocation's inputs: name → words (a scalar is one word).
pub type Invocation = BTreeMap<String, Vec<u32>>;

/// Launch registers of each invocation (lists of `regs` words), checking names and lengths.
pub fn registers(iface: &Interface, invocations: &[Invocation]) -> Result<Vec<Vec<u32>>, String> {
    let mut out = Vec::new();
    for (n, inv) in invocations.iter().enumerate() {
        let mut regs = vec![0u32; 64];
        for (name, words) in inv {
            let Some(var) = iface.inputs.iter().find(|v| &v.name == name) else {
                let known: Vec<&str> = iface.inputs.iter().map(|v| v.name.as_str()).collect();
                return Err(format!(
                    "invocation {n}: unknown input `{name}` (the shader's inputs: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            };
            if words.len() != var.tys.len() {
                return Err(format!(
                    "invocation {n}: input `{name}` has {} numbers, the shader's has {}",
                    words.len(),
                    var.tys.len()
                ));
            }
            for (i, &w) in words.iter().enumerate() {
                regs[var.slot as usize + i] = w;
            }
        }
        let used = iface
            .inputs
            .iter()
            .map(|v| v.slot as usize + v.tys.len())
            .max()
            .unwrap_or(0);
        regs.truncate(used);
        out.push(regs);
    }
    Ok(out)
}

/// Uniform words from member names → words.
pub fn uniforms(
    iface: &Interface,
    values: &BTreeMap<String, Vec<u32>>,
) -> Result<Vec<u32>, String> {
    let mut words = Vec::new();
    for (name, v) in values {
        let Some(u) = iface.uniforms.iter().find(|u| &u.name == name) else {
            let known: Vec<&str> = iface.uniforms.iter().map(|u| u.name.as_str()).collect();
            return Err(format!(
                "unknown uniform `{name}` (the shader's uniforms: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        if v.len() != u.words.len() {
            return Err(format!(
                "uniform `{name}` has {} numbers, the shader's has {}",
                v.len(),
                u.words.len()
            ));
        }
        for (&(w, _), &x) in u.words.iter().zip(v) {
            if words.len() <= w as usize {
                words.resize(w as usize + 1, 0);
            }
            words[w as usize] = x;
        }
    }
    Ok(words)
}

/// An invocation's outputs by name from its exports (outputs it did not export are absent).
pub fn outputs(
    iface: &Interface,
    exports: &BTreeMap<u32, Vec<u32>>,
) -> Vec<(String, Vec<u32>, Vec<Ty>)> {
    iface
        .outputs
        .iter()
        .filter_map(|o| {
            exports
                .get(&o.slot)
                .map(|w| (o.name.clone(), w.clone(), o.tys.clone()))
        })
        .collect()
}

/// The type of an input (by name).
pub fn input_types(iface: &Interface, name: &str) -> Option<Vec<Ty>> {
    iface
        .inputs
        .iter()
        .find(|v| v.name == name)
        .map(|v| v.tys.clone())
}
