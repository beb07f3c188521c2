//! # rendergen-hdl: the hardware-construction core
//!
//! Hardware generators are plain Rust functions that receive a [`Module`] and build logic with
//! [`Sig`] handles; parameters are ordinary Rust values. Elaboration ([`Design::build`]) checks
//! the result strictly (widths, drivers, loops, ports, bundles) and reports every problem with the
//! line of your generator code. The resulting [`Design`] is a netlist IR that the simulator
//! (`rendergen-sim`) compiles and the Verilog emitter (`rendergen-gen`) prints.
//!
//! ```
//! use rendergen_hdl::Design;
//! // An 8-bit counter with enable.
//! let design = Design::build("counter", |m| {
//!     let en = m.input("en", 1);
//!     let count = m.reg("count", 8).reset(0);
//!     count.next_when(en, count.q() + 1);
//!     m.output("value", count.q());
//! })
//! .expect("elaborates");
//! assert_eq!(design.top().outputs[0].width, 8);
//! ```

extern crate self as rendergen_hdl;

pub mod bits;
pub mod bundle;
mod ctx;
pub mod error;
pub mod flatten;
pub mod hierarchy;
pub mod ir;
pub mod logic;
pub mod memory;
pub mod module;
pub mod naming;
mod param;
pub mod record;
pub mod sig;
pub mod stream;

pub use bits::Bits;
pub use bundle::{pack, unpack, Bundle};
pub use error::{ElabError, ElabErrors, ErrorKind};
pub use flatten::FlatNetlist;
pub use hierarchy::Instance;
pub use ir::Design;
pub use logic::{
    cat, cat_lsb_first, index_select, lowest_index, lowest_set, lut, lut_wide, onehot_mux, or_all,
    priority_select, round_robin_pick, select,
};
pub use memory::{clog2, Mem};
pub use module::{Module, Reg, Wire};
pub use param::powers_of_two_in;
pub use record::{HwEnum, Io, IoPlug, Leaves, PortPath};
pub use rendergen_hdl_derive::{name_lets, Bundle, HwEnum, Io};
pub use sig::{Operand, Sig};
pub use stream::{ReadyDriver, Stream};
