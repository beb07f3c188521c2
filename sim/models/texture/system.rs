//! The shader core's `tex` instruction on the texture unit (issue 14 §1–§3): how the 32-bit
//! sampler immediate of `tex d, a, imm` becomes a texture-unit [`Request`], how an [`Answer`]
//! becomes the four words per lane the core writes, and [`TexEnv`], the interpreter's texture
//! port answered by this golden model (the model twin of `rendergen_rtl::texture::system`).
//!
//! # The sampler word (the `tex` immediate)
//! | bits | field | meaning |
//! |---|---|---|
//! | 1:0 | `mode` | 0 filtered, 1 raw (filter bypassed), 2 gather |
//! | 2 | `int_coords` | the lanes' `(a, a+1)` are signed integer texel coordinates (else binary32 normalised) |
//! | 3 | `broadcast` | broadcast fetch: only lane `source` of the quad fetches; its four words go to every lane |
//! | 5:4 | `source` | the fetching lane of a broadcast |
//! | 7:6 | `patch` | collective-fetch patch code (sideband, §A.8) |
//! | 9:8 | `subop` | collective-fetch sub-operation (sideband) |
//! | 10 | `filter` | 0 nearest, 1 bilinear |
//! | 12:11 | `mip` | 0 level 0, 1 nearest level, 2 linear |
//! | 13 | `explicit_lod` | `lod` is the level of detail (else a bias) |
//! | 15:14 | `comp` | gathered component; of a raw broadcast (`mode` 1 with `broadcast`), the broadcast mode: 0 all, 1 selective, 2 shared (3 reads as all) |
//! | 31:16 | `lod` | LOD or bias, signed Q8.8 |
//!
//! The shader compiler speaks this word (`compiler/shader/ABI.md` "Sampled textures": what
//! `texture`, `textureLod`, `texelFetch` and `textureGather` compile to, one texture per
//! program, and the conversion of the filtered/gather answers' 16-bit UNORM words to binary32
//! as `fmul(u2f(w), f32(1/65535))`); `rendergen conv`'s hand-written programs use the raw and
//! broadcast forms.
//!
//! **Broadcast modes** (§A.10, scenario T7): *all* writes the source lane's four texels into
//! `d..d+3` of every active lane (64 texel register writes for a 3×3 on a quad); *selective*
//! writes a lane only the texels of its own kernel window, located by the sideband's patch
//! mapping ([`keep_mask`]; 36 for a 3×3); *shared* writes the four texels once, into the
//! source lane's `d..d+3` (16 for a 3×3): the quad's registers `d..d+3` of its four lanes
//! then hold the patch once, as one quad-shared register set, and a lane reads any of them
//! with `qget t, r, lane` (register `r` of quad lane `lane`, `rtl/shader-isa/ISA.md`). In
//! every mode the texels an earlier sub-operation of the same collective fetch delivered are
//! not written again ([`duplicate_mask`]: the 19×1 strips' columns 7 and 14; 160 / 76 / 40
//! writes for a 19×1, 16 / 8 / 4 dropped, counted in [`TexStats::dup_dropped`]), as the RTL
//! bridge does with its own table (`rendergen_rtl::texture::system::duplicate_words`).
//!
//! Offsets are not encoded (a shader adds them to integer coordinates itself). The broadcast is
//! the source's "sample pipeline 124" (§A.3 block 206, mode *all*): the unit fetches one
//! footprint for the quad and the returned texels are written into every active lane, so a
//! collective fetch of a 4×4 patch is four broadcast `tex` instructions, four footprints, 16
//! texel reads and 64 texel register writes per quad.

use super::collective::{patch_position, Broadcast, PATCH_2X8, PATCH_4X4, PATCH_8X2};
use super::{sample, Answer, Counts, Filter, MipMode, Mode, Request, TexDesc, TexelRef};
use crate::models::shader::{Env, SpecRequest, TexRequest};
use std::collections::HashSet;

/// The decoded sampler word (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampler {
    /// 0 filtered, 1 raw, 2 gather.
    pub mode: u32,
    /// Integer texel coordinates.
    pub int_coords: bool,
    /// Broadcast lane `source`'s footprint to every lane.
    pub broadcast: bool,
    /// The fetching lane of a broadcast (0 ..= 3).
    pub source: u32,
    /// Patch code (2 bits).
    pub patch: u32,
    /// Sub-operation (2 bits).
    pub subop: u32,
    /// Bilinear (else nearest).
    pub linear: bool,
    /// Mipmap mode (2 bits).
    pub mip: u32,
    /// `lod` is the LOD.
    pub explicit_lod: bool,
    /// Gathered component (2 bits).
    pub comp: u32,
    /// LOD or bias, signed Q8.8.
    pub lod: i32,
}

