//! ASTC_DP (texel datapath pipeline) against the reference decoder
//! (`rendergen_sim::models::astc::decode_texel`, itself bit-exact with astcenc): texels of
//! astcenc-compressed images, hand-built feature blocks, random and structured-random blocks at
//! all 14 footprints and three profiles, with random request gaps and response back-pressure
//! and an in-order scoreboard; throughput and latency; co-simulation; lint.

mod bench;
mod flow;
mod kernels;
mod vectors;
mod work;

use bench::{Bench, Traffic};
use rendergen_rtl::astc::dp::DpCfg;
use rendergen_sim::kit::seed_from_env_or;
use rendergen_sim::models::astc::{Footprint, Profile};

/// Random texels per footprint per profile in the default run.
const RANDOM_TEXELS: usize = 10_000;
/// Random texels per footprint per profile in the long (ignored) run.
const LONG_TEXELS: usize = 100_000;

pub(crate) const TRAFFIC: Traffic = Traffic {
    gap: 0.2,
    stall: 0.25,
};

/// Any footprint and profile per request, 16-bit tags: compiled to Rust with the
/// `rendergen-compiled` crate (`Bench::new`).
pub(crate) fn full_cfg() -> DpCfg {
    rendergen_compiled::astc_dp_tb_cfg()
}

/// Random and structured-random blocks, `n` texels per footprint per profile.
fn random_sweep(name: &str, default_seed: u64, profile: Profile, n: usize) {
    let seed = seed_from_env_or(default_seed);
    let mut bench = Bench::new(full_cfg());
    for fp in Footprint::ALL {
        let v = vectors::random(seed, fp, profile, n);
        bench.run(&format!("{name}_{fp}"), seed, &v, TRAFFIC);
    }
}

#[test]
fn random_ldr_linear() {
    random_sweep(
        "astc_dp_random_ldr_linear",
        0xA57C_D100,
        Profile::LdrLinear,
        RANDOM_TEXELS,
    );
}

#[test]
fn random_ldr_srgb() {
    random_sweep(
        "astc_dp_random_ldr_srgb",
        0xA57C_D200,
        Profile::LdrSrgb,
        RANDOM_TEXELS,
    );
}

#[test]
fn random_hdr() {
    random_sweep(
        "astc_dp_random_hdr",
        0xA57C_D300,
        Profile::Hdr,
        RANDOM_TEXELS,
    );
}

#[test]
#[ignore = "long: 100,000 random texels per footprint per profile (about 2 minutes)"]
fn random_long() {
    for (i, p) in Profile::ALL.into_iter().enumerate() {
        random_sweep(
            "astc_dp_random_long",
            0xA57C_D400 + i as u64,
            p,
            LONG_TEXELS,
        );
    }
}

#[test]
fn images_all_footprints_and_profiles() {
    let seed = seed_from_env_or(0xA57C_D500);
    let mut bench = Bench::new(full_cfg());
    for profile in Profile::ALL {
        for fp in Footprint::ALL {
            let v = vectors::image(fp, profile, "-thorough");
            bench.run(&format!("astc_dp_image_{fp}_{profile}"), seed, &v, TRAFFIC);
        }
    }
}

#[test]
fn features_all_footprints_and_profiles() {
    let seed = seed_from_env_or(0xA57C_D600);
    let mut bench = Bench::new(full_cfg());
    for fp in Footprint::ALL {
        for profile in Profile::ALL {
            let v = vectors::features(fp, profile);
            bench.run(
                &format!("astc_dp_features_{fp}_{profile}"),
                seed,
                &v,
                TRAFFIC,
            );
        }
    }
}
