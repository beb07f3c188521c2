//! Elaborating a design and instantiating generators inside one another.
//!
//! One module definition exists per distinct generator name + parameters (deduplicated by the
//! `Debug` form of the parameters); the first gets the generator's name, later distinct ones
//! `name_1`, `name_2`, ... The emitted Verilog keeps this hierarchy.

use crate::ctx;
use crate::error::{ElabErrors, ErrorKind};
use crate::flatten;
use crate::ir::{Design, Instance as InstDef, Loc, Op};
use crate::module::{finish_checks, new_state, Module};
use crate::sig::Sig;
use std::fmt::Debug;
use std::panic::Location;

impl Design {
    /// Elaborates a design whose top module is built by `build`. Returns every elaboration error
    /// (width mismatches, undriven or multiply-driven signals, combinational loops, unknown ports,
    /// mismatched bundles), each pointing at the user's line.
    #[track_caller]
    pub fn build(top: &str, build: impl FnOnce(&mut Module)) -> Result<Design, ElabErrors> {
        Self::build_with_params(top, "", build)
    }

    /// Like [`Design::build`], recording `params` (shown in the Verilog header comment).
    #[track_caller]
    pub fn build_with_params(
        top: &str,
        params: &str,
        build: impl FnOnce(&mut Module),
    ) -> Result<Design, ElabErrors> {
        let loc = Location::caller();
        if !ctx::begin() {
            panic!("Design::build called while another design is being elaborated ({loc})");
        }
        ctx::with(|c| c.per_generator.insert(top.to_string(), 1));
        let mut module = enter(top.to_string(), params.to_string());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            build(&mut module);
        }));
        if let Err(panic) = outcome {
            ctx::end();
            std::panic::resume_unwind(panic);
        }
        leave();
        let c = ctx::end();
        let mut errors = c.errors;
        let design = Design { modules: c.modules };
        if errors.is_empty() {
            errors.extend(flatten::find_comb_loops(&design));
        }
        if errors.is_empty() {
            Ok(design)
        } else {
            Err(ElabErrors(errors))
        }
    }
}

fn enter(name: String, params: String) -> Module {
    ctx::with(|c| {
        let uid = c.next_uid;
        c.next_uid += 1;
        c.stack.push(new_state(uid, name, params));
        Module { uid }
    })
}

fn leave() -> usize {
    ctx::with(|c| {
        let state = c.stack.pop().expect("module under construction");
        finish_checks(&state, &c.modules, &mut c.errors);
        c.modules.push(state.def);
        c.modules.len() - 1
    })
}

/// A handle to an instance of a child module inside the module under construction.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    module: u32,
    index: u32,
    child: usize,
}

impl Module {
    /// Instantiates the generator `generator` with `params` as `name`. `build` elaborates the
    /// child's body (only the first time these parameters are seen). Connect its inputs with
    /// [`Instance::connect`] and read outputs with [`Instance::output`].
    #[track_caller]
    pub fn instance<P: Debug>(
        &mut self,
        name: &str,
        generator: &str,
        params: &P,
        build: impl FnOnce(&mut Module),
    ) -> Instance {
        let params = format!("{params:?}");
        let key = format!("{generator} {params}");
        let described = format!("{generator} {params}");
        self.instance_keyed(name, generator, key, described, build)
    }

    /// [`Module::instance`] with the deduplication key and the header description given.
    #[track_caller]
    pub(crate) fn instance_keyed(
        &mut self,
        name: &str,
        generator: &str,
        key: String,
        params: String,
        build: impl FnOnce(&mut Module),
    ) -> Instance {
        let loc = Location::caller();
        let existing = ctx::with(|c| c.by_key.get(&key).copied());
        let child = match existing {
            Some(i) => i,
            None => {
                let module_name = ctx::with(|c| {
                    let n = c.per_generator.entry(generator.to_string()).or_insert(0);
                    let name = if *n == 0 {
                        generator.to_string()
                    } else {
                        format!("{generator}_{n}")
                    };
                    *n += 1;
                    name
                });
                let mut child = enter(module_name, params);
                build(&mut child);
                let idx = leave();
                ctx::with(|c| c.by_key.insert(key, idx));
                idx
            }
        };
        ctx::with(|c| {
            let name = c.unique_local(name);
            let n_inputs = c.modules[child].inputs.len();
            let top = c.top();
            top.def.insts.push(InstDef {
                name,
                module: child,
                inputs: vec![None; n_inputs],
                loc,
            });
            Instance {
                module: top.uid,
                index: (top.def.insts.len() - 1) as u32,
                child,
            }
        })
    }
}

