//! Ray intake, assignment and ray out (`pbru.md` §4.2, §4.7, §9.4 T-ASG-1, T-ASG-2, T-MS-2).

use super::{small_cfg, words, Tb};
use rendergen_hdl::Bits;
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_rtl::pbru::ports::{CREQ_IFETCH, CRSP_CANCEL};
use rendergen_sim::kit::{seed_from_env_or, TbError, TestRun};

/// A ray for `sm_ray_in`/`ttu_ray_in` (stack of 4 words).
fn ray(id: u64, inst_addr: u64, chunk: Option<&[u32]>) -> Vec<Bits> {
    vec![
        Bits::from_u64(id, 16),
        Bits::from_u64(inst_addr, 32),
        Bits::from_u64(0, 16),
        Bits::from_u64(1, 3),
        words(&[id as u32 * 3, 0, 0, 0], 128),
        Bits::from_u64(0, 1),
        Bits::from_u64(chunk.is_some() as u64, 1),
        words(chunk.unwrap_or(&[]), 256),
    ]
}

/// A returning ray for `core{c}_done`.
fn done(id: u64, ret_dst: u64, reason: u64) -> Vec<Bits> {
    vec![
        Bits::from_u64(id, 16),
        Bits::from_u64(0x40, 32),
        Bits::from_u64(5, 16),
        Bits::from_u64(1, 3),
        words(&[id as u32, 0, 0, 0], 128),
        Bits::from_u64(ret_dst, 1),
        Bits::from_u64(reason, 3),
    ]
}

/// Sends one ray with the cores' `busy` set as given; returns the core it was offered to (and
/// taken by), or `None` if no core took it within 4 cycles.
fn assign_once(tb: &mut Tb, busy: &[u64], id: u64) -> Option<usize> {
    for (c, b) in busy.iter().enumerate() {
        let port = tb.busy[c];
        tb.sim.poke(port, *b);
    }
    let before: Vec<usize> = tb.assign.iter().map(|a| a.items().len()).collect();
    tb.ray_in[(id % 2) as usize]
        .send_bits(ray(id, 0x100, None))
        .unwrap();
    for _ in 0..4 {
        tb.cycle();
        for (c, a) in tb.assign.iter().enumerate() {
            if a.items().len() > before[c] {
                assert_eq!(a.items().last().unwrap()[0].to_u64(), id, "the ray itself");
                return Some(c);
            }
        }
    }
    None
}

