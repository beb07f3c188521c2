//! The emitted Verilog of the scheduler shell agrees with the Rust simulation, and lints clean.

use super::{small_cfg, words, Tb};
use rendergen_gen::cosim::cosim_both;
use rendergen_hdl::Bits;
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_rtl::pbru::ports::{PbruCfg, CREQ_IFETCH, CREQ_PIPE};
use rendergen_sim::kit::Rng;

/// The smallest interesting configuration: 2 cores × 2 slots, two instances, one SM port.
fn tiny() -> PbruCfg {
    let mut cfg = small_cfg(2, 2, &[(PipeKind::Ggx, 2), (PipeKind::Ggx, 1)]);
    cfg.icache_chunks = 2;
    cfg.tcache_blocks = 2;
    cfg
}

/// A short recorded run (SM and core traffic, an L1 fetch, a hit, a ray in and out) replayed
/// through iverilog and Verilator, every output compared on every cycle.
#[test]
fn shell_cosimulation_in_iverilog_and_verilator() {
    let cfg = tiny();
    let design = Tb::design(&cfg);
    let mut tb = Tb::with_design(&cfg, &design, true);
    let mut rng = Rng::new(0xC051);
    tb.send_creq(0, CREQ_IFETCH, 0, 1, 0, 0, &[], 0x80);
    for t in 0..60 {
        if t % 3 == 0 {
            let args: Vec<u32> = (0..10).map(|_| rng.next_u64() as u32).collect();
            tb.send_creq((t / 3) % 2, CREQ_PIPE, 1, t as u64, 0x40, t as u8, &args, 0);
        }
        if rng.chance(0.3) {
            tb.send_sm(0, rng.below(2), 0x50, 1, &[t as u32; 10], t as u64);
        }
        if t == 10 {
            let r = tb.l1_req.items_u64()[0].clone();
            tb.l1_resp
                .send_bits(vec![
                    Bits::from_u64(r[2], 8),
                    Bits::from_u64(0, 1),
                    words(&[7; 8], 256),
                ])
                .unwrap();
        }
        if t == 20 {
            tb.send_creq(1, CREQ_IFETCH, 0, 2, 0, 0, &[], 0x80);
            let ray = vec![
                Bits::from_u64(9, 16),
                Bits::from_u64(0x200, 32),
                Bits::zero(16),
                Bits::from_u64(2, 3),
                words(&[1, 2, 0, 0], 128),
                Bits::from_u64(1, 1),
                Bits::from_u64(0, 1),
                Bits::zero(256),
            ];
            tb.ray_in[0].send_bits(ray).unwrap();
            let out = vec![
                Bits::from_u64(9, 16),
                Bits::from_u64(0x200, 32),
                Bits::from_u64(3, 16),
                Bits::from_u64(1, 3),
                words(&[5, 0, 0, 0], 128),
                Bits::from_u64(1, 1),
                Bits::zero(3),
            ];
            tb.done[1].send_bits(out).unwrap();
        }
        tb.cycle();
    }
    assert!(tb.crsp[1].items().len() >= 2, "traffic reached the cores");
    let trace = tb.sim.take_trace();
    cosim_both(&design, &trace).unwrap_or_else(|e| panic!("{e}"));
}
