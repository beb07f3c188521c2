//! Memory widgets: RAMs with the read/write behaviour Yosys maps to block RAM.

pub mod ram;
