//! The elaboration context: the design being built and the stack of modules under construction.
//!
//! Signals are small `Copy` handles; operators on them record nodes into the module at the top of
//! a thread-local stack, so generator code reads like arithmetic (`rd_ptr.q() + 1`). A handle
//! remembers which module made it, so using a signal of one module inside another is reported
//! instead of silently wiring across the hierarchy.

use crate::bits::Bits;
use crate::error::{ElabError, ErrorKind};
use crate::ir::{Loc, ModuleDef, Node, NodeId, Op};
use std::cell::RefCell;
use std::collections::HashMap;

/// A module under construction.
pub(crate) struct ModState {
    pub uid: u32,
    pub def: ModuleDef,
    /// Where each wire was driven (for multiple-driver messages).
    pub wire_drivers: HashMap<NodeId, Loc>,
    /// Names of ports in use.
    pub port_names: HashMap<String, Loc>,
    /// Names of instances, registers, memories and named signals in use.
    pub local_names: HashMap<String, u32>,
    /// Pure nodes already built, so the same expression built twice is one node (common
    /// subexpressions are shared in the netlist, the simulator and the Verilog).
    pub shared: HashMap<(Op, u32), NodeId>,
    /// Named blocks entered ([`crate::Module::block`]): local names get their prefix.
    pub prefix: Vec<String>,
    /// Hardware-enum constants already made, by `localparam` name.
    pub enum_consts: HashMap<String, NodeId>,
}

/// The whole elaboration.
pub(crate) struct Ctx {
    pub modules: Vec<ModuleDef>,
    /// Generator key (name + parameters) → module index, for deduplication.
    pub by_key: HashMap<String, usize>,
    /// How many distinct modules each generator name produced (for `fifo`, `fifo_1`, ...).
    pub per_generator: HashMap<String, u32>,
    pub stack: Vec<ModState>,
    pub errors: Vec<ElabError>,
    pub next_uid: u32,
    /// The output shape of each child definition made by `Module::child`, by module index.
    pub child_outputs: HashMap<usize, std::rc::Rc<dyn std::any::Any>>,
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Runs `f` with the context; panics with a clear message outside `Design::build`.
pub(crate) fn with<R>(f: impl FnOnce(&mut Ctx) -> R) -> R {
    CTX.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut().expect(
            "rendergen: signals can only be built inside `Design::build` (no design is being elaborated)",
        );
        f(ctx)
    })
}

/// Installs a fresh context; returns false if one is already active (nested `Design::build`).
pub(crate) fn begin() -> bool {
    CTX.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_some() {
            return false;
        }
        *c = Some(Ctx {
            modules: Vec::new(),
            by_key: HashMap::new(),
            per_generator: HashMap::new(),
            stack: Vec::new(),
            errors: Vec::new(),
            next_uid: 0,
            child_outputs: HashMap::new(),
        });
        true
    })
}

/// Removes and returns the context.
pub(crate) fn end() -> Ctx {
    CTX.with(|c| c.borrow_mut().take().expect("context active"))
}

impl Ctx {
    /// The module under construction.
    pub fn top(&mut self) -> &mut ModState {
        self.stack
            .last_mut()
            .expect("a module is under construction")
    }

    /// Records an error in the current module.
    pub fn error(&mut self, kind: ErrorKind, loc: Loc, message: String) {
        let module = self
            .stack
            .last()
            .map(|s| s.def.name.clone())
            .unwrap_or_default();
        self.errors.push(ElabError {
            kind,
            message,
            module,
            loc,
        });
    }

    /// Appends a node to the current module.
    pub fn push(&mut self, op: Op, width: u32, loc: Loc) -> NodeId {
        let def = &mut self.top().def;
        def.nodes.push(Node {
            op,
            width,
            name: None,
            soft_name: None,
            loc,
        });
        (def.nodes.len() - 1) as NodeId
    }

    /// A zero constant, used to keep elaborating after an error.
    pub fn dummy(&mut self, width: u32, loc: Loc) -> NodeId {
        self.push(Op::Const(Bits::zero(width.max(1))), width.max(1), loc)
    }

    /// A readable description of a node for messages: its name, or its operation.
    pub fn describe(&mut self, id: NodeId) -> String {
        let node = &self.top().def.nodes[id as usize];
        match (&node.name, &node.op) {
            (Some(n), _) => format!("`{n}`"),
            (None, Op::Const(b)) => format!("constant {b}"),
            (None, op) => {
                let what = match op {
                    Op::Binary(b, ..) => format!("{b:?}"),
                    Op::Unary(u, _) => format!("{u:?}"),
                    Op::Mux { .. } => "mux".into(),
                    Op::Concat(_) => "concatenation".into(),
                    Op::Slice { .. } => "slice".into(),
                    Op::Extend { .. } => "extension".into(),
                    Op::Select { .. } => "select".into(),
                    Op::Lut { .. } => "lookup table".into(),
                    _ => "signal".into(),
                };
                format!(
                    "{what} ({} bits, made at {}:{})",
                    node.width,
                    node.loc.file(),
                    node.loc.line()
                )
            }
        }
    }

    /// Gives node `s` of the current module the soft name `name` (see `Node::soft_name`) unless
    /// it has a name already or is a port, constant or state element (which are named
    /// otherwise).
    pub fn soft_name(&mut self, s: crate::Sig, name: &str) {
        let top = self.top();
        if s.module != top.uid {
            return;
        }
        let full = if top.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}_{name}", top.prefix.join("_"))
        };
        let node = &mut top.def.nodes[s.node as usize];
        let fixed = matches!(
            node.op,
            Op::Input(_) | Op::Const(_) | Op::Reg(_) | Op::MemRead { .. } | Op::InstOut { .. }
        );
        if node.name.is_none() && node.soft_name.is_none() && !fixed {
            node.soft_name = Some(full);
        }
    }

    /// Claims a local name in the current module; returns a unique variant if taken.
    pub fn unique_local(&mut self, name: &str) -> String {
        let prefixed;
        let name = if self.top().prefix.is_empty() {
            name
        } else {
            prefixed = format!("{}_{name}", self.top().prefix.join("_"));
            &prefixed
        };
        let names = &mut self.top().local_names;
        match names.get_mut(name) {
            None => {
                names.insert(name.to_string(), 1);
                name.to_string()
            }
            Some(n) => {
                let unique = format!("{name}_{n}");
                *n += 1;
                unique
            }
        }
    }
}