impl Sampler {
    /// The word of this sampler.
    pub fn encode(&self) -> u32 {
        (self.mode & 3)
            | (self.int_coords as u32) << 2
            | (self.broadcast as u32) << 3
            | (self.source & 3) << 4
            | (self.patch & 3) << 6
            | (self.subop & 3) << 8
            | (self.linear as u32) << 10
            | (self.mip & 3) << 11
            | (self.explicit_lod as u32) << 13
            | (self.comp & 3) << 14
            | ((self.lod as u32) & 0xFFFF) << 16
    }

    /// The sampler of word `w`.
    pub fn decode(w: u32) -> Sampler {
        Sampler {
            mode: w & 3,
            int_coords: w >> 2 & 1 == 1,
            broadcast: w >> 3 & 1 == 1,
            source: w >> 4 & 3,
            patch: w >> 6 & 3,
            subop: w >> 8 & 3,
            linear: w >> 10 & 1 == 1,
            mip: w >> 11 & 3,
            explicit_lod: w >> 13 & 1 == 1,
            comp: w >> 14 & 3,
            lod: (w >> 16) as u16 as i16 as i32,
        }
    }
}

impl Sampler {
    /// The broadcast mode: bits 15:14 of a raw broadcast (0 all, 1 selective, 2 shared, 3
    /// reads as all); every other request is *all* (its bits 15:14 are `comp`).
    pub fn broadcast_mode(&self) -> Broadcast {
        match (self.broadcast && self.mode == 1, self.comp) {
            (true, 1) => Broadcast::Selective,
            (true, 2) => Broadcast::Shared,
            _ => Broadcast::All,
        }
    }
}

/// The words of a raw broadcast's answer that repeat a texel an earlier sub-operation of the
/// same collective request delivered (lane `k`'s word `j` at bit `4k + j`; the same words in
/// every lane): dropped in every broadcast mode (§A.7, ¶81). A static rule of the sideband,
/// because sub-operations are issued in order: only the 19×1 strips (patch code 3,
/// sub-operations 1 ..= 3) are a sequence, and a strip's footprint texel is a duplicate when
/// a lane's footprint of an earlier strip holds the same patch position ([`patch_position`]):
/// column 7 (sub-operation 2) and column 14 (sub-operation 3), both rows, fetched by lane 0.
/// Zero for anything but a raw broadcast.
pub fn duplicate_mask(sampler: u32) -> u16 {
    let s = Sampler::decode(sampler);
    if !(s.broadcast && s.mode == 1 && s.patch == PATCH_8X2 && s.subop >= 2) {
        return 0;
    }
    let mut dup = 0u16;
    for j in 0..4 {
        let pos = patch_position(s.patch, s.subop, s.source as usize, j);
        let earlier = (1..s.subop)
            .any(|e| (0..4).any(|lane| (0..4).any(|k| patch_position(s.patch, e, lane, k) == pos)));
        if earlier {
            dup |= 0x1111 << j;
        }
    }
    dup
}

/// The words the core writes for an answer to sampler word `sampler` (lane `k`'s word `j` at
/// bit `4k + j`, before the active mask): those its broadcast mode writes
/// ([`mode_keep_mask`]) less the duplicates of earlier sub-operations ([`duplicate_mask`]).
pub fn keep_mask(sampler: u32) -> u16 {
    mode_keep_mask(sampler) & !duplicate_mask(sampler)
}

