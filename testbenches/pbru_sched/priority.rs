//! SM priority per instance (`pbru.md` §4.5, §9.4 T-PRIO-1, 2, 4, 6, 7; D3).

use super::{small_cfg, test_fn, to_words, Tb};
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_rtl::pbru::ports::CREQ_PIPE;
use rendergen_sim::kit::{seed_from_env_or, TbError, TestRun};

const GGX: u8 = 0x40;
const SHEEN: u8 = 0x43;

/// A core request pending in cycle 1 (it transfers in cycle 0) and `k` SM requests to the same
/// instance in cycles 1..=k: returns the cycles of the SM grants and of the core grant.
fn collide(k: usize, block: u32) -> (Tb, Vec<usize>, Vec<usize>) {
    let mut cfg = small_cfg(1, 1, &[(PipeKind::Ggx, 3)]);
    cfg.sm_block_cycles = block;
    let mut tb = Tb::new(&cfg);
    tb.send_creq(0, CREQ_PIPE, 0, 7, GGX, 0, &[1; 10], 0);
    tb.cycle();
    for i in 0..k {
        tb.send_sm(0, 0, GGX, 0, &[i as u32; 10], 100 + i as u16 as u64);
    }
    tb.run(k + 12);
    let (sm, core) = (tb.sm_grants(0), tb.core_grants(0));
    (tb, sm, core)
}

/// T-PRIO-1: SM and core request the same instance in the same cycle: the SM request enters
/// first, the core request in the next SM-free cycle; the SM's result comes out first.
#[test]
fn sm_wins_the_same_cycle_and_the_core_goes_next() {
    let (mut tb, sm, core) = collide(1, 1);
    assert_eq!(
        sm,
        vec![1],
        "the SM request enters in the cycle it is presented"
    );
    assert_eq!(
        core,
        vec![2],
        "the core request enters in the next SM-free cycle"
    );
    let sm_out = tb.sm_resp[0].items_u64();
    let core_out = tb.crsp[0].items().to_vec();
    assert_eq!(sm_out.len(), 1);
    assert_eq!(core_out.len(), 1);
    let expect_sm = test_fn(GGX, 0, &[0; 10]);
    assert_eq!(to_words(&tb.sm_resp[0].items()[0][1], 4), expect_sm);
    assert_eq!(sm_out[0][2], 100, "SM tag returned");
    assert_eq!(to_words(&core_out[0][3], 4), test_fn(GGX, 0, &[1; 10]));
    tb.protocol().unwrap();
}

/// T-PRIO-2: K back-to-back SM cycles delay the waiting core request exactly K cycles.
#[test]
fn k_back_to_back_sm_cycles_delay_the_core_exactly_k() {
    for k in 0..=20 {
        let (mut tb, sm, core) = collide(k, 1);
        assert_eq!(
            sm,
            (1..=k).collect::<Vec<_>>(),
            "K = {k}: SM requests enter back to back"
        );
        assert_eq!(
            core,
            vec![1 + k],
            "K = {k}: the core request waits exactly K cycles"
        );
        tb.protocol().unwrap();
    }
}

/// T-PRIO-6: with SM_BLOCK_CYCLES = 2 (and 3) the core stays blocked 1 (2) more cycles.
#[test]
fn sm_block_cycles_extend_the_window() {
    for block in [2u32, 3] {
        for k in [1usize, 4] {
            let (_, sm, core) = collide(k, block);
            assert_eq!(sm.len(), k);
            assert_eq!(core, vec![k + block as usize], "block {block}, K {k}");
        }
    }
}

/// T-PRIO-4: an SM request on one instance does not block a core request on another.
#[test]
fn sm_on_one_instance_does_not_block_another() {
    let cfg = small_cfg(1, 1, &[(PipeKind::Ggx, 3), (PipeKind::Sheen, 2)]);
    let mut tb = Tb::new(&cfg);
    tb.send_creq(0, CREQ_PIPE, 0, 3, GGX, 0, &[2; 10], 0);
    tb.cycle();
    for _ in 0..5 {
        tb.send_sm(0, 1, SHEEN, 0, &[5; 10], 9);
    }
    tb.run(10);
    assert_eq!(tb.sm_grants(1), vec![1, 2, 3, 4, 5]);
    assert_eq!(
        tb.core_grants(0),
        vec![1],
        "GGX takes the core request while the SM uses sheen"
    );
    assert_eq!(tb.crsp[0].items().len(), 1);
    assert_eq!(tb.sm_resp[0].items().len(), 5);
}

