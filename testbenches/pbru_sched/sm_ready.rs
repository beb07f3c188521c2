//! The SM request port's ready (`pbru.md` §4.5; D3): a request is acknowledged only by the
//! instance it names. Regression: with one SM port, the port's ready was the OR of every
//! instance's credit flag, so a request to an instance without a credit was acknowledged by
//! another instance's free credit and lost (`sim pbru --cores 8 --slots 8 --sm-load 0.9` hung
//! with SM requests unanswered).

use super::{small_cfg, test_fn, to_words, Tb};
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_sim::kit::StreamSink;

const GGX: u8 = 0x40;
const SHEEN: u8 = 0x43;

/// Instance 0 runs out of credits (its results wait on a stalled `sm0_resp`) while instance 1
/// has all of its own: further requests to instance 0 must wait, not vanish; every request gets
/// its result once `sm0_resp` takes them.
#[test]
fn sm_request_to_an_instance_without_credit_waits() {
    let cfg = small_cfg(1, 1, &[(PipeKind::Ggx, 1), (PipeKind::Sheen, 1)]);
    let mut tb = Tb::new(&cfg);
    tb.sm_resp[0] = StreamSink::new(&tb.sim, "sm0_resp", 2)
        .unwrap()
        .stall_prob(1.0);
    // Pipe depth (= credits) of a latency-1 test pipeline is 3; send twice as many.
    let n = 6u64;
    for i in 0..n {
        tb.send_sm(0, 0, GGX, 0, &[i as u32 + 1; 10], 200 + i);
    }
    tb.run(20);
    assert_eq!(
        tb.sm_req[0].sent(),
        3,
        "instance 0 takes exactly its 3 credits while its results are stalled"
    );
    assert_eq!(tb.sm_grants(0).len(), 3);
    assert!(tb.sm_grants(1).is_empty(), "instance 1 takes nothing");
    tb.protocol().unwrap();
    // Release the results: the waiting requests go in, every tag comes back once.
    tb.sm_resp[0] = StreamSink::new(&tb.sim, "sm0_resp", 3).unwrap();
    tb.run(40);
    assert!(tb.sm_req[0].is_idle(), "every request transferred");
    let got = tb.sm_resp[0].items().to_vec();
    let tags: Vec<u64> = got.iter().map(|it| it[2].to_u64()).collect();
    assert_eq!(
        tags,
        (200..200 + n).collect::<Vec<_>>(),
        "each tag once, in order"
    );
    for (i, it) in got.iter().enumerate() {
        assert_eq!(it[0].to_u64(), 0, "computed by instance 0");
        assert_eq!(to_words(&it[1], 4), test_fn(GGX, 0, &[i as u32 + 1; 10]));
    }
    tb.protocol().unwrap();
}

/// With instance 0 out of credits, a request to instance 1 behind the waiting one is not
/// acknowledged early either: the port keeps its order (one request on offer at a time).
#[test]
fn waiting_sm_request_is_not_acknowledged_by_another_instance() {
    let cfg = small_cfg(1, 1, &[(PipeKind::Ggx, 1), (PipeKind::Sheen, 1)]);
    let mut tb = Tb::new(&cfg);
    tb.sm_resp[0] = StreamSink::new(&tb.sim, "sm0_resp", 2)
        .unwrap()
        .stall_prob(1.0);
    for i in 0..4u64 {
        tb.send_sm(0, 0, GGX, 0, &[7; 10], 300 + i);
    }
    tb.send_sm(0, 1, SHEEN, 0, &[9; 10], 400);
    tb.run(20);
    assert_eq!(
        tb.sm_req[0].pending(),
        2,
        "the 4th GGX request and the SHEEN one wait"
    );
    tb.sm_resp[0] = StreamSink::new(&tb.sim, "sm0_resp", 3).unwrap();
    tb.run(40);
    let tags: Vec<u64> = (tb.sm_resp[0].items_u64().iter()).map(|it| it[2]).collect();
    let mut sorted = tags.clone();
    sorted.sort();
    assert_eq!(sorted, vec![300, 301, 302, 303, 400], "every result once");
    tb.protocol().unwrap();
}
