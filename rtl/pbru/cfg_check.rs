//! Range checks of a [`PbruCfg`]: every field the generators cannot honour becomes an
//! elaboration error of kind [`rendergen_hdl::ErrorKind::Param`] naming the field, its value
//! and the valid values, instead of a panic, a silent rounding, or a huge netlist.
//!
//! Limits and why: `cores` ≤ 8 and `slots` ≤ 8 (three tag bits each, see [`crate::pbru::ports`]),
//! `sm_ports` ≤ 4 (two tag bits), at most 32 pipeline instances (`SmResp::pipe` is 5 bits),
//! cache sizes powers of two (the caches index by address bits). Zero instances of a pipeline
//! type is legal: requests of that type wait forever (see `core_scheduler`).

use crate::pbru::ports::PbruCfg;
use rendergen_hdl::Module;
use std::ops::RangeInclusive;

/// `cores`: processing cores.
pub const CORES: RangeInclusive<u64> = 1..=8;
/// `slots`: ray slots per core.
pub const SLOTS: RangeInclusive<u64> = 1..=8;
/// `stack_depth`: stack words per slot.
pub const STACK_DEPTH: RangeInclusive<u64> = 4..=64;
/// `icache_chunks`, `tcache_blocks`: L0 cache lines, a power of two in this range.
pub const CACHE_LINES: RangeInclusive<u64> = 1..=256;
/// `sm_ports`: SM ports.
pub const SM_PORTS: RangeInclusive<u64> = 1..=4;
/// `sm_block_cycles`: cycles a core request waits after an SM request.
pub const SM_BLOCK_CYCLES: RangeInclusive<u64> = 1..=64;
/// `miss_thresh`: cycles before a slot parks on a pending fetch (0 = never).
pub const MISS_THRESH: RangeInclusive<u64> = 0..=65535;
/// Pipeline instances in all.
pub const PIPES: RangeInclusive<u64> = 0..=32;
/// `test_latency` of a test pipeline.
pub const TEST_LATENCY: RangeInclusive<u64> = 1..=64;

impl PbruCfg {
    /// Records an error for every field out of range (at the caller's line); true if none.
    #[track_caller]
    pub fn check(&self, m: &mut Module) -> bool {
        let c = self;
        let mut ok = m.check_param("cores", c.cores.into(), CORES);
        ok &= m.check_param("slots", c.slots.into(), SLOTS);
        ok &= m.check_param("stack_depth", c.stack_depth.into(), STACK_DEPTH);
        ok &= m.check_param_pow2("icache_chunks", c.icache_chunks.into(), CACHE_LINES);
        ok &= m.check_param_pow2("tcache_blocks", c.tcache_blocks.into(), CACHE_LINES);
        ok &= m.check_param("sm_ports", c.sm_ports.into(), SM_PORTS);
        ok &= m.check_param("sm_block_cycles", c.sm_block_cycles.into(), SM_BLOCK_CYCLES);
        ok &= m.check_param("miss_thresh", c.miss_thresh.into(), MISS_THRESH);
        ok &= m.check_param("pipes (instances in all)", c.pipes.len() as u64, PIPES);
        for p in &c.pipes {
            if let Some(l) = p.test_latency {
                ok &= m.check_param("test_latency", l.into(), TEST_LATENCY);
            }
        }
        ok
    }

    /// `self` if [`PbruCfg::check`] passes, else (with the errors recorded) the nearest legal
    /// configuration, so a generator that must return its outputs can keep elaborating.
    #[track_caller]
    pub fn checked(&self, m: &mut Module) -> PbruCfg {
        if self.check(m) {
            return self.clone();
        }
        let fit = |v: u32, r: RangeInclusive<u64>| (v as u64).clamp(*r.start(), *r.end()) as u32;
        let pow2 = |v: u32| {
            let v = fit(v, CACHE_LINES);
            1 << (31 - v.leading_zeros())
        };
        let mut c = self.clone();
        c.cores = fit(c.cores, CORES);
        c.slots = fit(c.slots, SLOTS);
        c.stack_depth = fit(c.stack_depth, STACK_DEPTH);
        c.icache_chunks = pow2(c.icache_chunks);
        c.tcache_blocks = pow2(c.tcache_blocks);
        c.sm_ports = fit(c.sm_ports, SM_PORTS);
        c.sm_block_cycles = fit(c.sm_block_cycles, SM_BLOCK_CYCLES);
        c.miss_thresh = fit(c.miss_thresh, MISS_THRESH);
        c.pipes.truncate(*PIPES.end() as usize);
        for p in &mut c.pipes {
            p.test_latency = p.test_latency.map(|l| fit(l, TEST_LATENCY));
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use crate::pbru::ports::PbruCfg;
    use crate::pbru::top::pbru_top;
    use rendergen_hdl::ErrorKind;

    #[test]
    fn pbru_cfg_out_of_range_is_an_elaboration_error() {
        let bad = [
            PbruCfg {
                cores: 0,
                ..PbruCfg::default()
            },
            PbruCfg {
                slots: 9,
                ..PbruCfg::default()
            },
            PbruCfg {
                stack_depth: u32::MAX,
                ..PbruCfg::default()
            },
            PbruCfg {
                icache_chunks: 3,
                ..PbruCfg::default()
            },
            PbruCfg {
                tcache_blocks: 0,
                ..PbruCfg::default()
            },
            PbruCfg {
                sm_ports: 5,
                ..PbruCfg::default()
            },
        ];
        for cfg in bad {
            let e = pbru_top(&cfg).unwrap_err();
            assert!(e.only_params(), "{cfg:?}: {e}");
        }
        let e = pbru_top(&PbruCfg {
            icache_chunks: 3,
            ..PbruCfg::default()
        })
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("`icache_chunks` = 3")
                && text.contains("1, 2, 4, 8, 16, 32, 64, 128, 256"),
            "{text}"
        );
        assert!(e.has(ErrorKind::Param));
    }

    #[test]
    fn pbru_without_pipelines_elaborates() {
        let cfg = PbruCfg {
            cores: 1,
            slots: 1,
            pipes: Vec::new(),
            ..PbruCfg::default()
        };
        if let Err(e) = pbru_top(&cfg) {
            panic!("{e}");
        }
    }
}
