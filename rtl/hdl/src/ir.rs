//! The netlist IR: a design is a list of module definitions (children before parents); a module is
//! an arena of nodes, each a primitive operation with an explicit width.
//!
//! Invariants established by the builder (and relied on by the simulator and the emitter):
//! * operands of `Binary` arithmetic, bitwise and comparison ops have equal widths; the result has
//!   the operand width, or 1 bit for comparisons; shift amounts may have any width;
//! * `Mux` arms have the node's width and `sel` is 1 bit;
//! * `Select` cases and the default have the node's width;
//! * `Wire` nodes are driven exactly once (checked at elaboration);
//! * a module's combinational graph is acyclic once hierarchy is flattened.

use crate::bits::Bits;
use std::panic::Location;

/// Index of a node in its module's arena.
pub type NodeId = u32;

/// Source location of the user's generator code that created something.
pub type Loc = &'static Location<'static>;

/// One-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Bitwise complement.
    Not,
    /// Two's complement negation.
    Neg,
    /// AND of all bits (1-bit result).
    RedAnd,
    /// OR of all bits (1-bit result).
    RedOr,
    /// XOR of all bits (1-bit result).
    RedXor,
}

/// Two-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Wrapping addition.
    Add,
    /// Wrapping subtraction.
    Sub,
    /// Product truncated to the operand width (operands were extended by the builder).
    Mul,
    /// Bitwise AND.
    And,
    /// Bitwise OR.
    Or,
    /// Bitwise XOR.
    Xor,
    /// Logical shift left by an unsigned amount (any width).
    Shl,
    /// Logical shift right by an unsigned amount.
    Shr,
    /// Arithmetic shift right by an unsigned amount.
    Sra,
    /// Equality (1-bit result).
    Eq,
    /// Inequality (1-bit result).
    Ne,
    /// Unsigned less-than.
    Lt,
    /// Unsigned less-or-equal.
    Le,
    /// Signed less-than.
    SLt,
    /// Signed less-or-equal.
    SLe,
}

impl Op {
    /// True for operations whose value depends only on their operands (no state, no port, no
    /// driver to come), which elaboration shares when built twice with the same operands.
    pub fn is_pure(&self) -> bool {
        !matches!(
            self,
            Op::Input(_) | Op::Wire(_) | Op::Reg(_) | Op::MemRead { .. } | Op::InstOut { .. }
        )
    }
}

impl BinOp {
    /// True for comparisons (1-bit result).
    pub fn is_compare(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::SLt | BinOp::SLe
        )
    }
    /// True for shifts (amount of any width).
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::Shl | BinOp::Shr | BinOp::Sra)
    }
}

/// What a node computes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Module input port `index`.
    Input(u32),
    /// Constant.
    Const(Bits),
    /// Named wire, driven later by exactly one node (`None` while undriven).
    Wire(Option<NodeId>),
    /// Register output; its description is `regs[index]`.
    Reg(u32),
    /// Read data of memory `mem`, read port `port`.
    MemRead {
        /// Memory index in the module.
        mem: u32,
        /// Read port index.
        port: u32,
    },
    /// Output `port` of instance `inst`.
    InstOut {
        /// Instance index in the module.
        inst: u32,
        /// Output port index of the instantiated module.
        port: u32,
    },
    /// One-operand operation.
    Unary(UnOp, NodeId),
    /// Two-operand operation.
    Binary(BinOp, NodeId, NodeId),
    /// `sel ? on_true : on_false`.
    Mux {
        /// 1-bit select.
        sel: NodeId,
        /// Value when `sel` is 1.
        on_true: NodeId,
        /// Value when `sel` is 0.
        on_false: NodeId,
    },
    /// Concatenation, most significant part first (Verilog `{a, b}` order).
    Concat(Vec<NodeId>),
    /// `width` bits of `a` starting at bit `lo`.
    Slice {
        /// Source.
        a: NodeId,
        /// Lowest bit taken.
        lo: u32,
    },
    /// Zero or sign extension of `a` to the node width.
    Extend {
        /// Source.
        a: NodeId,
        /// Sign-extend when true.
        signed: bool,
    },
    /// `cases[index]`, or `default` when `index >= cases.len()`.
    Select {
        /// Index (unsigned).
        index: NodeId,
        /// Values, all of the node width.
        cases: Vec<NodeId>,
        /// Value for out-of-range indices.
        default: NodeId,
    },
    /// Lookup table built from constants: `table[index]`, 0 beyond the table.
    Lut {
        /// Index (unsigned).
        index: NodeId,
        /// Table contents, each of the node width.
        table: Vec<Bits>,
    },
}