/// The words the broadcast mode of sampler word `sampler` writes (lane `k`'s word `j` at bit
/// `4k + j`, before the active mask): all of them, except for a raw broadcast in mode
/// *selective* (the texels of the lane's own kernel window, by the sideband's patch mapping
/// [`patch_position`]; all of them for patch code 0) or *shared* (the source lane's four).
pub fn mode_keep_mask(sampler: u32) -> u16 {
    let s = Sampler::decode(sampler);
    match s.broadcast_mode() {
        Broadcast::All => 0xFFFF,
        Broadcast::Shared => 0xF << (4 * s.source),
        Broadcast::Selective => {
            let (kw, kh) = match (s.patch, s.subop) {
                (PATCH_4X4, _) => (3, 3),
                (PATCH_2X8, _) => (1, 7),
                (PATCH_8X2, 0) => (7, 1),
                (PATCH_8X2, _) => (19, 1),
                _ => return 0xFFFF,
            };
            let mut keep = 0;
            for lane in 0..4usize {
                let (lx, ly) = ((lane & 1) as i64, (lane >> 1) as i64);
                for k in 0..4 {
                    let (px, py) = patch_position(s.patch, s.subop, s.source as usize, k);
                    let (dx, dy) = (px as i64 - lx, py as i64 - ly);
                    if (0..kw).contains(&dx) && (0..kh).contains(&dy) {
                        keep |= 1 << (4 * lane + k);
                    }
                }
            }
            keep
        }
    }
}

/// The texture-unit request for the core's `tex` request `r` (slot `slot`): the sampler's
/// fields, the lanes' coordinates, and the mask (a broadcast fetches only its source lane).
pub fn unit_request(slot: u32, r: &TexRequest) -> Request {
    let s = Sampler::decode(r.sampler);
    let mode = match s.mode {
        1 => Mode::Raw,
        2 => Mode::Gather,
        _ => Mode::Filtered, // 3 is reserved and reads as filtered, as in the RTL's decode
    };
    Request {
        slot,
        quad: r.quad as u32,
        coords: std::array::from_fn(|i| r.coords[i / 2][i % 2]),
        int_coords: s.int_coords,
        offsets: [(0, 0); 4],
        lod: s.lod,
        explicit_lod: s.explicit_lod,
        mode,
        filter: if s.linear {
            Filter::Linear
        } else {
            Filter::Nearest
        },
        mip: match s.mip {
            1 => MipMode::Nearest,
            2 => MipMode::Linear,
            _ => MipMode::Base,
        },
        comp: s.comp,
        mask: match s.broadcast {
            true => 1 << s.source,
            false => r.mask as u32,
        },
        patch: s.patch,
        subop: s.subop,
    }
}

/// The four words per lane the core writes for `answer` to a request with sampler word
/// `sampler`: lane `k`'s own words, or the source lane's in every lane for a broadcast.
pub fn lane_words(sampler: u32, answer: &Answer) -> [[u32; 4]; 4] {
    let s = Sampler::decode(sampler);
    std::array::from_fn(|k| {
        let from = if s.broadcast { s.source as usize } else { k };
        std::array::from_fn(|j| answer.words[4 * from + j])
    })
}

/// What a run of `tex` requests cost (the figures of `rendergen conv --json`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TexStats {
    /// Requests to the unit (one per quad and `tex` instruction).
    pub requests: u64,
    /// The unit's counts (footprints, texel reads, filter active / idle footprints).
    pub counts: Counts,
    /// Texel register writes: one per active lane of a filtered or gather answer (one texel,
    /// four words), four per active lane of a raw answer (four texels), less the words its
    /// broadcast mode or [`duplicate_mask`] skips.
    pub reg_writes: u64,
    /// Register writes a raw broadcast's mode would make but drops as duplicates of an earlier
    /// sub-operation ([`duplicate_mask`]; `BroadcastResult::dup_dropped` of the frame model).
    pub dup_dropped: u64,
}

/// The interpreter's ports with the texture answered by the golden model of the unit on one
/// bound texture; loads read `global` (byte addresses, words), stores write it.
pub struct TexEnv<'a> {
    /// The bound texture.
    pub desc: TexDesc,
    /// Texture memory (word addresses).
    pub mem: &'a [u32],
    /// Global memory for `ldg`/`stg`.
    pub global: Vec<u32>,
    /// Counts so far.
    pub stats: TexStats,
    /// Distinct texels read so far (level, word address), when tracked.
    pub unique: Option<HashSet<(u32, u32)>>,
    /// The slot tag given to requests (the interpreter runs one warp at a time).
    pub slot: u32,
}

