//! Port-level recording of a run ([`Trace`]), for replaying stimulus against another simulator
//! (co-simulation) or comparing two runs.

use super::PortInfo;
use rendergen_hdl::Bits;

/// Port-level record of a run: per cycle, the value of `rst` and of every input as applied
/// before the edge, and every output after settling (before the edge).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Top-level inputs, in port order (the order of `TraceCycle::inputs`).
    pub inputs: Vec<PortInfo>,
    /// Top-level outputs, in port order (the order of `TraceCycle::outputs`).
    pub outputs: Vec<PortInfo>,
    /// One entry per `step`, oldest first.
    pub cycles: Vec<TraceCycle>,
}

/// One recorded cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceCycle {
    /// Level of the synchronous reset during the cycle.
    pub reset: bool,
    /// Input values (one per `Trace::inputs`).
    pub inputs: Vec<Bits>,
    /// Settled output values (one per `Trace::outputs`).
    pub outputs: Vec<Bits>,
}

impl Trace {
    /// Index of the first cycle whose outputs differ from `other`'s, with the output's name, or
    /// `None` when both runs agree on every recorded cycle (and have the same length).
    pub fn first_difference(&self, other: &Trace) -> Option<(usize, String)> {
        for (c, (a, b)) in self.cycles.iter().zip(&other.cycles).enumerate() {
            for (i, (x, y)) in a.outputs.iter().zip(&b.outputs).enumerate() {
                if x != y {
                    let name = self.outputs.get(i).map(|p| p.name.clone());
                    return Some((c, name.unwrap_or_default()));
                }
            }
        }
        (self.cycles.len() != other.cycles.len())
            .then(|| (self.cycles.len().min(other.cycles.len()), "<length>".into()))
    }
}