fn unknown_port(c: &mut ctx::Ctx, inst: &Instance, dir: &str, port: &str, loc: Loc) {
    let child = &c.modules[inst.child];
    let names: Vec<&str> = if dir == "input" {
        child.inputs.iter().map(|p| p.name.as_str()).collect()
    } else {
        child.outputs.iter().map(|p| p.name.as_str()).collect()
    };
    let msg = format!(
        "module `{}` has no {dir} `{port}`; its {dir}s are: {}",
        child.name,
        names.join(", ")
    );
    c.error(ErrorKind::UnknownPort, loc, msg);
}

impl Instance {
    /// Index of the instantiated module definition in the design.
    pub fn child_index(self) -> usize {
        self.child
    }

    /// Drives input `port` of the instance with `value`.
    #[track_caller]
    pub fn connect(self, port: &str, value: Sig) {
        let loc = Location::caller();
        ctx::with(|c| {
            let v = c.operand(value, loc);
            if c.top().uid != self.module {
                c.error(
                    ErrorKind::ForeignSignal,
                    loc,
                    "instance of another module".into(),
                );
                return;
            }
            let Some(i) = c.modules[self.child].input_index(port) else {
                unknown_port(c, &self, "input", port, loc);
                return;
            };
            let child = &c.modules[self.child];
            let (pw, cname) = (child.inputs[i].width, child.name.clone());
            let inst_name = c.top().def.insts[self.index as usize].name.clone();
            if pw != value.width {
                let d = c.describe(v);
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!(
                        "input `{port}` of instance `{inst_name}` (module `{cname}`) is {pw} bits, \
                         connected to {d} ({} bits)",
                        value.width
                    ),
                );
                return;
            }
            let slot = &mut c.top().def.insts[self.index as usize].inputs[i];
            if slot.is_some() {
                c.error(
                    ErrorKind::MultipleDrivers,
                    loc,
                    format!("input `{port}` of instance `{inst_name}` is connected twice"),
                );
                return;
            }
            *slot = Some(v);
        })
    }

    /// Output `port` of the instance.
    #[track_caller]
    pub fn output(self, port: &str) -> Sig {
        let loc = Location::caller();
        ctx::with(|c| {
            let Some(i) = c.modules[self.child].output_index(port) else {
                unknown_port(c, &self, "output", port, loc);
                let node = c.dummy(1, loc);
                return Sig {
                    module: c.top().uid,
                    node,
                    width: 1,
                };
            };
            let width = c.modules[self.child].outputs[i].width;
            c.sig(
                Op::InstOut {
                    inst: self.index,
                    port: i as u32,
                },
                width,
                loc,
            )
        })
    }

    /// Width of input `port`, if the child has it.
    pub fn input_width(self, port: &str) -> Option<u32> {
        ctx::with(|c| {
            let child = &c.modules[self.child];
            child.input_index(port).map(|i| child.inputs[i].width)
        })
    }

    /// Width of output `port`, if the child has it.
    pub fn output_width(self, port: &str) -> Option<u32> {
        ctx::with(|c| {
            let child = &c.modules[self.child];
            child.output_index(port).map(|i| child.outputs[i].width)
        })
    }
}

impl Instance {
    /// The child's payload ports starting with `prefix` (inputs or outputs), without the prefix,
    /// leaving out `valid` and `ready`.
    pub(crate) fn payload_ports(self, prefix: &str, input: bool) -> Vec<(String, u32)> {
        ctx::with(|c| {
            let child = &c.modules[self.child];
            let ports = if input { &child.inputs } else { &child.outputs };
            ports
                .iter()
                .filter_map(|p| {
                    let rest = p.name.strip_prefix(prefix)?;
                    (rest != "valid" && rest != "ready").then(|| (rest.to_string(), p.width))
                })
                .collect()
        })
    }
}
