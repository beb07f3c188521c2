//! `credit_counter`: random take/give against a saturating model; `available` every cycle.

use rendergen_rtl::stream::credit::credit_counter_top;
use rendergen_sim::kit::{seed_from_env_or, Rng, TbError, TestRun};
use rendergen_sim::Simulator;
use rendergen_testbenches::cosim_prefix;

#[test]
fn credit_counter_matches_its_model() {
    let max = 5u64;
    let seed = seed_from_env_or(0xC4ED);
    let design = credit_counter_top(max as u32).unwrap();
    let mut sim = Simulator::new(&design).unwrap();
    let tb = TestRun::start(&mut sim, "credit_counter", seed);
    sim.start_recording();
    let result = (|| -> Result<(), TbError> {
        let mut rng = Rng::new(seed);
        let (take, give) = (sim.input("take")?, sim.input("give")?);
        let (count, available) = (sim.output("count")?, sim.output("available")?);
        sim.reset(2);
        let mut model = max;
        let mut extremes = [false; 2];
        for cycle in 0..5000 {
            // Phases biased towards spending or refunding so both limits are reached.
            let bias = if (cycle / 200) % 2 == 0 { 0.7 } else { 0.3 };
            let (t, g) = (rng.chance(bias), rng.chance(1.0 - bias));
            sim.poke(take, t as u64);
            sim.poke(give, g as u64);
            let (c, a) = (sim.peek(count), sim.peek(available));
            if c != model || (a == 1) != (model > 0) {
                return Err(TbError::new(format!(
                    "cycle {cycle}: count {c} available {a}, model {model}"
                )));
            }
            extremes[0] |= model == 0;
            extremes[1] |= model == max && cycle > 10;
            let spend = t && model > 0;
            let refund = g && model < max;
            model = model + refund as u64 - spend as u64;
            sim.step();
        }
        if extremes != [true, true] {
            return Err(TbError::new("the run never reached both 0 and max credits"));
        }
        Ok(())
    })();
    tb.check(&mut sim, result);
    cosim_prefix(&design, &mut sim);
}
