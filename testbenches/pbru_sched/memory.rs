//! The memory proxy: L0 hits skip the L1 (`pbru.md` §4.3, §9.4 T-ASG-3, T-TX-2, T-TX-4).

use super::{small_cfg, to_words, words, Tb};
use rendergen_hdl::Bits;
use rendergen_rtl::pbru::ports::isa::PipeKind;
use rendergen_rtl::pbru::ports::{CREQ_IFETCH, CREQ_TEXREAD, CRSP_CHUNK, CRSP_TEXREADY};

/// Runs until core `c` has `n` answers (at most `limit` cycles); returns the cycles taken.
fn until_answers(tb: &mut Tb, c: usize, n: usize, limit: usize) -> usize {
    for t in 0..limit {
        if tb.crsp[c].items().len() >= n {
            return t;
        }
        tb.cycle();
    }
    panic!(
        "core {c}: {} answers after {limit} cycles, wanted {n}",
        tb.crsp[c].items().len()
    );
}

/// Answers every L1 request seen so far with data derived from its address.
fn serve_l1(tb: &mut Tb, served: &mut usize) {
    let reqs = tb.l1_req.items_u64();
    for r in &reqs[*served..] {
        let data: Vec<u32> = (0..8).map(|i| r[0] as u32 ^ (i * 0x1111)).collect();
        let item = vec![
            Bits::from_u64(r[2], 8),
            Bits::from_u64(0, 1),
            words(&data, 256),
        ];
        tb.l1_resp.send_bits(item).unwrap();
    }
    *served = reqs.len();
}

/// IFETCH: a miss goes to the L1 and fills the I$; the same chunk from another core is then a
/// hit: answered with the same chunk and no L1 traffic. TEXREAD likewise with the Tex$.
#[test]
fn l0_hits_skip_l1_traffic() {
    let cfg = small_cfg(2, 2, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    let mut served = 0;
    tb.send_creq(0, CREQ_IFETCH, 1, 10, 0, 0, &[], 0x3A0);
    for _ in 0..30 {
        tb.cycle();
        serve_l1(&mut tb, &mut served);
    }
    assert_eq!(tb.l1_req.items().len(), 1, "one L1 request for the miss");
    let l1 = tb.l1_req.items_u64()[0].clone();
    assert_eq!((l1[0], l1[1]), (0x3A0, 0), "chunk byte address, kind 0");
    let first = tb.crsp[0].items()[0].clone();
    assert_eq!(
        (first[0].to_u64(), first[1].to_u64(), first[2].to_u64()),
        (CRSP_CHUNK, 1, 10)
    );
    let chunk = to_words(&first[3], 8);
    assert_eq!(chunk[1], 0x3A0 ^ 0x1111);
    // Hit from the other core: answered without L1 traffic, two cycles after the request.
    tb.send_creq(1, CREQ_IFETCH, 0, 11, 0, 0, &[], 0x3A0);
    let t = until_answers(&mut tb, 1, 1, 10);
    assert_eq!(t, 3, "creq transfer, proxy lookup, answer register");
    assert_eq!(tb.l1_req.items().len(), 1, "no L1 traffic on a hit");
    let hit = &tb.crsp[1].items()[0];
    assert_eq!(
        (hit[0].to_u64(), hit[1].to_u64(), hit[2].to_u64()),
        (CRSP_CHUNK, 0, 11)
    );
    assert_eq!(to_words(&hit[3], 8), chunk);

    // TEXREAD: miss → L1 (byte address = block address · 16, kind 1) → TEXREADY.
    tb.send_creq(1, CREQ_TEXREAD, 1, 12, 0, 0, &[], 0x55);
    for _ in 0..30 {
        tb.cycle();
        serve_l1(&mut tb, &mut served);
    }
    let l1 = tb.l1_req.items_u64()[1].clone();
    assert_eq!((l1[0], l1[1]), (0x550, 1));
    assert_eq!(tb.crsp[1].items()[1][0].to_u64(), CRSP_TEXREADY);
    // Core 0 reads the same block: a hit, no L1 traffic (T-TX-4).
    tb.send_creq(0, CREQ_TEXREAD, 0, 13, 0, 0, &[], 0x55);
    until_answers(&mut tb, 0, 2, 10);
    assert_eq!(tb.crsp[0].items()[1][0].to_u64(), CRSP_TEXREADY);
    assert_eq!(tb.l1_req.items().len(), 2, "no L1 traffic on a Tex$ hit");
    tb.protocol().unwrap();
}

/// T-ASG-3: a ray arriving with its chunk fills the I$: its IFETCH is then a hit.
#[test]
fn inline_chunk_fills_the_icache() {
    let cfg = small_cfg(1, 1, &[(PipeKind::Ggx, 2)]);
    let mut tb = Tb::new(&cfg);
    let chunk: Vec<u32> = (0..8).map(|i| 0xC0DE_0000 + i).collect();
    let ray = vec![
        Bits::from_u64(5, 16),
        Bits::from_u64(0x1000, 32),
        Bits::from_u64(0x25, 16),
        Bits::from_u64(0, 3),
        Bits::zero(128),
        Bits::from_u64(0, 1),
        Bits::from_u64(1, 1),
        words(&chunk, 256),
    ];
    tb.ray_in[1].send_bits(ray).unwrap();
    tb.run(3);
    assert_eq!(tb.assign[0].items().len(), 1);
    // pc = 0x1000 + 0x25 lies in the chunk at 0x1020.
    tb.send_creq(0, CREQ_IFETCH, 0, 5, 0, 0, &[], 0x1020);
    until_answers(&mut tb, 0, 1, 10);
    assert!(tb.l1_req.items().is_empty(), "no L1 traffic");
    assert_eq!(to_words(&tb.crsp[0].items()[0][3], 8), chunk);
}