/// A node of the arena.
#[derive(Clone, Debug)]
pub struct Node {
    /// Operation.
    pub op: Op,
    /// Result width in bits (≥ 1).
    pub width: u32,
    /// Name given by the designer (wires, registers, ports and `named` signals).
    pub name: Option<String>,
    /// Name of the Rust variable the value was first bound to (`let x = …` in a generator
    /// marked [`macro@crate::name_lets`]), with the enclosing blocks' prefix; used where `name`
    /// is `None`. Never unique by itself: users make it unique within their own namespace.
    pub soft_name: Option<String>,
    /// Where the user's code created it.
    pub loc: Loc,
}

/// A port of a module.
#[derive(Clone, Debug)]
pub struct Port {
    /// Name as written in Rust (the emitter adds `_i`/`_o`).
    pub name: String,
    /// Width in bits.
    pub width: u32,
    /// For inputs the `Input` node; for outputs the node that drives it.
    pub node: NodeId,
    /// Where it was declared.
    pub loc: Loc,
}

/// A register.
#[derive(Clone, Debug)]
pub struct Reg {
    /// The `Reg` node holding the current value (the `_q`).
    pub node: NodeId,
    /// Next value (`None` until driven).
    pub next: Option<NodeId>,
    /// Optional 1-bit load enable; the register holds when it is 0.
    pub enable: Option<NodeId>,
    /// Value loaded by synchronous reset (`rst` high); `None` for a datapath register without reset.
    pub reset: Option<Bits>,
    /// Where the next value was driven (for multiple-driver messages).
    pub next_loc: Option<Loc>,
}

/// A write port of a memory: at the clock edge, if `enable`, `mem[addr] <= data`.
#[derive(Clone, Debug)]
pub struct WritePort {
    /// 1-bit write enable.
    pub enable: NodeId,
    /// Address.
    pub addr: NodeId,
    /// Data, of the memory width.
    pub data: NodeId,
}

/// A read port of a memory.
#[derive(Clone, Debug)]
pub struct ReadPort {
    /// Address.
    pub addr: NodeId,
    /// Synchronous ports register the data at the clock edge when `enable` (read-before-write);
    /// combinational ports read the current contents.
    pub sync: bool,
    /// Read enable of a synchronous port (`None`: always).
    pub enable: Option<NodeId>,
    /// The `MemRead` node.
    pub node: NodeId,
}

/// A memory (RAM or ROM) with any number of ports.
#[derive(Clone, Debug)]
pub struct Memory {
    /// Name.
    pub name: String,
    /// Word width.
    pub width: u32,
    /// Number of words.
    pub depth: u32,
    /// Initial contents (index 0 first); missing words are zero.
    pub init: Option<Vec<Bits>>,
    /// Write ports; when two write the same word in one cycle the later port wins.
    pub writes: Vec<WritePort>,
    /// Read ports.
    pub reads: Vec<ReadPort>,
    /// The designer allows hardware to do anything on a collision between two ports (one
    /// port writing a word another port reads or writes in the same cycle): the emitted
    /// Verilog carries `(* no_rw_check *)` so Yosys may map the memory to true dual-port block
    /// RAM. The simulator still gives the deterministic result (read-first, later port wins),
    /// which is one of the allowed ones. See [`crate::Mem::collisions_undefined`].
    pub collisions_undefined: bool,
    /// Where it was declared.
    pub loc: Loc,
}

