//! The integer kernels of ASTC_A (`rendergen_rtl::astc::a::arith`), simulated on their own and
//! compared with plain Rust arithmetic: exhaustively where the input space is small.

use rendergen_hdl::{Design, Module};
use rendergen_rtl::astc::a::arith::{
    capped_log2, div_by_reciprocal, isqrt_steps, long_div, SqrtState,
};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::texture_address::isqrt;
use rendergen_sim::Simulator;

/// Long division split after bit 9, as the pipeline may split it across a register, and the
/// reciprocal division.
fn divider(m: &mut Module) {
    let x = m.input("x", 15);
    let d = m.input("d", 4);
    let zero = m.lit(0, 4);
    let hi = long_div(x, d, 14, 9, zero);
    let lo = long_div(x, d, 8, 0, hi.rem);
    m.output("quot", rendergen_hdl::cat(&[hi.quot, lo.quot]));
    m.output("rem", lo.rem);
    m.output("nonzero", rendergen_hdl::cat(&[hi.nonzero, lo.nonzero]));
    let (quot, rem) = div_by_reciprocal(x, d);
    m.output("recip_quot", quot);
    m.output("recip_rem", rem);
}

#[test]
fn divisions_are_exact_for_every_dividend_and_divisor() {
    let mut sim = Simulator::new(&Design::build("div", divider).unwrap()).unwrap();
    let (x, d) = (sim.input("x").unwrap(), sim.input("d").unwrap());
    let out = |name: &str| sim.output(name).unwrap();
    let (quot, rem, nz) = (out("quot"), out("rem"), out("nonzero"));
    let (recip_quot, recip_rem) = (out("recip_quot"), out("recip_rem"));
    for dv in 1..16u64 {
        // (0 is not a divisor of either kernel; the pipeline maps it to 1 first.)
        sim.poke(d, dv);
        for xv in 0..1u64 << 15 {
            sim.poke(x, xv);
            let (q, r) = (sim.peek(quot), sim.peek(rem));
            assert_eq!((q, r), (xv / dv, xv % dv), "{xv} / {dv}");
            let (q, r) = (sim.peek(recip_quot), sim.peek(recip_rem));
            assert_eq!((q, r), (xv / dv, xv % dv), "{xv} / {dv} by reciprocal");
            let flags = (0..15).fold(0, |f, b| f | (((xv >> b) % dv != 0) as u64) << b);
            assert_eq!(sim.peek(nz), flags, "remainder flags of {xv} / {dv}");
        }
    }
}

/// Square root of a 30-bit number split after root bit 8, and the capped log2 of a 30-bit value.
fn root_and_log(m: &mut Module) {
    let n = m.input("n", 30);
    let cap = m.input("cap", 4);
    let start = SqrtState::start(m);
    let upper = isqrt_steps(n, 14, 8, start);
    let root = isqrt_steps(n, 7, 0, upper).root;
    m.output("root", root.bits(14, 0));
    let log = capped_log2(n, cap, 14);
    m.output("log", log);
}

#[test]
fn square_root_and_capped_log2_are_exact() {
    let d = Design::build("root", root_and_log).unwrap();
    let mut sim = Simulator::new(&d).unwrap();
    let (n, cap) = (sim.input("n").unwrap(), sim.input("cap").unwrap());
    let (root, log) = (sim.output("root").unwrap(), sim.output("log").unwrap());
    let mut rng = Rng::new(3);
    let mut values: Vec<u64> = (0..100_000).map(|_| rng.bits_u64(30)).collect();
    for _ in 0..1000 {
        let bits = rng.below(31);
        values.push(rng.below(1 << bits));
    }
    for r in (0..1u64 << 15).step_by(7).chain([32767]) {
        values.extend(
            [r * r, (r * r).saturating_sub(1), r * r + 2 * r].map(|v| v.min((1 << 30) - 1)),
        );
    }
    for v in values {
        let c = rng.below(16);
        sim.poke(n, v);
        sim.poke(cap, c);
        assert_eq!(sim.peek(root), isqrt(v), "isqrt({v})");
        let floor_log2 = if v <= 1 {
            0
        } else {
            63 - v.leading_zeros() as u64
        };
        assert_eq!(
            sim.peek(log),
            floor_log2.min(c).min(14),
            "log2({v}) capped at {c}"
        );
    }
}