impl<'a> TexEnv<'a> {
    /// An environment on `desc` over `mem`, tracking distinct texels.
    pub fn new(desc: TexDesc, mem: &'a [u32]) -> TexEnv<'a> {
        TexEnv {
            desc,
            mem,
            global: Vec::new(),
            stats: TexStats::default(),
            unique: Some(HashSet::new()),
            slot: 0,
        }
    }

    /// Distinct texels read so far (0 when not tracked).
    pub fn unique_texels(&self) -> u64 {
        self.unique.as_ref().map_or(0, |u| u.len() as u64)
    }

    /// Answers one core request as the unit would, counting it; also returns the texels read.
    pub fn answer(&mut self, r: &TexRequest) -> ([[u32; 4]; 4], Vec<TexelRef>) {
        let req = unit_request(self.slot, r);
        let (ans, counts, reads) = sample(&self.desc, self.mem, &req);
        self.stats.requests += 1;
        self.stats.counts += counts;
        self.stats.reg_writes += match req.mode {
            Mode::Raw => {
                let active = (0..4).fold(0u16, |a, l| {
                    a | (((r.mask >> l & 1) as u16 * 0xF) << (4 * l))
                });
                let wanted = mode_keep_mask(r.sampler) & active;
                self.stats.dup_dropped += (wanted & duplicate_mask(r.sampler)).count_ones() as u64;
                (keep_mask(r.sampler) & active).count_ones() as u64
            }
            _ => (r.mask & 0xF).count_ones() as u64,
        };
        if let Some(u) = self.unique.as_mut() {
            u.extend(
                reads
                    .iter()
                    .filter(|t| !t.border)
                    .map(|t| (t.level, t.addr)),
            );
        }
        (lane_words(r.sampler, &ans), reads)
    }
}

impl Env for TexEnv<'_> {
    fn load(&mut self, _lane: usize, addr: u32) -> u32 {
        self.global.get(addr as usize / 4).copied().unwrap_or(0)
    }
    fn store(&mut self, _lane: usize, addr: u32, value: u32) {
        let i = addr as usize / 4;
        if i >= self.global.len() {
            self.global.resize(i + 1, 0);
        }
        self.global[i] = value;
    }
    fn uniform(&mut self, _index: u32) -> u32 {
        0
    }
    fn texture(&mut self, req: &TexRequest) -> [[u32; 4]; 4] {
        self.answer(req).0
    }
    fn texture_keep(&mut self, req: &TexRequest) -> u16 {
        keep_mask(req.sampler)
    }
    fn special(&mut self, _req: &SpecRequest) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw broadcast request of lane `source` at integer texel `at` under the sideband
    /// `(patch, subop)` in broadcast `mode` (0 all, 1 selective, 2 shared).
    fn raw_broadcast(
        source: usize,
        patch: u32,
        subop: u32,
        mode: usize,
        at: [u32; 2],
    ) -> TexRequest {
        let sampler = Sampler {
            mode: 1,
            int_coords: true,
            broadcast: true,
            source: source as u32,
            patch,
            subop,
            comp: mode as u32,
            ..Sampler::default()
        }
        .encode();
        let mut coords = [[0u32; 2]; 4];
        coords[source] = at;
        TexRequest {
            quad: 0,
            sampler,
            coords,
            mask: 0xF,
        }
    }

    #[test]
    fn sampler_words_round_trip() {
        let s = Sampler {
            mode: 1,
            int_coords: true,
            broadcast: true,
            source: 2,
            patch: 3,
            subop: 1,
            linear: true,
            mip: 2,
            explicit_lod: true,
            comp: 3,
            lod: -384,
        };
        assert_eq!(Sampler::decode(s.encode()), s);
        assert_eq!(Sampler::decode(0), Sampler::default());
        // every single bit lands in exactly one field
        for b in 0..32 {
            assert_eq!(Sampler::decode(1 << b).encode(), 1 << b, "bit {b}");
        }
    }

