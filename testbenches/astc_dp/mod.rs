//! ASTC_DP (texel datapath pipeline) against the reference decoder
//! (`rendergen_sim::models::astc::decode_texel`, itself bit-exact with astcenc): texels of
//! astcenc-compressed images, hand-built feature blocks, random and structured-random blocks at
//! all 14 footprints and three profiles, with random request gaps and response back-pressure
//! and an in-order scoreboard; throughput and latency; co-simulation; lint.

mod bench;
mod vectors;

use bench::{Bench, Traffic};
use rendergen_rtl::astc::dp::DpCfg;
use rendergen_sim::kit::seed_from_env_or;
use rendergen_sim::models::astc::{Footprint, Profile};

#[test]
fn smoke_random_ldr() {
    let seed = seed_from_env_or(0xA57C_D900);
    let mut bench = Bench::new(DpCfg {
        tag_width: 16,
        ..DpCfg::default()
    });
    let v = vectors::random(seed, Footprint::ALL[0], Profile::LdrLinear, 2000);
    let t = std::time::Instant::now();
    let cycles = bench.run(
        "astc_dp_smoke",
        seed,
        &v,
        Traffic {
            gap: 0.1,
            stall: 0.1,
        },
    );
    eprintln!("{} vectors, {cycles} cycles, {:?}", v.len(), t.elapsed());
}

#[test]
fn sweep_all_quick() {
    let seed = seed_from_env_or(0xA57C_D901);
    let mut bench = Bench::new(DpCfg {
        tag_width: 16,
        ..DpCfg::default()
    });
    let mut v = Vec::new();
    for fp in Footprint::ALL {
        for p in Profile::ALL {
            v.extend(vectors::random(seed, fp, p, 3000));
        }
    }
    let kinds = v.iter().fold([0usize; 3], |mut k, x| {
        use rendergen_sim::models::astc::BlockKind;
        let fp = x.fp;
        match BlockKind::parse(x.block, fp) {
            BlockKind::VoidExtent { .. } => k[0] += 1,
            BlockKind::Illegal(_) => k[1] += 1,
            BlockKind::Normal(_) => k[2] += 1,
        }
        k
    });
    eprintln!("void/illegal/normal {kinds:?}");
    let t = std::time::Instant::now();
    let cycles = bench.run(
        "astc_dp_sweep",
        seed,
        &v,
        Traffic {
            gap: 0.1,
            stall: 0.1,
        },
    );
    eprintln!("{} vectors, {cycles} cycles, {:?}", v.len(), t.elapsed());
}
