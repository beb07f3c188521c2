//! The memory agent (`rendergen_sim::agents::memory`) behind a pass-through design: random
//! reads (narrow single beats with a strobe among them) and write bursts with random strobes against a byte array written here, random
//! latency, back-pressure and answer gaps; the final image (poison included) and every
//! region's counters against the reference.
use super::flatten;
use rendergen_hdl::Design;
use rendergen_rtl::tile::mem_port::{MemReq, MemResp};
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::{InOrder, Rng, StreamSink, StreamSource, TbError, TestRun, Watchdog};
use rendergen_sim::Simulator;

fn loopback() -> Design {
    Design::build("mem_loopback", |m| {
        let req = m.input_stream::<MemReq>("host_req", &MemReq::SHAPE);
        m.output_stream("mem_req", req);
        let resp = m.input_stream::<MemResp>("mem_resp", &MemResp::SHAPE);
        m.output_stream("host_resp", resp);
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

const SIZE: usize = 1 << 14;
const POISON: u8 = 0x5A;

fn run(seed: u64, ops: usize) -> Result<(), TbError> {
    let design = loopback();
    let mut sim = Simulator::new(&design)?;
    let tb = TestRun::start(&mut sim, "memory agent", seed);
    let r = drive(&mut sim, seed, ops);
    tb.finish(&mut sim, r).map_err(TbError::new)
}

fn drive(sim: &mut Simulator, seed: u64, ops: usize) -> Result<(), TbError> {
    let mut rng = Rng::new(seed);
    let cfg = MemCfg {
        size: SIZE,
        min_latency: 1,
        max_latency: 12,
        stall: 0.3,
        gap: 0.3,
        poison: POISON,
        max_outstanding: 4,
        seed: rng.next_u64(),
    };
    let mut mem = MemoryAgent::new(sim, "mem", cfg)?;
    // Writes go to the low 4 KiB; "low" and "high" halves of it, and an untouched page.
    mem.region("low", 0, 2048);
    mem.region("high", 2048, 2048);
    mem.region("untouched", 8192, 4096);
    let mut reference = vec![POISON; SIZE];
    let mut counts = [[0u64; 2]; 3]; // [region][read, written]
    let mut src = StreamSource::new(sim, "host_req", rng.next_u64())?.gap_prob(0.3);
    let mut sink = StreamSink::new(sim, "host_resp", rng.next_u64())?.stall_prob(0.3);
    let mut board = InOrder::new();
    let region_of = |a: usize| match a {
        0..=2047 => Some(0),
        2048..=4095 => Some(1),
        8192..=12287 => Some(2),
        _ => None,
    };
    for _ in 0..ops {
        let beats = 1 + rng.below(16) as usize;
        // A burst inside one 4 KiB page: the low page for writes, reads anywhere below 16 KiB.
        let write = rng.chance(0.5);
        let page = if write {
            0
        } else {
            rng.below(4) as usize * 4096
        };
        let addr = page + 8 * rng.below((512 - beats as u64) + 1) as usize;
        let mut read_strobe = 0;
        for b in 0..beats {
            let data = rng.next_u64();
            let strobe = match rng.below(3) {
                0 => 0xFF,
                _ => rng.below(256),
            };
            if b == 0 {
                read_strobe = strobe;
            }
            if write {
                for k in 0..8 {
                    if strobe >> k & 1 != 0 {
                        let a = addr + 8 * b + k;
                        reference[a] = (data >> (8 * k)) as u8;
                        if let Some(r) = region_of(a) {
                            counts[r][1] += 1;
                        }
                    }
                }
            }
            let req = MemReq {
                write: write as u64,
                addr: addr as u64,
                beats: beats as u64 - 1,
                data,
                strobe,
                last: (b + 1 == beats) as u64,
            };
            if write || b == 0 {
                src.send(&flatten(&req, &MemReq::SHAPE))?;
            }
        }
        if write {
            board.expect(vec![0, 1, 1]);
        } else {
            for b in 0..beats {
                let a = addr + 8 * b;
                let mut w = [0u8; 8];
                w.copy_from_slice(&reference[a..a + 8]);
                board.expect(vec![u64::from_le_bytes(w), (b + 1 == beats) as u64, 0]);
                // A single-beat read with a strobe is narrow: only its marked bytes count.
                for k in 0..8 {
                    let counted = beats > 1 || read_strobe == 0 || read_strobe >> k & 1 != 0;
                    if let Some(r) = region_of(a + k).filter(|_| counted) {
                        counts[r][0] += 1;
                    }
                }
            }
        }
    }
    sim.reset(1);
    let dog = Watchdog::new(200 * ops as u64 + 100, seed);
    dog.run_until(sim, "every answer", |sim| {
        super::mem_unit_cycle(sim, &mut src, &mut sink, &mut mem, &mut board)?;
        Ok(src.is_idle() && board.outstanding() == 0)
    })?;
    board.check_complete()?;
    mem.check()?;
    if mem.bytes(0, SIZE) != reference.as_slice() {
        let a = (0..SIZE).find(|&a| mem.bytes(a as u64, 1)[0] != reference[a]);
        return Err(TbError::new(format!("memory image differs first at {a:?}")));
    }
    for (k, r) in mem.regions().iter().enumerate() {
        let got = [r.read_bytes, r.written_bytes];
        if got != counts[k] {
            return Err(TbError::new(format!(
                "region `{}`: read/written {got:?}, expected {:?}",
                r.name, counts[k]
            )));
        }
    }
    mem.assert_not_written("untouched")?;
    if mem.assert_not_written("low").is_ok() {
        return Err(TbError::new("the assertion missed writes to `low`"));
    }
    if mem.was_written(8192) || !(0..4096).any(|a| mem.was_written(a)) {
        return Err(TbError::new("written flags wrong"));
    }
    Ok(())
}

#[test]
fn memory_agent_matches_byte_array() {
    let mut rng = Rng::from_env_or(0x3e30);
    run(rng.next_u64(), 400).unwrap_or_else(|e| panic!("{e}"));
}

/// A burst across a 4 KiB boundary and a misaligned address are reported.
#[test]
fn memory_agent_reports_bad_bursts() {
    let design = loopback();
    let mut sim = Simulator::new(&design).unwrap();
    let mut mem = MemoryAgent::new(&sim, "mem", MemCfg::default()).unwrap();
    let mut src = StreamSource::new(&sim, "host_req", 1).unwrap();
    for (addr, beats) in [(4096 - 8, 2u64), (4, 1)] {
        let req = MemReq {
            write: 0,
            addr,
            beats: beats - 1,
            data: 0,
            strobe: 0,
            last: 0,
        };
        src.send(&flatten(&req, &MemReq::SHAPE)).unwrap();
    }
    sim.reset(1);
    for _ in 0..10 {
        src.drive(&mut sim);
        mem.drive(&mut sim);
        src.sample(&mut sim);
        mem.sample(&mut sim);
        sim.step();
    }
    let e = mem.check().unwrap_err().to_string();
    assert!(e.contains("crosses a 4 KiB boundary"), "{e}");
    assert!(e.contains("not aligned"), "{e}");
}
