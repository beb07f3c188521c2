//! One generator called inline and as a child module (`Module::child`) simulates identically:
//! the ASTC_A pipeline, and the PBRU's L0 cache, each built both ways and driven with the same
//! seeded random values on every input for thousands of cycles; every output is compared on
//! every cycle. The child version must also be its own module in the design.

use rendergen_hdl::{Design, Module};
use rendergen_rtl::astc::a::{astc_a, AddrReq, AstcACfg};
use rendergen_rtl::pbru::cache::l0_cache;
use rendergen_rtl::pbru::ports::{CacheFill, CacheIn, PbruCfg};
use rendergen_sim::kit::Rng;
use rendergen_sim::Simulator;

/// Drives both designs with the same random inputs for `cycles` and compares every output.
fn same_outputs(inline: &Design, child: &Design, cycles: u64, seed: u64) {
    let mut a = Simulator::new(inline).expect("inline design simulates");
    let mut b = Simulator::new(child).expect("child design simulates");
    assert_eq!(a.inputs().len(), b.inputs().len());
    let ins: Vec<_> = (0..a.inputs().len())
        .map(|i| (a.input_at(i), b.input_at(i), a.inputs()[i].width))
        .collect();
    let outs: Vec<_> = (0..a.outputs().len())
        .map(|i| (a.output_at(i), b.output_at(i), a.outputs()[i].name.clone()))
        .collect();
    assert_eq!(outs.len(), b.outputs().len());
    a.reset(2);
    b.reset(2);
    let mut rng = Rng::new(seed);
    for cycle in 0..cycles {
        for &(pa, pb, width) in &ins {
            let v = rng.bits(width);
            a.poke_bits(pa, &v);
            b.poke_bits(pb, &v);
        }
        for (oa, ob, name) in &outs {
            assert_eq!(
                a.peek_bits(*oa),
                b.peek_bits(*ob),
                "output `{name}` differs at cycle {cycle} (seed {seed:#x})"
            );
        }
        a.step();
        b.step();
    }
}

#[test]
fn astc_a_inline_and_as_a_child_simulate_identically() {
    let cfg = AstcACfg::default();
    let build = |as_child: bool| {
        Design::build("astc_a_wrap", |m: &mut Module| {
            let req = m.input_stream::<AddrReq>("req", &cfg.request_shape());
            let resp = if as_child {
                m.child("unit", &cfg, req, astc_a)
            } else {
                astc_a(m, &cfg, req)
            };
            m.output_stream("resp", resp);
        })
        .expect("elaborates")
    };
    let (inline, child) = (build(false), build(true));
    assert_eq!(inline.modules.len(), 1);
    assert_eq!(child.modules.len(), 2, "the child is its own module");
    assert_eq!(child.top().insts[0].name, "unit");
    same_outputs(&inline, &child, 3000, 0x5EED);
}

#[test]
fn l0_cache_inline_and_as_a_child_simulate_identically() {
    let ccfg = PbruCfg::default().tcache_cfg();
    let build = |as_child: bool| {
        Design::build("cache_wrap", |m: &mut Module| {
            let i = CacheIn {
                // 5-bit keys over 16 lines: lookups hit often.
                lookup: vec![m.input("key0", 5).zext(32), m.input("key1", 5).zext(32)],
                fill: CacheFill {
                    valid: m.input("fill_valid", 1),
                    key: m.input("fill_key", 5).zext(32),
                    data: m.input("fill_data", 128),
                },
            };
            let answers = if as_child {
                m.child("cache", &ccfg, i, l0_cache)
            } else {
                l0_cache(m, &ccfg, i)
            };
            for (k, a) in answers.into_iter().enumerate() {
                m.output(&format!("hit{k}"), a.hit);
                m.output(&format!("data{k}"), a.data);
            }
        })
        .expect("elaborates")
    };
    let (inline, child) = (build(false), build(true));
    assert_eq!(child.modules.len(), 2);
    same_outputs(&inline, &child, 3000, 0xCAC4E);
}