/// An instance of another module of the design.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Instance name.
    pub name: String,
    /// Index of the instantiated module in `Design::modules`.
    pub module: usize,
    /// Driver of each input port of the child (`None` until connected).
    pub inputs: Vec<Option<NodeId>>,
    /// Where it was instantiated.
    pub loc: Loc,
}

/// One module definition: a distinct generator with distinct parameters.
#[derive(Clone, Debug)]
pub struct ModuleDef {
    /// Verilog module name (unique in the design).
    pub name: String,
    /// Generator name and parameters, for the emitted header comment.
    pub params: String,
    /// Node arena.
    pub nodes: Vec<Node>,
    /// Input ports in declaration order.
    pub inputs: Vec<Port>,
    /// Output ports in declaration order.
    pub outputs: Vec<Port>,
    /// Registers.
    pub regs: Vec<Reg>,
    /// Memories.
    pub mems: Vec<Memory>,
    /// Child instances.
    pub insts: Vec<Instance>,
    /// Named constants (`Wire` nodes driven by a constant) printed as `localparam`s: the
    /// values of hardware enums ([`crate::HwEnum`]).
    pub localparams: Vec<NodeId>,
    /// Registers holding a hardware enum ([`crate::Module::enum_reg`]): the register's node and
    /// the variant names by code (waveforms show the names beside the value).
    pub enum_regs: Vec<(NodeId, &'static [&'static str])>,
}

impl ModuleDef {
    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// Index of the input called `name`.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| p.name == name)
    }

    /// Index of the output called `name`.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|p| p.name == name)
    }

    /// Nodes read by node `id` (combinational fan-in only: a register's or synchronous read
    /// port's inputs are not fan-in of its output).
    pub fn comb_operands(&self, id: NodeId, f: impl FnMut(NodeId)) {
        comb_operands_of(&self.nodes[id as usize].op, &self.mems, f)
    }
}

/// Combinational fan-in of an operation (see [`ModuleDef::comb_operands`]).
pub fn comb_operands_of(op: &Op, mems: &[Memory], mut f: impl FnMut(NodeId)) {
    match op {
        Op::Input(_) | Op::Const(_) | Op::Reg(_) | Op::InstOut { .. } => {}
        Op::MemRead { mem, port } => {
            let rp = &mems[*mem as usize].reads[*port as usize];
            if !rp.sync {
                f(rp.addr)
            }
        }
        Op::Wire(d) => {
            if let Some(d) = d {
                f(*d)
            }
        }
        Op::Unary(_, a) | Op::Slice { a, .. } | Op::Extend { a, .. } => f(*a),
        Op::Lut { index, .. } => f(*index),
        Op::Binary(_, a, b) => {
            f(*a);
            f(*b)
        }
        Op::Mux {
            sel,
            on_true,
            on_false,
        } => {
            f(*sel);
            f(*on_true);
            f(*on_false)
        }
        Op::Concat(parts) => parts.iter().for_each(|p| f(*p)),
        Op::Select {
            index,
            cases,
            default,
        } => {
            f(*index);
            cases.iter().for_each(|c| f(*c));
            f(*default)
        }
    }
}

/// A complete elaborated design.
#[derive(Clone, Debug)]
pub struct Design {
    /// Module definitions, every child before its parents; the top is last.
    pub modules: Vec<ModuleDef>,
}

impl Design {
    /// The top module.
    pub fn top(&self) -> &ModuleDef {
        self.modules.last().expect("a design has a top module")
    }

    /// Total node count over the flattened hierarchy.
    pub fn flat_node_count(&self) -> usize {
        fn count(d: &Design, m: usize) -> usize {
            let def = &d.modules[m];
            def.nodes.len() + def.insts.iter().map(|i| count(d, i.module)).sum::<usize>()
        }
        count(self, self.modules.len() - 1)
    }
}
