//! Tables of the binary32 special-function units (`rendergen_rtl::fp::recip`,
//! `rendergen_rtl::fp::transc`): the seed values and polynomial coefficients of each
//! function, as data. They are part of the units' specification, shared by the RTL (its ROMs)
//! and the golden model (`rendergen_sim::models::fp32`) the way the opcode table is; each
//! side implements the arithmetic around them on its own.

pub mod recip;
pub mod transc;
