//! Dispatch among cores and instances, and routing by tag (`pbru.md` §4.4, §4.6, §9.4 T-RR-1,
//! T-RR-2, T-RT-1, T-RT-2; D3).
#![allow(clippy::needless_range_loop)]

use super::{small_cfg, test_fn, to_words, Tb};
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_rtl::pbru::ports::{CREQ_PIPE, CRSP_PIPE};
use rendergen_sim::kit::{
    seed_from_env_or, ByTag, Rng, StreamSink, StreamSource, TbError, TestRun,
};

const GGX: u8 = 0x40;

/// T-RR-1: four cores keep a GGX request pending (two slots each, a new request as soon as a
/// slot's result returns): one issues per cycle, cores in round-robin order, each core once
/// every four cycles.
#[test]
fn cores_are_served_round_robin() {
    let cfg = small_cfg(4, 2, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    for c in 0..4 {
        for s in 0..2 {
            tb.send_creq(
                c,
                CREQ_PIPE,
                s,
                c as u64 * 2 + s,
                GGX,
                0,
                &[c as u32; 10],
                0,
            );
        }
    }
    let mut seen = [0usize; 4];
    for _ in 0..80 {
        tb.cycle();
        for c in 0..4 {
            let slots: Vec<u64> = tb.crsp[c].items()[seen[c]..]
                .iter()
                .map(|i| i[1].to_u64())
                .collect();
            for slot in slots {
                seen[c] += 1;
                let ray = c as u64 * 2 + slot;
                tb.send_creq(c, CREQ_PIPE, slot, ray, GGX, 0, &[c as u32; 10], 0);
            }
        }
    }
    // Who was granted, per cycle, from the results' order (one instance, fixed latency).
    let grants = tb.core_grants(0);
    assert!(
        grants.len() > 60,
        "one grant per cycle once full: {}",
        grants.len()
    );
    let first = grants[0];
    let steady: Vec<usize> = grants.iter().copied().filter(|t| *t >= first + 8).collect();
    for w in steady.windows(2) {
        assert_eq!(w[1], w[0] + 1, "a grant every cycle");
    }
    let served: Vec<usize> = (0..4).map(|c| tb.crsp[c].items().len()).collect();
    let (lo, hi) = (served.iter().min().unwrap(), served.iter().max().unwrap());
    assert!(hi - lo <= 1, "each core served equally often: {served:?}");
    tb.protocol().unwrap();
}

/// T-RR-1 exact order: all four cores' requests ready at once (held back by the SM), then
/// issued in cycles k, k+1, k+2, k+3 to cores 0, 1, 2, 3, and the next round in the same order.
#[test]
fn ready_requests_issue_in_core_order() {
    let cfg = small_cfg(4, 1, &[(PipeKind::Ggx, 1)]);
    let mut tb = Tb::new(&cfg);
    for _ in 0..3 {
        tb.send_sm(0, 0, GGX, 0, &[0; 10], 0);
    }
    for c in (0..4).rev() {
        tb.send_creq(c, CREQ_PIPE, 0, c as u64, GGX, 0, &[c as u32 + 1; 10], 0);
    }
    tb.run(10);
    assert_eq!(tb.core_grants(0), vec![3, 4, 5, 6]);
    for c in 0..4 {
        let items = tb.crsp[c].items();
        assert_eq!(items.len(), 1, "core {c}");
        assert_eq!(items[0][2].to_u64(), c as u64, "ray id");
        assert_eq!(
            to_words(&items[0][3], 4),
            test_fn(GGX, 0, &[c as u32 + 1; 10])
        );
    }
}

/// T-RR-2: two GGX instances take two core requests in the same cycle; with the SM on
/// instance 0, the lowest free instance (1) takes the core request.
#[test]
fn several_instances_lowest_free_first() {
    let cfg = small_cfg(2, 1, &[(PipeKind::Ggx, 2), (PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    tb.send_creq(0, CREQ_PIPE, 0, 0, GGX, 0, &[1; 10], 0);
    tb.send_creq(1, CREQ_PIPE, 0, 1, GGX, 0, &[2; 10], 0);
    tb.run(6);
    assert_eq!(tb.core_grants(0), vec![1], "instance 0 takes one");
    assert_eq!(
        tb.core_grants(1),
        vec![1],
        "instance 1 takes the other in the same cycle"
    );
    // One core request while the SM holds instance 0: instance 1 takes it at once.
    tb.send_creq(0, CREQ_PIPE, 0, 5, GGX, 0, &[3; 10], 0);
    tb.cycle();
    let t = tb.grants.len();
    tb.send_sm(0, 0, GGX, 0, &[0; 10], 1);
    tb.run(6);
    assert_eq!(tb.sm_grants(0), vec![t]);
    assert_eq!(tb.core_grants(1), vec![1, t]);
    assert_eq!(tb.core_grants(0), vec![1]);
    // A single request with both instances free goes to instance 0.
    tb.send_creq(1, CREQ_PIPE, 0, 6, GGX, 0, &[4; 10], 0);
    tb.run(6);
    assert_eq!(tb.core_grants(0).len(), 2);
    assert_eq!(tb.core_grants(1).len(), 2);
}

/// T-RT-1/2: random core and SM traffic on three instances, two SM ports, random gaps and
/// back-pressure: every result reaches exactly the (core, slot, ray) or SM port that asked,
/// with the right value; SM results never reach a core, core results never reach an SM port.
#[test]
fn results_are_routed_by_tag() {
    let seed = seed_from_env_or(0x7A6);
    let mut rng = Rng::new(seed);
    let mut cfg = small_cfg(
        3,
        2,
        &[
            (PipeKind::Ggx, 3),
            (PipeKind::Schlick, 1),
            (PipeKind::Ggx, 5),
        ],
    );
    cfg.sm_ports = 2;
    let mut tb = Tb::new(&cfg);
    for c in 0..3 {
        tb.crsp[c] = StreamSink::new(&tb.sim, &format!("core{c}_crsp"), seed + c as u64)
            .unwrap()
            .stall_prob(0.3);
        tb.creq[c] = StreamSource::new(&tb.sim, &format!("core{c}_creq"), seed + 9 + c as u64)
            .unwrap()
            .gap_prob(0.3);
    }
    for k in 0..2 {
        tb.sm_resp[k] = StreamSink::new(&tb.sim, &format!("sm{k}_resp"), seed + 5 + k as u64)
            .unwrap()
            .stall_prob(0.4);
    }
    let run = TestRun::start(&mut tb.sim, "pbru_routing", seed);
    let mut core_sb: ByTag<(usize, u64, u64), Vec<u32>> = ByTag::new();
    let mut sm_sb: ByTag<(usize, u64), (u64, Vec<u32>)> = ByTag::new();
    let ops = [(0x40u8, 0u64), (0x42, 1), (0x50, 2)];
    let mut ray = 0u64;
    let mut next_free = [[true; 2]; 3];
    let mut seen_core = [0usize; 3];
    let mut seen_sm = [0usize; 2];
    let mut sent = 0;
    let r: Result<(), TbError> = (|| {
        for cycle in 0..1500 {
            if cycle < 1200 {
                for c in 0..3 {
                    for s in 0..2 {
                        if next_free[c][s] && rng.chance(0.3) {
                            let (op, _) = ops[rng.below(3) as usize];
                            let args: Vec<u32> = (0..10).map(|_| rng.next_u64() as u32).collect();
                            let imm = rng.below(256) as u8;
                            ray += 1;
                            core_sb.expect((c, s as u64, ray & 0xFFFF), test_fn(op, imm, &args));
                            tb.send_creq(c, CREQ_PIPE, s as u64, ray & 0xFFFF, op, imm, &args, 0);
                            next_free[c][s] = false;
                        }
                    }
                }
                for k in 0..2 {
                    if tb.sm_req[k].pending() < 2 && rng.chance(0.25) {
                        let (op, pipe) = ops[rng.below(3) as usize];
                        let args: Vec<u32> = (0..10).map(|_| rng.next_u64() as u32).collect();
                        sent += 1;
                        let tag = sent & 0xFFFF;
                        sm_sb.expect((k, tag), (pipe, test_fn(op, 7, &args)));
                        tb.send_sm(k, pipe, op, 7, &args, tag);
                    }
                }
            }
            tb.cycle();
            for c in 0..3 {
                let items = tb.crsp[c].items();
                while seen_core[c] < items.len() {
                    let it = &items[seen_core[c]];
                    seen_core[c] += 1;
                    if it[0].to_u64() != CRSP_PIPE {
                        return Err(TbError::new(format!("core {c}: kind {}", it[0].to_u64())));
                    }
                    let slot = it[1].to_u64();
                    core_sb.observe((c, slot, it[2].to_u64()), to_words(&it[3], 4))?;
                    next_free[c][slot as usize] = true;
                }
            }
            for k in 0..2 {
                let items = tb.sm_resp[k].items();
                while seen_sm[k] < items.len() {
                    let it = &items[seen_sm[k]];
                    seen_sm[k] += 1;
                    sm_sb.observe((k, it[2].to_u64()), (it[0].to_u64(), to_words(&it[1], 4)))?;
                }
            }
        }
        core_sb.check_complete()?;
        sm_sb.check_complete()?;
        tb.protocol()
    })();
    run.check(&mut tb.sim, r);
}