/// T-ASG-1/2: a core with no ray first, else the least loaded; ties to the lowest index; no
/// free slot anywhere: the ray waits (ready low) until a slot frees.
#[test]
fn assignment_free_core_first_then_least_loaded() {
    let cfg = small_cfg(3, 2, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    assert_eq!(assign_once(&mut tb, &[0, 0, 0], 1), Some(0), "tie → lowest");
    assert_eq!(
        assign_once(&mut tb, &[1, 0, 0], 2),
        Some(1),
        "a core with no ray"
    );
    assert_eq!(
        assign_once(&mut tb, &[1, 2, 0], 3),
        Some(2),
        "a core with no ray"
    );
    assert_eq!(
        assign_once(&mut tb, &[3, 1, 2], 4),
        Some(1),
        "least loaded, tie → lowest"
    );
    assert_eq!(
        assign_once(&mut tb, &[3, 3, 2], 5),
        Some(2),
        "the only free slot"
    );
    assert_eq!(
        assign_once(&mut tb, &[3, 3, 3], 6),
        None,
        "all slots busy: no assignment"
    );
    assert!(!tb.ray_in[0].is_idle(), "the ray waits at the input");
    tb.sim.poke(tb.busy[1], 1);
    tb.run(2);
    assert_eq!(
        tb.assign[1].items().last().unwrap()[0].to_u64(),
        6,
        "taken once a slot frees"
    );
    // One slot per core: only idle cores get rays.
    let cfg = small_cfg(2, 1, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    assert_eq!(assign_once(&mut tb, &[1, 0], 1), Some(1));
    assert_eq!(assign_once(&mut tb, &[1, 1], 2), None);
    tb.protocol().unwrap();
}

/// Finished rays leave by `ret_dst`; a parked ray (reason 1) always goes to the TTU.
#[test]
fn rays_leave_by_ret_dst_and_parked_rays_go_to_the_ttu() {
    let cfg = small_cfg(2, 1, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    tb.done[0].send_bits(done(1, 0, 0)).unwrap();
    tb.done[1].send_bits(done(2, 1, 0)).unwrap();
    tb.done[0].send_bits(done(3, 0, 1)).unwrap();
    tb.done[1].send_bits(done(4, 0, 5)).unwrap();
    tb.run(8);
    let ids = |k: usize, tb: &Tb| -> Vec<u64> {
        tb.ray_out[k]
            .items()
            .iter()
            .map(|i| i[0].to_u64())
            .collect()
    };
    assert_eq!(
        ids(0, &tb),
        vec![1, 4],
        "SM: done and error rays with ret_dst 0"
    );
    assert_eq!(
        ids(1, &tb),
        vec![2, 3],
        "TTU: ret_dst 1, and the parked ray"
    );
}

/// T-MS-2: the SM's miss notice on an IFETCH stops the waiting slot (one cycle, the right
/// slot); the core returns the ray Parked and it goes to the TTU.
#[test]
fn l1_miss_notice_parks_the_ray_to_the_ttu() {
    let seed = seed_from_env_or(0x3155);
    let cfg = small_cfg(2, 2, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    let run = TestRun::start(&mut tb.sim, "pbru_miss_notice", seed);
    let r: Result<(), TbError> = (|| {
        tb.send_creq(1, CREQ_IFETCH, 1, 43, 0, 0, &[], 0x2000);
        let mut n = 0;
        while tb.l1_req.items().is_empty() {
            tb.cycle();
            n += 1;
            if n > 20 {
                return Err(TbError::new("no L1 request"));
            }
        }
        let req = tb.l1_req.items_u64()[0].clone();
        if req[0] != 0x2000 || req[1] != 0 {
            return Err(TbError::new(format!("L1 request {req:x?}")));
        }
        tb.l1_resp.send_bits(vec![
            Bits::from_u64(req[2], 8),
            Bits::from_u64(1, 1),
            Bits::zero(256),
        ])?;
        let start = tb.stops.len();
        tb.run(6);
        let stops: Vec<(usize, usize, (u64, u64))> = (tb.stops[start..].iter().enumerate())
            .flat_map(|(t, s)| {
                s.iter()
                    .enumerate()
                    .filter_map(move |(c, x)| x.map(|slot| (t, c, slot)))
            })
            .collect();
        // Core 1, slot 1, epoch 1 (ray 43's request carried epoch 1).
        if stops.len() != 1 || stops[0].1 != 1 || stops[0].2 != (1, 1) {
            return Err(TbError::new(format!(
                "stops (cycle, core, (slot, epoch)): {stops:?}"
            )));
        }
        // The missed fetch is answered once, with CRSP_CANCEL (the slot may owe that answer).
        let answers = tb.crsp[1].items_u64();
        if answers.len() != 1 || answers[0][0] != CRSP_CANCEL || answers[0][1] != 1 {
            return Err(TbError::new(format!(
                "a missed fetch is answered once with CRSP_CANCEL: {answers:x?}"
            )));
        }
        tb.done[1].send_bits(done(43, 0, 1))?;
        tb.run(4);
        let ttu: Vec<u64> = tb.ray_out[1]
            .items()
            .iter()
            .map(|i| i[0].to_u64())
            .collect();
        if ttu != vec![43] || !tb.ray_out[0].items().is_empty() {
            return Err(TbError::new(format!("parked ray went to TTU {ttu:?}")));
        }
        // The entry is free again: a new fetch of that slot is accepted and answered.
        tb.send_creq(1, CREQ_IFETCH, 1, 44, 0, 0, &[], 0x2000);
        tb.run(6);
        if tb.l1_req.items().len() != 2 {
            return Err(TbError::new("the slot's entry was not freed"));
        }
        tb.protocol()
    })();
    run.check(&mut tb.sim, r);
}
