//! `ram_1r1w` and `ram_2p`: random reads and writes against an array model, checking read-first
//! behaviour, the read-enable hold, and port b winning a same-word write collision.

use rendergen_rtl::mem::ram::{ram_1r1w, ram_2p, RamCfg};
use rendergen_sim::kit::{seed_from_env_or, Rng, TbError, TestRun};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

const CYCLES: u64 = 4000;

#[test]
fn ram_1r1w_matches_its_model() {
    let cfg = RamCfg {
        width: 20,
        depth: 24,
    };
    let seed = seed_from_env_or(0x4A11);
    let design = ram_1r1w(&cfg).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "ram_1r1w", seed);
    sim.start_recording();
    let result = (|| -> Result<(), TbError> {
        let mut rng = Rng::new(seed);
        let ids = ["we", "waddr", "wdata", "re", "raddr"].map(|n| sim.input(n).unwrap());
        let rdata = sim.output("rdata")?;
        let mut model = vec![0u64; cfg.depth as usize];
        let mut expected: u64 = 0;
        sim.reset(1);
        for cycle in 0..CYCLES {
            let (we, waddr, wdata) = (rng.chance(0.5), rng.below(24), rng.bits_u64(20));
            let (re, raddr) = (rng.chance(0.6), rng.below(24));
            for (id, v) in ids.iter().zip([we as u64, waddr, wdata, re as u64, raddr]) {
                sim.poke(*id, v);
            }
            let got = sim.peek(rdata);
            if cycle > 0 && got != expected {
                return Err(TbError::new(format!(
                    "cycle {cycle}: rdata {got:#x}, model {expected:#x}"
                )));
            }
            if re {
                expected = model[raddr as usize]; // read-first: before this cycle's write
            }
            if we {
                model[waddr as usize] = wdata;
            }
            sim.step();
        }
        Ok(())
    })();
    tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
}

#[test]
fn ram_2p_matches_its_model() {
    let cfg = RamCfg {
        width: 12,
        depth: 16,
    };
    let seed = seed_from_env_or(0x4A22);
    let design = ram_2p(&cfg).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "ram_2p", seed);
    sim.start_recording();
    let result = (|| -> Result<(), TbError> {
        let mut rng = Rng::new(seed);
        let port = |p: &str| {
            ["en", "we", "addr", "wdata"].map(|f| sim.input(&format!("{p}_{f}")).unwrap())
        };
        let ports = [port("a"), port("b")];
        let rdata = [sim.output("a_rdata")?, sim.output("b_rdata")?];
        let mut model = [0u64; 16];
        let mut expected = [0u64; 2];
        sim.reset(1);
        for cycle in 0..CYCLES {
            // Small address range so the ports collide often.
            let ops: Vec<[u64; 4]> = (0..2)
                .map(|_| {
                    [
                        rng.chance(0.7) as u64,
                        rng.chance(0.5) as u64,
                        rng.below(4),
                        rng.bits_u64(12),
                    ]
                })
                .collect();
            for (ids, op) in ports.iter().zip(&ops) {
                for (id, v) in ids.iter().zip(op) {
                    sim.poke(*id, *v);
                }
            }
            for p in 0..2 {
                let got = sim.peek(rdata[p]);
                if cycle > 0 && got != expected[p] {
                    return Err(TbError::new(format!(
                        "cycle {cycle}: port {p} rdata {got:#x}, model {:#x}",
                        expected[p]
                    )));
                }
            }
            for p in 0..2 {
                if ops[p][0] == 1 {
                    expected[p] = model[ops[p][2] as usize];
                }
            }
            for op in &ops {
                if op[0] == 1 && op[1] == 1 {
                    model[op[2] as usize] = op[3]; // port b applied last: it wins
                }
            }
            sim.step();
        }
        Ok(())
    })();
    tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
}

/// Both RAMs map to FPGA block RAM: `ram_1r1w` to iCE40 `SB_RAM40_4K`, `ram_2p` (collisions
/// undefined, `no_rw_check`) to ECP5 `DP16KD` true dual-port blocks — it used to become
/// 22,000+ LUTs; on iCE40, which has no true dual-port RAM, `synth` says it became logic.
#[test]
fn rams_map_to_block_ram() {
    use rendergen_gen::tools::{synth, SynthTarget};
    let cfg = RamCfg::default();
    let count = |r: &rendergen_gen::tools::SynthReport, cell: &str| {
        (r.cell_types.iter().find(|(c, _)| c == cell)).map_or(0, |(_, n)| *n)
    };
    let r = synth(&ram_1r1w(&cfg).unwrap(), SynthTarget::Ice40).unwrap();
    assert!(count(&r, "SB_RAM40_4K") >= 2 && r.luts < 100, "{r}");
    let r = synth(&ram_2p(&cfg).unwrap(), SynthTarget::Ecp5).unwrap();
    assert_eq!(count(&r, "DP16KD"), 2, "{r}");
    assert!(r.luts < 100, "{r}");
    let small = RamCfg {
        width: 8,
        depth: 16,
    };
    let r = synth(&ram_2p(&small).unwrap(), SynthTarget::Ice40).unwrap();
    assert!(
        r.notes.iter().any(|n| n.contains("became flip-flops")),
        "{r}"
    );
}
