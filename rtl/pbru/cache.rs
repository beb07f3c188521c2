//! The L0 caches shared by the cores (`pbru.md` §1.2 units 412 and 414, §4.3, §9.2 `l0_icache` /
//! `l0_tcache`): the instruction cache holds 32-byte chunks, the texture cache 16-byte ASTC
//! blocks. Both are the same direct-mapped generator, [`l0_cache`].

use crate::pbru::ports::{CacheAnswer, CacheIn};
use rendergen_hdl::{name_lets, or_all, Module, Sig};

/// Parameters of [`l0_cache`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheCfg {
    /// Lines, ≥ 1; rounded down to a power of two. PBRU defaults: 16 (I$), 16 (Tex$).
    pub lines: u32,
    /// Bits of a line address (the key), 1..=64.
    pub key_w: u32,
    /// Bits of a line, ≥ 1 (256 for chunks, 128 for blocks).
    pub data_w: u32,
}

impl CacheCfg {
    /// The number of lines built (a power of two).
    pub fn built_lines(&self) -> u32 {
        1 << (31 - self.lines.max(1).leading_zeros())
    }

    fn index_w(&self) -> u32 {
        self.built_lines().trailing_zeros()
    }
}

/// Direct-mapped cache of `cfg.lines` lines: line `key mod lines`, tag = the rest of the key.
///
/// Built as its own module by the PBRU top (`icache`, `tcache`): ports `lookup_<k>` and
/// `fill_{valid,key,data}` in, `<k>_hit` and `<k>_data` out.
///
/// * **Protocol:** no handshakes. Each of `lookup` answers combinationally (one read port
///   each); a fill writes the line at
///   the clock edge (it replaces whatever was there). A lookup and a fill in one cycle:
///   read-first (the lookup sees the old contents; the scheduler then fetches again, harmless).
/// * **Timing:** `lookup_key → hit, data` is combinational (tag compare + RAM read); `fill_*`
///   feed registers and the RAM's write port only.
/// * **Parameters:** [`CacheCfg`]. Not associative (the spec allows either).
/// * **Cost:** `lines × data_w` RAM bits (a combinational read port per lookup); `lines × (key_w − index_w + 1)`
///   flops for tags and valid bits.
/// * **Errors:** key or data widths other than `cfg`'s (elaboration).
#[name_lets]
pub fn l0_cache(m: &mut Module, cfg: &CacheCfg, i: CacheIn) -> Vec<CacheAnswer> {
    let (lookups, fill_valid, fill_key, fill_data) =
        (i.lookup, i.fill.valid, i.fill.key, i.fill.data);
    let lines = cfg.built_lines();
    let iw = cfg.index_w();
    let tag_w = (cfg.key_w - iw).max(1);
    let index_of = |key: Sig| {
        if iw == 0 {
            None
        } else {
            Some(key.slice(0, iw))
        }
    };
    let tag_of = |key: Sig| {
        if cfg.key_w > iw {
            key.slice(iw, cfg.key_w - iw)
        } else {
            key.slice(0, 1) & !key.slice(0, 1)
        }
    };
    let data = m.memory("data", cfg.data_w, lines);
    let zero_addr = m.lit(0, data.addr_width());
    let fi = index_of(fill_key);
    data.write(fill_valid, fi.unwrap_or(zero_addr), fill_data);
    let mut lines_q = Vec::new();
    for line in 0..lines {
        let valid = m.reg(&format!("valid{line}"), 1).reset(0);
        let tag = m.reg(&format!("tag{line}"), tag_w);
        let here = match fi {
            Some(i) => fill_valid & i.eq(line as u64),
            None => fill_valid,
        };
        valid.next_when(here, m.lit(1, 1));
        tag.next_when(here, tag_of(fill_key));
        lines_q.push((valid.q(), tag.q()));
    }
    lookups
        .iter()
        .enumerate()
        .map(|(k, &key)| {
            let li = index_of(key);
            let hit = or_all(lines_q.iter().enumerate().map(|(line, &(valid, tag))| {
                let selected = match li {
                    Some(i) => i.eq(line as u64),
                    None => m.lit(1, 1),
                };
                selected & valid & tag.eq(tag_of(key))
            }))
            .named(&format!("hit{k}"));
            let data = data.read_comb(li.unwrap_or(zero_addr));
            CacheAnswer { hit, data }
        })
        .collect()
}
