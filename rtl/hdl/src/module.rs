//! `Module`, the builder a generator receives: ports, wires, registers, memories, constants and
//! instances of other generators.

use crate::bits::Bits;
use crate::ctx::{self, ModState};
use crate::error::ErrorKind;
use crate::ir::{Loc, ModuleDef, Op, Port, Reg as RegDef};
use crate::sig::{constant, Sig};
use std::collections::HashMap;
use std::panic::Location;

/// The module under construction. Generators take `&mut Module`; the handle carries no state of
/// its own beyond the identity of the module, the netlist lives in the elaboration context.
pub struct Module {
    pub(crate) uid: u32,
}

/// A wire: declared now, driven exactly once later (declare-then-drive).
#[derive(Clone, Copy, Debug)]
pub struct Wire {
    sig: Sig,
}

/// A register: declared now, its next value driven exactly once later.
#[derive(Clone, Copy, Debug)]
pub struct Reg {
    sig: Sig,
    index: u32,
}

pub(crate) fn new_state(uid: u32, name: String, params: String) -> ModState {
    ModState {
        uid,
        def: ModuleDef {
            name,
            params,
            nodes: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            regs: Vec::new(),
            mems: Vec::new(),
            insts: Vec::new(),
            localparams: Vec::new(),
            enum_regs: Vec::new(),
        },
        wire_drivers: HashMap::new(),
        port_names: HashMap::new(),
        local_names: HashMap::new(),
        shared: HashMap::new(),
        prefix: Vec::new(),
        enum_consts: HashMap::new(),
    }
}

fn claim_port(name: &str, loc: Loc) -> bool {
    ctx::with(|c| {
        if let Some(prev) = c.top().port_names.get(name).copied() {
            c.error(
                ErrorKind::DuplicateName,
                loc,
                format!(
                    "port `{name}` declared twice (first at {}:{})",
                    prev.file(),
                    prev.line()
                ),
            );
            return false;
        }
        c.top().port_names.insert(name.to_string(), loc);
        true
    })
}

fn check_width(width: u32, what: &str, loc: Loc) -> u32 {
    if width == 0 {
        ctx::with(|c| {
            c.error(
                ErrorKind::Invalid,
                loc,
                format!("{what} has width 0; widths must be ≥ 1"),
            )
        });
        return 1;
    }
    width
}

impl Module {
    /// Name of the module being built (its Verilog name).
    pub fn name(&self) -> String {
        ctx::with(|c| {
            debug_assert_eq!(
                c.top().uid,
                self.uid,
                "module handle used outside its generator"
            );
            c.top().def.name.clone()
        })
    }

    /// Declares an input port.
    #[track_caller]
    pub fn input(&mut self, name: &str, width: u32) -> Sig {
        let loc = Location::caller();
        let width = check_width(width, &format!("input `{name}`"), loc);
        claim_port(name, loc);
        ctx::with(|c| {
            let index = c.top().def.inputs.len() as u32;
            let s = c.sig(Op::Input(index), width, loc);
            c.top().def.nodes[s.node as usize].name = Some(name.to_string());
            c.top().def.inputs.push(Port {
                name: name.to_string(),
                width,
                node: s.node,
                loc,
            });
            s
        })
    }

    /// Declares an output port driven by `value`.
    #[track_caller]
    pub fn output(&mut self, name: &str, value: Sig) {
        let loc = Location::caller();
        claim_port(name, loc);
        ctx::with(|c| {
            let node = c.operand(value, loc);
            let width = value.width;
            c.top().def.outputs.push(Port {
                name: name.to_string(),
                width,
                node,
                loc,
            });
        })
    }

    /// Declares an output port to be driven later through the returned wire.
    #[track_caller]
    pub fn output_wire(&mut self, name: &str, width: u32) -> Wire {
        let w = self.wire(name, width);
        self.output(name, w.sig);
        w
    }

    /// Declares a wire of `width` bits; drive it once with [`Wire::drive`].
    #[track_caller]
    pub fn wire(&mut self, name: &str, width: u32) -> Wire {
        let loc = Location::caller();
        let width = check_width(width, &format!("wire `{name}`"), loc);
        ctx::with(|c| {
            let name = c.unique_local(name);
            let sig = c.sig(Op::Wire(None), width, loc);
            c.top().def.nodes[sig.node as usize].name = Some(name);
            Wire { sig }
        })
    }

    /// Declares a register of `width` bits with no reset; set one with [`Reg::reset`] and drive
    /// the next value with [`Reg::next`] or [`Reg::next_when`].
    #[track_caller]
    pub fn reg(&mut self, name: &str, width: u32) -> Reg {
        let loc = Location::caller();
        let width = check_width(width, &format!("register `{name}`"), loc);
        ctx::with(|c| {
            let name = c.unique_local(name);
            let index = c.top().def.regs.len() as u32;
            let sig = c.sig(Op::Reg(index), width, loc);
            c.top().def.nodes[sig.node as usize].name = Some(name);
            c.top().def.regs.push(RegDef {
                node: sig.node,
                next: None,
                enable: None,
                reset: None,
                next_loc: None,
            });
            Reg { sig, index }
        })
    }

    /// A constant of `width` bits (the value must fit).
    #[track_caller]
    pub fn lit(&mut self, value: u64, width: u32) -> Sig {
        let loc = Location::caller();
        let width = check_width(width, "constant", loc);
        crate::sig::literal(value as i128, width, loc)
    }