/// T-PRIO-7: two SM ports on one instance in the same cycle are ordered round-robin by the
/// SM-side arbiter; both go before the waiting core request, and each result returns to its
/// own port with its own tag; random SM traffic on a second instance leaves the first alone.
#[test]
fn two_sm_ports_are_ordered_and_answered_separately() {
    let seed = seed_from_env_or(0x5C4ED);
    let mut cfg = small_cfg(2, 1, &[(PipeKind::Ggx, 2)]);
    cfg.sm_ports = 2;
    let mut tb = Tb::new(&cfg);
    let run = TestRun::start(&mut tb.sim, "pbru_two_sm_ports", seed);
    tb.send_creq(0, CREQ_PIPE, 0, 1, GGX, 0, &[3; 10], 0);
    tb.cycle();
    tb.send_sm(0, 0, GGX, 1, &[10; 10], 0xA0);
    tb.send_sm(1, 0, GGX, 2, &[20; 10], 0xB0);
    tb.send_sm(0, 0, GGX, 3, &[30; 10], 0xA1);
    tb.run(12);
    let r: Result<(), TbError> = (|| {
        let sm = tb.sm_grants(0);
        if sm != vec![1, 2, 3] {
            return Err(TbError::new(format!("SM grants {sm:?}")));
        }
        if tb.core_grants(0) != vec![4] {
            return Err(TbError::new(format!("core grants {:?}", tb.core_grants(0))));
        }
        let p0: Vec<u64> = tb.sm_resp[0].items_u64().iter().map(|i| i[2]).collect();
        let p1: Vec<u64> = tb.sm_resp[1].items_u64().iter().map(|i| i[2]).collect();
        if p0 != vec![0xA0, 0xA1] || p1 != vec![0xB0] {
            return Err(TbError::new(format!(
                "port 0 got {p0:x?}, port 1 got {p1:x?}"
            )));
        }
        let w = to_words(&tb.sm_resp[1].items()[0][1], 4);
        if w != test_fn(GGX, 2, &[20; 10]) {
            return Err(TbError::new(format!("port 1 result {w:x?}")));
        }
        tb.protocol()
    })();
    run.check(&mut tb.sim, r);
}

/// T-PRIO-1 and T-PRIO-2 on every real shading pipeline (issue 11 §2): a core request pending
/// while three SM requests arrive back to back at the same instance enters exactly three
/// cycles late; every result (SM and core) is the golden model's
/// (`rendergen_sim::models::pbru::pipes::shade`).
#[test]
fn sm_priority_holds_on_every_real_shading_pipeline() {
    use rendergen_rtl::pbru::ports::isa::Opcode;
    use rendergen_sim::models::pbru::pipes::shade;
    let one = 0x1_0000u32;
    // Unit vectors N = z, V and L at 45°, roughness 0.5; ξ and F0/F90 words in range.
    let base = |i: u32| -> Vec<u32> {
        vec![
            0,
            0,
            one,
            0,
            0xB505,
            0xB505,
            0xB505 - i,
            0,
            0xB505 + i,
            one / 2,
        ]
    };
    let ops = [
        (PipeKind::Ggx, Opcode::Ggx),
        (PipeKind::Ggx, Opcode::GgxDir),
        (PipeKind::OrenNayar, Opcode::OrenNayar),
        (PipeKind::OrenNayar, Opcode::OrenNayarDir),
        (PipeKind::Schlick, Opcode::Schlick),
        (PipeKind::Sheen, Opcode::Sheen),
        (PipeKind::Subsurface, Opcode::Subsurface),
        (PipeKind::Cel, Opcode::Cel),
    ];
    for (kind, op) in ops {
        let mut cfg = small_cfg(1, 1, &[(kind, 1)]);
        cfg.pipes[0].test_latency = None;
        let mut tb = Tb::new(&cfg);
        let core_args = base(0);
        tb.send_creq(0, CREQ_PIPE, 0, 7, op as u8, 0, &core_args, 0);
        tb.cycle();
        let k = 3usize;
        for i in 0..k {
            tb.send_sm(0, 0, op as u8, 0, &base(1 + i as u32), 100 + i as u64);
        }
        // GGX is the longest pipe (its GGX_DIR datapath).
        tb.run(k + 40 + rendergen_rtl::pbru::pipes::ggx::ggx_latency() as usize);
        assert_eq!(
            tb.sm_grants(0),
            vec![1, 2, 3],
            "{op:?}: SM requests back to back"
        );
        assert_eq!(
            tb.core_grants(0),
            vec![1 + k],
            "{op:?}: the core waits exactly K"
        );
        let want = |args: &[u32]| {
            let mut w = shade(op, &args[..op.pops() as usize]).expect("a real unit");
            w.resize(4, 0);
            w
        };
        let sm_items = tb.sm_resp[0].items().to_vec();
        assert_eq!(sm_items.len(), k, "{op:?}: every SM result");
        for (i, item) in sm_items.iter().enumerate() {
            assert_eq!(
                to_words(&item[1], 4),
                want(&base(1 + i as u32)),
                "{op:?} SM #{i}"
            );
        }
        let core_out = tb.crsp[0].items().to_vec();
        assert_eq!(core_out.len(), 1, "{op:?}: the core's result");
        assert_eq!(
            to_words(&core_out[0][3], 4),
            want(&core_args),
            "{op:?} core"
        );
        tb.protocol().unwrap();
    }
}
