//! Synthetic designs for simulator and tool benchmarks (not part of the render engine).

use rendergen_hdl::{name_lets, Design, ElabErrors, Sig};
use std::ops::RangeInclusive;

/// Legal `width` of [`counter`].
pub const COUNTER_WIDTH: RangeInclusive<u64> = 1..=4096;
/// Legal `lanes` and `stages` of [`mac_mesh`].
pub const MESH_SIZE: RangeInclusive<u64> = 1..=256;

/// A free-running counter of `width` bits with enable: input `en`, output `value`.
#[name_lets]
pub fn counter(width: u32) -> Result<Design, ElabErrors> {
    Design::build_with_params("counter", &format!("width={width}"), |m| {
        if !m.check_param("width", width.into(), COUNTER_WIDTH) {
            return;
        }
        let en = m.input("en", 1);
        let count = m.reg("count", width).reset(0);
        count.next_when(en, count.q() + 1);
        m.output("value", count.q());
    })
}

/// A mesh of `lanes` × `stages` pipelined 16-bit multiply-add cells: each stage computes
/// `acc' = acc * coef + neighbour` (truncated to 16 bits) with coefficients from the inputs and
/// each lane mixing in its left neighbour, one register per cell. Output: XOR of the last stage.
/// With 48 × 48 (the catalogue default) it has over 13,000 netlist nodes.
#[name_lets]
pub fn mac_mesh(lanes: u32, stages: u32) -> Result<Design, ElabErrors> {
    Design::build_with_params("mac_mesh", &format!("lanes={lanes} stages={stages}"), |m| {
        if !(m.check_param("lanes", lanes.into(), MESH_SIZE)
            & m.check_param("stages", stages.into(), MESH_SIZE))
        {
            return;
        }
        let seeds: Vec<Sig> = (0..lanes).map(|i| m.input(&format!("x{i}"), 16)).collect();
        let coef: Vec<Sig> = (0..stages).map(|s| m.input(&format!("c{s}"), 16)).collect();
        let mut row = seeds;
        for (s, c) in coef.iter().enumerate() {
            let next: Vec<Sig> = (0..row.len())
                .map(|i| {
                    let left = row[(i + row.len() - 1) % row.len()];
                    let r = m.reg(&format!("cell_{s}_{i}"), 16).reset(0);
                    r.next(row[i] * *c + (left ^ (row[i] >> 3)));
                    r.q()
                })
                .collect();
            row = next;
        }
        if let Some(out) = row.into_iter().reduce(|a, b| a ^ b) {
            m.output("digest", out);
        }
    })
}
