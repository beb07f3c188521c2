//! One lane's datapath: an instance of every unit of `rtl/fp` (FMA, misc, reciprocal,
//! transcendental, integer ALU) behind one always-enabled pipeline, and the selection of the
//! result that is due for write-back.

use super::decode::unit;
use crate::fp::fma::fp_fma_stages;
use crate::fp::int_alu::int_alu_stages;
use crate::fp::misc::fp_misc_stages;
use crate::fp::recip::recip;
use crate::fp::transc::{fp_transc, TranscIn};
use crate::fp::{FpReq, Stages};
use rendergen_hdl::{index_select, name_lets, Bundle, Module, Sig};

/// Operands of one lane and the unit valid flags.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneIn<T = Sig> {
    /// One valid flag per unit (5 bits, bit = unit code of [`unit`](mod@super::decode::unit)).
    pub valid: T,
    /// The unit's operation select (5 bits).
    pub uop: T,
    /// Operand a (32 bits).
    pub a: T,
    /// Operand b (32 bits).
    pub b: T,
    /// Operand c (32 bits).
    pub c: T,
    /// Unit whose result is written back this cycle (3 bits).
    pub wb_unit: T,
}

/// The result due for write-back.
#[derive(Bundle, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneOut<T = Sig> {
    /// The 32-bit result of unit `wb_unit`.
    pub r: T,
}

/// The lane datapath (a child module `lane_<i>` of the core). Each unit is a fixed pipeline
/// loaded every clock (the core books the write-back cycle at issue, so nothing stalls);
/// latencies in stage registers are [`super::decode::unit_stages`].
#[name_lets]
pub fn lane_exec(m: &mut Module, _cfg: &(), i: LaneIn) -> LaneOut {
    let one = m.lit(1, 1);
    let tag = m.lit(0, 1);
    let mut st_int = Stages::new(one, i.valid.bit(unit::INT as u32));
    let int = int_alu_stages(
        m,
        &mut st_int,
        FpReq {
            a: i.a,
            b: Some(i.b),
            c: Some(i.c),
            op: Some(i.uop),
            tag,
        },
    );
    let mut st_misc = Stages::new(one, i.valid.bit(unit::MISC as u32));
    let misc = fp_misc_stages(
        m,
        &mut st_misc,
        FpReq {
            a: i.a,
            b: Some(i.b),
            c: None,
            op: Some(i.uop),
            tag,
        },
    );
    let mut st_fma = Stages::new(one, i.valid.bit(unit::FMA as u32));
    let fma = fp_fma_stages(
        m,
        &mut st_fma,
        FpReq {
            a: i.a,
            b: Some(i.b),
            c: Some(i.c),
            op: Some(i.uop.bits(1, 0)),
            tag,
        },
    );
    let mut st_recip = Stages::new(one, i.valid.bit(unit::RECIP as u32));
    let rcp = recip(m, &mut st_recip, i.a, i.uop.bits(1, 0), tag);
    let mut st_transc = Stages::new(one, i.valid.bit(unit::TRANSC as u32));
    let transc = fp_transc(
        m,
        &mut st_transc,
        TranscIn {
            op: i.uop.bits(1, 0),
            a: i.a,
        },
    );
    let r = index_select(
        i.wb_unit,
        &[int.r, misc.r, fma.r, rcp.r, transc, transc, transc, transc],
    );
    LaneOut { r }
}
