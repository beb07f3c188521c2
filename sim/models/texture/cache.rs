//! The texture cache's hit and fill counts, modelled from the cache's organisation (the
//! semantics below), not from the RTL's state machine.
//!
//! # Organisation
//! * Four banks by `(x & 1, y & 1)`; a **line** is an aligned 2×2 block of one level, key
//!   `(level, x >> 1, y >> 1)`, one texel in each bank; `lines` lines, direct-mapped; a fill
//!   writes the whole block (all four banks) at one index.
//! * **Index** of block `(level, bx, by)` with `ib = log2(lines)`, `hx = ⌈ib/2⌉`, `hy = ⌊ib/2⌋`:
//!   `((by mod 2^hy) << hx | (bx mod 2^hx)) xor (level mod 2^ib)` (neighbouring blocks, and the
//!   same block of neighbouring levels, land on different lines).
//! * **A footprint** looks up, in every bank, the block of the texel of that bank it needs
//!   (positions with a non-zero weight only; see [`super::needed`]). If every looked-up bank
//!   hits, the footprint passes. Otherwise the block of the lowest-numbered missing bank is
//!   filled (one fill), and the footprint looks up again. A footprint that passes without a
//!   fill is a **hit** (so is one with no texel to read, every texel on the border), so
//!   the hit rate is hits / footprints; an empty quad has no footprint; `flush` empties every
//!   line.

use super::{footprint, needed, select_levels, Request, TexDesc, TexelRef};

/// Hit and fill counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheCounts {
    /// Footprints served with no fill.
    pub hits: u64,
    /// Line fills.
    pub fills: u64,
}

impl std::ops::AddAssign for CacheCounts {
    fn add_assign(&mut self, o: CacheCounts) {
        self.hits += o.hits;
        self.fills += o.fills;
    }
}

/// The state of the direct-mapped cache of 2×2 blocks.
#[derive(Clone, Debug)]
pub struct TexCache {
    /// Block key held by each line, if any.
    lines: Vec<Option<(u32, u32, u32)>>,
    /// log2 of the line count.
    ib: u32,
}

impl TexCache {
    /// An empty cache of `lines` lines (a power of two, at least 4).
    pub fn new(lines: u32) -> TexCache {
        assert!(lines.is_power_of_two() && lines >= 4, "lines = {lines}");
        TexCache {
            lines: vec![None; lines as usize],
            ib: lines.trailing_zeros(),
        }
    }

    /// Forgets every line.
    pub fn flush(&mut self) {
        self.lines.fill(None);
    }

    /// Line index of block `(level, bx, by)` (module docs).
    pub fn index(&self, level: u32, bx: u32, by: u32) -> usize {
        let (hx, hy) = (self.ib.div_ceil(2), self.ib / 2);
        let low = |v: u32, n: u32| v & ((1 << n) - 1);
        ((low(by, hy) << hx | low(bx, hx)) ^ low(level, self.ib)) as usize
    }

    /// One footprint: texels `t` at positions `t00, t10, t01, t11`, `need` those read. Returns
    /// its counts (a hit or not, the fills).
    pub fn footprint(&mut self, t: &[TexelRef; 4], need: [bool; 4]) -> CacheCounts {
        // The block each bank looks up: on power-of-two levels positions sharing a bank
        // share the texel. (An odd NPOT level wrapped by repeat puts two texels of one
        // footprint in one bank, columns `w − 1` and 0: the cache's answer to that, a second
        // look-up, is not specified yet, and this model refuses such a footprint.)
        let mut want: [Option<(u32, u32, u32)>; 4] = [None; 4];
        for p in 0..4 {
            if need[p] {
                let bank = (t[p].x & 1 | (t[p].y & 1) << 1) as usize;
                let key = (t[p].level, t[p].x >> 1, t[p].y >> 1);
                let held = *want[bank].get_or_insert(key);
                assert_eq!(
                    held, key,
                    "two blocks in bank {bank} of one footprint {t:?}"
                );
            }
        }
        let mut fills = 0;
        loop {
            let missing = want.iter().flatten().find(|&&k| {
                let i = self.index(k.0, k.1, k.2);
                self.lines[i] != Some(k)
            });
            match missing {
                None => break,
                Some(&k) => {
                    let i = self.index(k.0, k.1, k.2);
                    self.lines[i] = Some(k);
                    fills += 1;
                    assert!(
                        fills <= 4,
                        "a footprint's blocks evict each other: {want:?}"
                    );
                }
            }
        }
        CacheCounts {
            hits: (fills == 0) as u64,
            fills,
        }
    }

    /// Every footprint of request `r`, in the unit's order (lanes in order, the finer level
    /// first).
    pub fn request(&mut self, desc: &TexDesc, r: &Request) -> CacheCounts {
        let (lo, _, two) = select_levels(desc, r);
        let mut c = CacheCounts::default();
        for lane in 0..4 {
            if r.mask >> lane & 1 == 0 {
                continue;
            }
            for l in [lo, lo + 1].into_iter().take(1 + two as usize) {
                let (t, fx, fy) = footprint(desc, r, lane, l);
                c += self.footprint(&t, needed(r, &t, fx, fy));
            }
        }
        c
    }
}
