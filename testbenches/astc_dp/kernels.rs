//! The ASTC_DP sub-generators, each in a tiny combinational design, against the reference
//! model's function of the same step: exhaustively where the input space is small (block
//! modes, partition hash and small-footprint selection, infill, unquantisation, conversions),
//! every index of random streams per range for the sequence extraction.

use super::vectors::Rng;
use rendergen_hdl::{Bits, Design, Module, Sig};
use rendergen_rtl::astc::dp::{convert, endpoints, header, ise, partition, weights};
use rendergen_sim::models::astc as model;
use rendergen_sim::models::astc::ise::{Quant, Stream};
use rendergen_sim::{InputId, OutputId, Simulator};

/// A combinational kernel in the simulator: named inputs, one output `out`.
struct Kernel {
    sim: Simulator,
    inputs: Vec<InputId>,
    out: OutputId,
}

impl Kernel {
    fn new(inputs: &[(&str, u32)], body: impl FnOnce(&mut Module, &[Sig]) -> Sig) -> Kernel {
        let design = Design::build("kernel", |m| {
            let ins: Vec<Sig> = inputs.iter().map(|(n, w)| m.input(n, *w)).collect();
            let out = body(m, &ins);
            m.output("out", out);
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let sim = Simulator::new(&design).unwrap_or_else(|e| panic!("{e}"));
        let ids = inputs.iter().map(|(n, _)| sim.input(n).unwrap()).collect();
        let out = sim.output("out").unwrap();
        Kernel {
            sim,
            inputs: ids,
            out,
        }
    }

    fn eval(&mut self, values: &[u64]) -> u64 {
        for (id, v) in self.inputs.iter().zip(values) {
            self.sim.poke(*id, *v);
        }
        self.sim.peek(self.out)
    }

    fn eval_wide(&mut self, wide: u128, values: &[u64]) -> u64 {
        self.sim
            .poke_bits(self.inputs[0], &Bits::from_u128(wide, 128));
        for (id, v) in self.inputs[1..].iter().zip(values) {
            self.sim.poke(*id, *v);
        }
        self.sim.peek(self.out)
    }
}

#[test]
fn block_modes_all_2048_at_every_footprint() {
    let mut k = Kernel::new(&[("block", 13), ("bw", 4), ("bh", 4)], |m, i| {
        let f = header::mode_fields(m, i[0], i[1], i[2]);
        rendergen_hdl::cat(&[
            f.illegal,
            f.dual,
            f.weight_quant,
            f.grid_w,
            f.grid_h,
            f.weight_bits,
        ])
    });
    for fp in model::Footprint::ALL {
        for mode in 0..2048u32 {
            if model::block_mode::is_void_extent(mode) {
                continue;
            }
            let got = k.eval(&[mode as u64, fp.w() as u64, fp.h() as u64]);
            let legal = model::block_mode::decode(mode).filter(|b| {
                b.grid_w <= fp.w()
                    && b.grid_h <= fp.h()
                    && b.weight_count() <= 64
                    && (24..=96).contains(&b.weight_bits())
            });
            assert_eq!(
                got >> 24 == 1,
                legal.is_none(),
                "{fp} mode {mode:#x} legality"
            );
            if let Some(b) = legal {
                let want = (b.dual_plane as u64) << 23
                    | (b.weight_quant.index() as u64) << 18
                    | (b.grid_w as u64) << 14
                    | (b.grid_h as u64) << 10
                    | b.weight_bits() as u64;
                assert_eq!(got & 0xFF_FFFF, want, "{fp} mode {mode:#x}");
            }
        }
    }
}

#[test]
fn partition_hash_all_seeds_and_selection_small_footprints() {
    let mut h = Kernel::new(&[("seed", 10), ("parts_m1", 2)], |m, i| {
        partition::hash(m, i[0], i[1])
    });
    for count in 1..=4u32 {
        for seed in 0..1024u32 {
            let got = h.eval(&[seed as u64, count as u64 - 1]);
            let want = model::partition::hash52(seed + (count - 1) * 1024);
            assert_eq!(got, want as u64, "seed {seed} count {count}");
        }
    }
    let inputs = [
        ("seed", 10),
        ("parts_m1", 2),
        ("x", 4),
        ("y", 4),
        ("small", 1),
    ];
    let mut s = Kernel::new(&inputs, |m, i| {
        let rnum = partition::hash(m, i[0], i[1]);
        partition::select(m, rnum, i[0], i[1], i[2], i[3], i[4])
    });
    let small = [(4, 4), (5, 4), (5, 5), (6, 5), (12, 12)];
    for (w, h) in small {
        let is_small = w * h < 31;
        for count in 1..=4u32 {
            for seed in 0..1024u32 {
                for y in 0..h {
                    for x in 0..w {
                        let got = s.eval(&[seed as u64, count as u64 - 1, x, y, is_small as u64]);
                        let want =
                            model::partition::select(seed, x as u32, y as u32, count, is_small);
                        assert_eq!(
                            got, want as u64,
                            "{w}x{h} seed {seed} count {count} ({x},{y})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn infill_every_footprint_grid_and_texel() {
    let names = [
        ("s", 4),
        ("t", 4),
        ("bw", 4),
        ("bh", 4),
        ("gw", 4),
        ("gh", 4),
    ];
    let mut k = Kernel::new(&names, |_, i| {
        let f = weights::infill(i[0], i[1], i[2], i[3], i[4], i[5]);
        let mut parts: Vec<Sig> = f.index.iter().rev().copied().collect();
        parts.extend(f.factor.iter().rev());
        rendergen_hdl::cat(&parts)
    });
    for fp in model::Footprint::ALL {
        for gh in 2..=fp.h() {
            for gw in 2..=fp.w() {
                for t in 0..fp.h() {
                    for s in 0..fp.w() {
                        let want = model::Infill::new(s, t, fp.w(), fp.h(), gw, gh);
                        let args = [s, t, fp.w(), fp.h(), gw, gh].map(u64::from);
                        let got = k.eval(&args);
                        for c in 0..4 {
                            assert_eq!(
                                (got >> (5 * c)) & 31,
                                want.factor[c] as u64,
                                "{fp} {gw}x{gh} ({s},{t}) factor {c}"
                            );
                            if want.factor[c] != 0 {
                                assert_eq!(
                                    (got >> (20 + 8 * c)) & 255,
                                    want.index[c] as u64,
                                    "{fp} {gw}x{gh} ({s},{t}) index {c}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn unquantisation_every_range_and_value() {
    let mut c = Kernel::new(&[("q", 5), ("v", 8)], |m, i| {
        endpoints::unquantize(m, &ise::range_of(i[0]), i[1])
    });
    for q in 4..Quant::COUNT {
        let quant = Quant::from_index(q);
        for v in 0..quant.levels() {
            let want = model::endpoints::unquantize_colour(quant, v);
            assert_eq!(
                c.eval(&[q as u64, v as u64]),
                want as u64,
                "colour range {q} value {v}"
            );
        }
    }
    let mut w = Kernel::new(&[("q", 5), ("v", 5)], |m, i| {
        weights::unquantize(m, &ise::range_of(i[0]), i[1])
    });
    for q in 0..12 {
        let quant = Quant::from_index(q);
        for v in 0..quant.levels() {
            let want = model::weights::unquantize_weight(quant, v);
            assert_eq!(
                w.eval(&[q as u64, v as u64]),
                want as u64,
                "weight range {q} value {v}"
            );
        }
    }
}

#[test]
fn sequence_extraction_every_range_and_index() {
    // (stream bits, group bits, value bits, ranges): the colour and weight extractors.
    let cases = [(87u32, 38u32, 8u32, 4..21usize), (96, 23, 5, 0..12)];
    let mut rng = Rng::new(0x15E);
    for (width, group, out, ranges) in cases {
        let names = [("stream", 128), ("q", 5), ("i", 8)];
        let mut k = Kernel::new(&names, |m, i| {
            let r = ise::range_of(i[1]);
            let loc = ise::locate(m, &r, i[2], 8);
            ise::extract(m, i[0].resize(width), &r, &loc, group, out)
        });
        for q in ranges {
            let quant = Quant::from_index(q);
            for _ in 0..40 {
                // The longest sequence that fits the stream, masked as the pipeline masks it.
                let most = (1..=64)
                    .filter(|&c| quant.sequence_bits(c) <= width)
                    .max()
                    .unwrap();
                let count = 1 + rng.below(most);
                let len = quant.sequence_bits(count);
                let data = rng.next_u128() & ((1u128 << len) - 1);
                let s = Stream::new(data, 0, len);
                for i in 0..count {
                    let want = model::ise::decode_value(&s, quant, i);
                    let got = k.eval_wide(data, &[q as u64, i as u64]);
                    assert_eq!(
                        got, want as u64,
                        "range {q} value {i} of {count}, stream {data:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn conversions_all_16_bit_inputs() {
    let mut u = Kernel::new(&[("c", 16)], |m, i| convert::unorm16_to_fp16(m, i[0]));
    let mut l = Kernel::new(&[("c", 16)], |m, i| convert::lns_to_fp16(m, i[0]));
    let mut e = Kernel::new(&[("h", 16)], |m, i| convert::fp16_to_unorm8(m, i[0]));
    for c in 0..=0xFFFFu16 {
        assert_eq!(
            u.eval(&[c as u64]),
            model::convert::unorm16_to_fp16(c) as u64,
            "unorm16 {c:#x}"
        );
        assert_eq!(
            l.eval(&[c as u64]),
            model::convert::lns_to_fp16(c) as u64,
            "lns {c:#x}"
        );
        if let Some(b) = model::convert::f32_to_unorm8(model::convert::fp16_to_f32(c)) {
            assert_eq!(e.eval(&[c as u64]), b as u64, "fp16 {c:#x} to 8 bits");
        }
    }
}

#[test]
fn endpoint_modes_random_values() {
    let names = [("cem", 4), ("values", 64)];
    let mut k = Kernel::new(&names, |m, i| {
        let v: [Sig; 8] = std::array::from_fn(|j| i[1].slice(8 * j as u32, 8));
        endpoints::decode(m, i[0], &v, true).pack()
    });
    let mut rng = Rng::new(0xE9);
    for cem in 0..16u32 {
        for n in 0..3000 {
            let v: [i32; 8] = std::array::from_fn(|_| match n % 4 {
                0 => [0, 255, 128, 127][rng.below(4) as usize],
                _ => rng.below(256) as i32,
            });
            let packed = v.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64);
            k.eval(&[cem as u64, packed]);
            let want = model::endpoints::decode(cem, &v);
            let wide = k.sim.peek_bits(k.out);
            let field = |i: u32| {
                let w = wide.resized(100);
                (0..12).fold(0u64, |a, b| a | (w.bit(12 * i + b) as u64) << b)
            };
            for c in 0..4u32 {
                let ctx = format!("cem {cem} values {v:?} channel {c}");
                assert_eq!(field(c), want.e0[c as usize] as u64, "e0 {ctx}");
                assert_eq!(field(4 + c), want.e1[c as usize] as u64, "e1 {ctx}");
                assert_eq!(wide.bit(96 + c), want.hdr[c as usize], "hdr {ctx}");
            }
        }
    }
}