    /// T7: the collective fetch of a 3×3 (and 1×7, 7×1) on a quad — one raw broadcast per
    /// footprint, the fetching lane the one whose sideband footprint it is — writes 64 / 36 / 16
    /// (64 / 28 / 16) texel registers in the modes all / selective / shared; a selective lane
    /// receives exactly its kernel window, a shared one exactly its own footprint.
    #[test]
    fn broadcast_modes_write_the_spec_counts() {
        use crate::models::texture::collective::{plan, Kernel};
        let desc = TexDesc {
            base: 0,
            log2_w: 4,
            log2_h: 4,
            width: 16,
            height: 16,
            mips: 1,
            srgb: false,
            tiled: false,
            wrap: [super::super::Wrap::Clamp; 2],
            border: 0,
            min_lod: -32768,
            max_lod: 32767,
            base_level: 0,
        };
        let mem: Vec<u32> = (0..256)
            .map(|i| 0x0103_0507u32.wrapping_mul(i + 1))
            .collect();
        for (kernel, want) in [
            (Kernel { w: 3, h: 3 }, [64, 36, 16]),
            (Kernel { w: 1, h: 7 }, [64, 28, 16]),
            (Kernel { w: 7, h: 1 }, [64, 28, 16]),
        ] {
            let (patch, subs) = plan(kernel);
            for (mode, want) in want.into_iter().enumerate() {
                let mut env = TexEnv::new(desc, &mem);
                let mut window: [Vec<(u32, u32)>; 4] = Default::default();
                for &(subop, origins) in &subs {
                    for (source, o) in origins.iter().enumerate() {
                        let (ox, oy) = o.expect("every lane fetches");
                        let r = raw_broadcast(source, patch, subop, mode, [3 + ox, 5 + oy]);
                        let sampler = r.sampler;
                        env.answer(&r);
                        let keep = keep_mask(sampler);
                        for (lane, w) in window.iter_mut().enumerate() {
                            for k in 0..4 {
                                if keep >> (4 * lane + k) & 1 == 1 {
                                    w.push((ox + (k & 1) as u32, oy + (k >> 1) as u32));
                                }
                            }
                        }
                    }
                }
                assert_eq!(env.stats.reg_writes, want, "{kernel:?} mode {mode}");
                for (lane, w) in window.iter_mut().enumerate() {
                    w.sort();
                    let (lx, ly) = ((lane & 1) as u32, (lane >> 1) as u32);
                    let expect: Vec<(u32, u32)> = match mode {
                        1 => (0..kernel.h)
                            .flat_map(|y| (0..kernel.w).map(move |x| (x + lx, y + ly)))
                            .collect(),
                        2 => {
                            let (ox, oy) = subs[0].1[lane].unwrap();
                            vec![(ox, oy), (ox + 1, oy), (ox, oy + 1), (ox + 1, oy + 1)]
                        }
                        _ => (0..kernel.h + 1)
                            .flat_map(|y| (0..kernel.w + 1).map(move |x| (x, y)))
                            .collect(),
                    };
                    let mut expect = expect;
                    expect.sort();
                    assert_eq!(*w, expect, "{kernel:?} mode {mode} lane {lane}");
                }
            }
        }
        // Bits 15:14 of anything but a raw broadcast are `comp`: every word written.
        for s in [
            Sampler {
                mode: 2,
                broadcast: true,
                comp: 1,
                ..Sampler::default()
            },
            Sampler {
                mode: 1,
                comp: 2,
                ..Sampler::default()
            },
            Sampler {
                mode: 1,
                broadcast: true,
                comp: 3,
                patch: 1,
                ..Sampler::default()
            },
        ] {
            assert_eq!(keep_mask(s.encode()), 0xFFFF, "{s:?}");
        }
    }