    /// A constant from a bit vector of any width.
    #[track_caller]
    pub fn constant(&mut self, value: Bits) -> Sig {
        constant(value, Location::caller())
    }
}

impl Wire {
    /// The wire's value.
    pub fn sig(self) -> Sig {
        self.sig
    }

    /// Drives the wire; a second driver is an error naming both lines.
    #[track_caller]
    pub fn drive(self, value: Sig) {
        let loc = Location::caller();
        ctx::with(|c| {
            let v = c.operand(value, loc);
            let w = c.operand(self.sig, loc);
            let name = c.describe(w);
            if value.width != self.sig.width {
                let d = c.describe(v);
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!(
                        "{name} is {} bits but is driven by {d} ({} bits)",
                        self.sig.width, value.width
                    ),
                );
                return;
            }
            if let Some(prev) = c.top().wire_drivers.get(&w).copied() {
                c.error(
                    ErrorKind::MultipleDrivers,
                    loc,
                    format!(
                        "{name} has multiple drivers: already driven at {}:{}",
                        prev.file(),
                        prev.line()
                    ),
                );
                return;
            }
            c.top().wire_drivers.insert(w, loc);
            c.top().def.nodes[w as usize].op = Op::Wire(Some(v));
        })
    }
}

impl Reg {
    /// The register's current value (`_q`).
    pub fn q(self) -> Sig {
        self.sig
    }

    /// Sets the synchronous reset value (required on control registers).
    #[track_caller]
    pub fn reset(self, value: u64) -> Reg {
        let loc = Location::caller();
        let width = self.sig.width;
        ctx::with(|c| {
            if width < 64 && value >> width != 0 {
                let name = c.describe(self.sig.node);
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!("reset value {value} of register {name} does not fit in {width} bits"),
                );
            }
            c.top().def.regs[self.index as usize].reset =
                Some(Bits::from_u64(value, self.sig.width))
        });
        self
    }

    /// Sets a reset value of any width.
    pub fn reset_bits(self, value: Bits) -> Reg {
        ctx::with(|c| {
            c.top().def.regs[self.index as usize].reset = Some(value.resized(self.sig.width))
        });
        self
    }

    /// Loads `value` at every clock edge.
    #[track_caller]
    pub fn next(self, value: Sig) {
        self.drive(None, value, Location::caller())
    }

    /// Loads `value` at clock edges where `enable` is 1, holds otherwise.
    #[track_caller]
    pub fn next_when(self, enable: Sig, value: Sig) {
        self.drive(Some(enable), value, Location::caller())
    }

    fn drive(self, enable: Option<Sig>, value: Sig, loc: Loc) {
        ctx::with(|c| {
            let v = c.operand(value, loc);
            let en = enable.map(|e| c.operand(e, loc));
            let name = c.describe(self.sig.node);
            if value.width != self.sig.width {
                let d = c.describe(v);
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!(
                        "register {name} is {} bits but its next value {d} is {} bits",
                        self.sig.width, value.width
                    ),
                );
                return;
            }
            if let Some(e) = enable {
                if e.width != 1 {
                    c.error(
                        ErrorKind::WidthMismatch,
                        loc,
                        format!("enable of register {name} is {} bits, must be 1", e.width),
                    );
                    return;
                }
            }
            let reg = &c.top().def.regs[self.index as usize];
            if let Some(prev) = reg.next_loc {
                c.error(
                    ErrorKind::MultipleDrivers,
                    loc,
                    format!(
                        "register {name} has multiple drivers: next value already set at {}:{}",
                        prev.file(),
                        prev.line()
                    ),
                );
                return;
            }
            let reg = &mut c.top().def.regs[self.index as usize];
            reg.next = Some(v);
            reg.enable = en;
            reg.next_loc = Some(loc);
        })
    }
}

/// Checks run when a module is finished: everything declared was driven.
pub(crate) fn finish_checks(
    state: &ModState,
    modules: &[ModuleDef],
    errors: &mut Vec<crate::error::ElabError>,
) {
    let def = &state.def;
    let mut err = |kind, loc: Loc, message: String| {
        errors.push(crate::error::ElabError {
            kind,
            message,
            module: def.name.clone(),
            loc,
        })
    };
    for node in &def.nodes {
        if let Op::Wire(None) = node.op {
            let name = node.name.as_deref().unwrap_or("?");
            let is_output = def.outputs.iter().any(|p| p.name == name);
            let what = if is_output { "output" } else { "wire" };
            err(
                ErrorKind::Undriven,
                node.loc,
                format!("{what} `{name}` ({} bits) is never driven", node.width),
            );
        }
    }
    for reg in &def.regs {
        if reg.next.is_none() {
            let node = &def.nodes[reg.node as usize];
            err(
                ErrorKind::Undriven,
                node.loc,
                format!(
                    "register `{}` has no next value (call `.next` or `.next_when`)",
                    node.name.as_deref().unwrap_or("?")
                ),
            );
        }
    }
    for inst in &def.insts {
        let child = &modules[inst.module];
        for (i, d) in inst.inputs.iter().enumerate() {
            if d.is_none() {
                err(
                    ErrorKind::Undriven,
                    inst.loc,
                    format!(
                        "input `{}` of instance `{}` (module `{}`) is not connected",
                        child.inputs[i].name, inst.name, child.name
                    ),
                );
            }
        }
    }
}
