//! The compiled PBRU against the interpreter, cycle by cycle, in both evaluation modes.

use rendergen_compiled::pbru_tb_cfg;
use rendergen_rtl::pbru::top::pbru_top;
use rendergen_sim::kit::Rng;
use rendergen_sim::{Eval, SimError, Simulator};

/// Random inputs for `cycles` cycles (reset for the first two) into the interpreter and into
/// `other`; every output word and one internal signal compared on every cycle.
fn lockstep(other: &mut Simulator, cycles: u64) {
    let design = pbru_top(&pbru_tb_cfg()).unwrap();
    let mut reference = Simulator::new(&design).unwrap();
    let mut rng = Rng::new(11);
    let signal = "pbru.core_0.executing";
    let (sr, so) = (
        reference.signal(signal).unwrap(),
        other.signal(signal).unwrap(),
    );
    for c in 0..cycles {
        reference.set_reset(c < 2);
        other.set_reset(c < 2);
        for i in 0..reference.inputs().len() {
            let w = reference.inputs()[i].width;
            let words: Vec<u64> = (0..w.div_ceil(64)).map(|_| rng.next_u64()).collect();
            let b = rendergen_hdl::Bits::from_words(&words, w);
            reference.poke_bits(reference.input_at(i), &b);
            other.poke_bits(other.input_at(i), &b);
        }
        for o in 0..reference.outputs().len() {
            let want = reference.peek_words(reference.output_at(o)).to_vec();
            assert_eq!(
                other.peek_words(other.output_at(o)),
                want.as_slice(),
                "cycle {c}: output {}",
                reference.outputs()[o].name
            );
        }
        assert_eq!(
            reference.peek_signal(sr),
            other.peek_signal(so),
            "cycle {c}"
        );
        reference.step();
        other.step();
    }
}

#[test]
fn compiled_pbru_runs_in_lockstep_with_the_interpreter() {
    let design = pbru_top(&pbru_tb_cfg()).unwrap();
    let mut full = Simulator::with_compiled(
        &design,
        Eval::Full,
        rendergen_compiled::pbru_tb_full::code(),
    )
    .unwrap();
    assert!(full.is_compiled());
    lockstep(&mut full, 300);
    let mut active = Simulator::with_compiled(
        &design,
        Eval::Active,
        rendergen_compiled::pbru_tb_active::code(),
    )
    .unwrap();
    lockstep(&mut active, 300);
}

#[test]
fn code_compiled_for_other_parameters_is_refused() {
    let mut cfg = pbru_tb_cfg();
    cfg.cores = 1;
    let other = pbru_top(&cfg).unwrap();
    let err =
        Simulator::with_compiled(&other, Eval::Full, rendergen_compiled::pbru_tb_full::code())
            .err()
            .expect("a stale build is refused");
    assert!(matches!(err, SimError::StaleCompiled { .. }), "{err}");
    assert!(
        err.to_string().contains("does not match design `pbru`"),
        "{err}"
    );
    // The right code in the wrong mode is refused too.
    let design = pbru_top(&pbru_tb_cfg()).unwrap();
    assert!(Simulator::with_compiled(
        &design,
        Eval::Active,
        rendergen_compiled::pbru_tb_full::code()
    )
    .is_err());
}