    /// T9 in the core: the 19×1's three sub-operations (§A.7, `plan`) as raw broadcasts in
    /// each mode write what the frame model's [`broadcast`] of the same raw answers writes
    /// (160 / 76 / 40, duplicates dropped 16 / 8 / 4), each patch texel reaches a lane at
    /// most once, and every lane holds its window (selective), the patch (all) or the quad
    /// the patch once (shared); the 3×3 is unchanged (64 / 36 / 16, nothing dropped).
    #[test]
    fn overlapping_sub_operations_drop_duplicates_as_the_frame_model() {
        use crate::models::texture::collective::{broadcast, patch_of, plan, Kernel};
        let desc = TexDesc {
            base: 0,
            log2_w: 5,
            log2_h: 4,
            width: 32,
            height: 16,
            mips: 1,
            srgb: false,
            tiled: false,
            wrap: [super::super::Wrap::Clamp; 2],
            border: 0,
            min_lod: -32768,
            max_lod: 32767,
            base_level: 0,
        };
        let mem: Vec<u32> = (0..512)
            .map(|i| 0x0103_0507u32.wrapping_mul(i + 1))
            .collect();
        let modes = [Broadcast::All, Broadcast::Selective, Broadcast::Shared];
        for (kernel, want) in [
            (Kernel { w: 19, h: 1 }, [(160, 16), (76, 8), (40, 4)]),
            (Kernel { w: 3, h: 3 }, [(64, 0), (36, 0), (16, 0)]),
        ] {
            let (patch, subs) = plan(kernel);
            let ((pw, ph), _) = patch_of(kernel);
            for (mode, (writes, dup)) in want.into_iter().enumerate() {
                let mut env = TexEnv::new(desc, &mem);
                let mut raw = Vec::new();
                // per lane and patch texel: how often written, by which source lane
                let mut got = [[0u32; 64]; 4];
                let mut value = [[0u32; 64]; 4];
                for &(subop, origins) in &subs {
                    for (source, o) in origins.iter().enumerate() {
                        let Some((ox, oy)) = *o else { continue };
                        let r = raw_broadcast(source, patch, subop, mode, [2 + ox, 5 + oy]);
                        let sampler = r.sampler;
                        let req = unit_request(0, &r);
                        let (ans, _, _) = sample(&desc, &mem, &req);
                        raw.push((patch, subop, req.mask, ans.words));
                        let words = env.answer(&r).0;
                        let keep = keep_mask(sampler);
                        for (lane, lane_words) in words.iter().enumerate() {
                            for (k, &w) in lane_words.iter().enumerate() {
                                if keep >> (4 * lane + k) & 1 == 1 {
                                    let (px, py) = patch_position(patch, subop, source, k);
                                    let i = (py * pw + px) as usize;
                                    got[lane][i] += 1;
                                    value[lane][i] = w;
                                }
                            }
                        }
                    }
                }
                let frame = broadcast(kernel, &raw, modes[mode]);
                assert_eq!(
                    (env.stats.reg_writes, env.stats.dup_dropped),
                    (writes, dup),
                    "{kernel:?} {:?}",
                    modes[mode]
                );
                assert_eq!(
                    (frame.reg_writes, frame.dup_dropped),
                    (writes, dup),
                    "frame model {kernel:?} {:?}",
                    modes[mode]
                );
                let texel = |x: u32, y: u32| mem[((5 + y) * 32 + 2 + x) as usize];
                for lane in 0..4usize {
                    let (lx, ly) = ((lane & 1) as u32, (lane >> 1) as u32);
                    for py in 0..ph {
                        for px in 0..pw {
                            let i = (py * pw + px) as usize;
                            let in_window =
                                px >= lx && px - lx < kernel.w && py >= ly && py - ly < kernel.h;
                            let n = got[lane][i];
                            match modes[mode] {
                                Broadcast::All => assert_eq!(n, 1, "{kernel:?} all {lane}"),
                                Broadcast::Selective => {
                                    assert_eq!(n, in_window as u32, "{kernel:?} sel {lane}")
                                }
                                Broadcast::Shared => assert!(n <= 1),
                            }
                            if n == 1 {
                                assert_eq!(value[lane][i], texel(px, py), "{kernel:?}");
                            }
                        }
                    }
                }
                if modes[mode] == Broadcast::Shared {
                    for i in 0..(pw * ph) as usize {
                        let writers: u32 = got.iter().map(|lane| lane[i]).sum();
                        assert_eq!(writers, 1, "shared {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_broadcast_fetches_one_footprint_and_writes_it_everywhere() {
        let desc = TexDesc {
            base: 0,
            log2_w: 3,
            log2_h: 3,
            width: 8,
            height: 8,
            mips: 1,
            srgb: false,
            tiled: false,
            wrap: [super::super::Wrap::Clamp; 2],
            border: 0,
            min_lod: -32768,
            max_lod: 32767,
            base_level: 0,
        };
        let mem: Vec<u32> = (0..64).map(|i| 0x0101_0101 * i).collect();
        let mut env = TexEnv::new(desc, &mem);
        let sampler = Sampler {
            mode: 1,
            int_coords: true,
            broadcast: true,
            source: 1,
            ..Sampler::default()
        }
        .encode();
        let r = TexRequest {
            quad: 0,
            sampler,
            coords: [[9, 9], [2, 3], [9, 9], [9, 9]],
            mask: 0xF,
        };
        let words = env.texture(&r);
        for lane in words {
            assert_eq!(lane, [mem[26], mem[27], mem[34], mem[35]]);
        }
        assert_eq!(env.stats.requests, 1);
        assert_eq!(env.stats.counts.footprints, 1);
        assert_eq!(env.stats.counts.texel_reads, 4);
        assert_eq!(env.stats.reg_writes, 16);
        assert_eq!(env.unique_texels(), 4);
    }
}
