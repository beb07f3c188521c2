//! The per-tile command lists the tiler writes and the command-list processor reads
//! (issue 13 §1; `tiles-and-allocation.md` A.6, A.10.2 `ts_cmd_proc`). One encoding for the
//! frame model and the RTL processor `tile_cmd` (`rtl/tile/cmd.rs`): this module is its
//! definition; `rtl/tile/README.md` ("Command lists") repeats the table for the hardware reader,
//! and the testbench `tile::cmd` runs lists written by [`Command::encode`] through the RTL.
//!
//! # Encoding
//! A list is a sequence of commands in consecutive **64-bit little-endian words** (byte `k` of
//! word `w` at byte address `8w + k`); a list starts at a multiple of 8 bytes. The low byte of
//! the first word is the opcode and fixes the command's size. `w[k]` is word `k` of the
//! command, bit fields are `[hi:lo]`, unnamed bits are zero.
//!
//! | op | command | words | fields |
//! |---|---|---|---|
//! | 1 | `TILE_BEGIN` | 1 + popcount(mask) | `w[0][23:8]` tile x, `w[0][39:24]` tile y (in tiles), `w[0][55:40]` clear mask (bit p = plane p: colour targets, then depth); then one word per set mask bit, in plane order: that plane's clear value (raw bits of its format, depth D24 in `[23:0]`) |
//! | 2 | `DRAW` | 10 | below |
//! | 3 | `RESOLVE` | 1 | `w[0][12:8]` xthreads, `w[0][20:16]` ythreads (1 ..= 16), `w[0][63:32]` program (the model: tile-shader index of the pass; the RTL: its address) |
//! | 4 | `END_TILE` | 1 | — |
//!
//! `DRAW` (80 bytes) is one triangle set up for the tile ([`TriSetup`], `setup.rs`):
//! * `w[0]`: `[15:8]` draw state (the pass's mesh/pipeline index), `[27:16]` quad bounding box
//!   `qx0 | qy0 << 3 | qx1 << 6 | qy1 << 9` (3 bits each, inclusive), `[30:28]` depth op
//!   (`VkCompareOp`), `[31]` depth write, `[32]` front facing, `[35:33]` top-left flags of
//!   edges 0, 1, 2, `[63:40]` primitive id (24 bits; index into the pass's primitive buffer);
//! * `w[1+i]` (edge i = 0, 1, 2): `[23:0]` `a_i`, `[47:24]` `b_i` (two's complement),
//!   `[63:48]` bits 15:0 of `rw_i`;
//! * `w[4+i]`: `[47:0]` `c_i` (two's complement), `[63:48]` bits 31:16 of `rw_i`
//!   (`rw_i` = 1/w of vertex i as binary32; edge i is opposite vertex i);
//! * `w[7]` `z_c` (i64), `w[8][47:0]` `dzdx`, `w[9][47:0]` `dzdy` (two's complement).
//!
//! `area2` is not sent: it is `c_0 + c_1 + c_2` (the edge functions sum to it everywhere,
//! `setup.rs`), which [`Command::decode`] recomputes. The widths hold every triangle setup
//! produces inside the guard band (`|x|, |y| < 2^21` sub-pixels: `|a|, |b| < 2^22`,
//! `|c| < 2^45`; the slopes are clamped to 48 bits).
//!
//! # The command-list region
//! The frame model's `command lists` region starts with a table of one word per tile
//! (row-major): `[31:0]` the list's offset from the region's base in words, `[63:32]` its
//! length in words (the RTL's `list` stream takes the address and the length); the lists follow.
use super::setup::{CompareOp, Edge, TriSetup};

/// Opcode of `TILE_BEGIN`.
pub const OP_TILE_BEGIN: u64 = 1;
/// Opcode of `DRAW`.
pub const OP_DRAW: u64 = 2;
/// Opcode of `RESOLVE`.
pub const OP_RESOLVE: u64 = 3;
/// Opcode of `END_TILE`.
pub const OP_END_TILE: u64 = 4;
/// Words of a `DRAW`.
pub const DRAW_WORDS: usize = 10;
/// Words of a `RESOLVE`.
pub const RESOLVE_WORDS: usize = 1;
/// Words of an `END_TILE`.
pub const END_TILE_WORDS: usize = 1;
/// Bits of the primitive id in a `DRAW`.
pub const PRIM_BITS: u32 = 24;
/// Primitives a frame may have for the RTL: its `tile_cmd` keeps 16 bits of the id and 0xFFFF
/// is its drain fence, so ids are `0 ..= 0xFFFE` (the 24-bit field is the encoding's room).
pub const RTL_PRIMS: u64 = 0xFFFF;

/// Checks that `count` primitives of pass `pass` fit the RTL's ids ([`RTL_PRIMS`]).
pub fn check_prim_count(pass: &str, count: u64) -> Result<(), String> {
    match count <= RTL_PRIMS {
        true => Ok(()),
        false => Err(format!(
            "pass `{pass}`: {count} triangles after clipping and culling; the tile engine's \
             primitive ids are 16 bits (0 ..= 0xFFFE, 0xFFFF is its drain fence), so at most \
             {RTL_PRIMS} triangles per pass"
        )),
    }
}
/// Bits of a clear mask (planes a list can name).
pub const MASK_BITS: u32 = 16;

/// Words of a `TILE_BEGIN` clearing the planes of `clear_mask`.
pub fn tile_begin_words(clear_mask: u32) -> usize {
    1 + (clear_mask & 0xFFFF).count_ones() as usize
}

/// A decoded command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Start tile `(x, y)` (in tiles) and clear the planes in `clear_mask`.
    TileBegin {
        /// Tile column.
        x: u32,
        /// Tile row.
        y: u32,
        /// Planes to clear (bit p = plane p), [`MASK_BITS`] bits.
        clear_mask: u32,
        /// Clear values of the planes of `clear_mask`, lowest plane first (one per set bit).
        clears: Vec<u64>,
    },
    /// Rasterise a set-up triangle with draw state `state`.
    Draw {
        /// The pipeline (mesh) index, 8 bits.
        state: u32,
        /// The triangle (its `prim` indexes the primitive buffer).
        tri: TriSetup,
    },
    /// Drain, then run tile shader `program` on `xthreads × ythreads` threads.
    Resolve {
        /// Tile-shader index (model) or address (RTL).
        program: u32,
        /// Thread grid width, 1 ..= 16.
        xthreads: u32,
        /// Thread grid height, 1 ..= 16.
        ythreads: u32,
    },
    /// Write out and finish the tile.
    EndTile,
}

/// A field that does not fit the encoding: the field's name, its value and its valid range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

/// `v` as a `bits`-bit two's-complement field, or an error naming `name`.
fn signed(name: &str, v: i64, bits: u32) -> Result<u64, EncodeError> {
    let lim = 1i64 << (bits - 1);
    if v < -lim || v >= lim {
        return Err(EncodeError(format!(
            "DRAW field {name} = {v} is outside the {bits}-bit range {} ..= {}",
            -lim,
            lim - 1
        )));
    }
    Ok(v as u64 & ((1u64 << bits) - 1))
}

/// `v` as a `bits`-bit unsigned field `lo ..= hi`, or an error naming `name`.
fn unsigned(cmd: &str, name: &str, v: u32, lo: u32, hi: u32) -> Result<u64, EncodeError> {
    if v < lo || v > hi {
        return Err(EncodeError(format!(
            "{cmd} field {name} = {v} is outside {lo} ..= {hi}"
        )));
    }
    Ok(v as u64)
}

/// The `bits`-bit two's-complement field at `lo` of `w`.
fn sext(w: u64, lo: u32, bits: u32) -> i64 {
    ((w >> lo) as i64) << (64 - bits) >> (64 - bits)
}

impl Command {
    /// The command's words, or the first field out of range.
    pub fn encode(&self) -> Result<Vec<u64>, EncodeError> {
        Ok(match self {
            Command::TileBegin {
                x,
                y,
                clear_mask,
                clears,
            } => {
                let x = unsigned("TILE_BEGIN", "tile x", *x, 0, 0xFFFF)?;
                let y = unsigned("TILE_BEGIN", "tile y", *y, 0, 0xFFFF)?;
                let mask = unsigned("TILE_BEGIN", "clear mask", *clear_mask, 0, 0xFFFF)?;
                if clears.len() != clear_mask.count_ones() as usize {
                    return Err(EncodeError(format!(
                        "TILE_BEGIN: {} clear values for clear mask 0x{clear_mask:x} ({} planes)",
                        clears.len(),
                        clear_mask.count_ones()
                    )));
                }
                let mut w = vec![OP_TILE_BEGIN | x << 8 | y << 24 | mask << 40];
                w.extend(clears);
                w
            }
            Command::Draw { state, tri } => {
                let state = unsigned("DRAW", "draw state", *state, 0, 0xFF)?;
                let mut bbox = 0;
                for (k, b) in tri.bbox.iter().enumerate() {
                    bbox |= unsigned("DRAW", "bbox", *b, 0, 7)? << (3 * k);
                }
                let prim = unsigned("DRAW", "primitive id", tri.prim, 0, (1 << PRIM_BITS) - 1)?;
                let tl = (0..3).fold(0, |a, i| a | (tri.edges[i].top_left as u64) << (33 + i));
                let mut w = vec![
                    OP_DRAW
                        | state << 8
                        | bbox << 16
                        | (tri.depth_op as u64) << 28
                        | (tri.depth_write as u64) << 31
                        | (tri.front as u64) << 32
                        | tl
                        | prim << 40,
                ];
                for (i, e) in tri.edges.iter().enumerate() {
                    let rw = tri.rw[i].to_bits() as u64;
                    w.push(
                        signed("a", e.a, 24)? | signed("b", e.b, 24)? << 24 | (rw & 0xFFFF) << 48,
                    );
                }
                for (i, e) in tri.edges.iter().enumerate() {
                    let rw = tri.rw[i].to_bits() as u64;
                    w.push(signed("c", e.c, 48)? | (rw >> 16) << 48);
                }
                w.push(tri.z_c as u64);
                w.push(signed("dzdx", tri.dzdx, 48)?);
                w.push(signed("dzdy", tri.dzdy, 48)?);
                w
            }
            Command::Resolve {
                program,
                xthreads,
                ythreads,
            } => {
                let xt = unsigned("RESOLVE", "xthreads", *xthreads, 1, 16)?;
                let yt = unsigned("RESOLVE", "ythreads", *ythreads, 1, 16)?;
                vec![OP_RESOLVE | xt << 8 | yt << 16 | (*program as u64) << 32]
            }
            Command::EndTile => vec![OP_END_TILE],
        })
    }

    /// Words of the command starting with `w0`, or `None` for an unknown opcode.
    pub fn size(w0: u64) -> Option<usize> {
        match w0 & 0xFF {
            OP_TILE_BEGIN => Some(tile_begin_words((w0 >> 40) as u32)),
            OP_DRAW => Some(DRAW_WORDS),
            OP_RESOLVE => Some(RESOLVE_WORDS),
            OP_END_TILE => Some(END_TILE_WORDS),
            _ => None,
        }
    }

    /// Decodes one command (`w` holds exactly its words).
    pub fn decode(w: &[u64]) -> Option<Command> {
        if Command::size(*w.first()?)? != w.len() {
            return None;
        }
        let w0 = w[0];
        let f = |lo: u32, bits: u32| ((w0 >> lo) & ((1 << bits) - 1)) as u32;
        Some(match w0 & 0xFF {
            OP_TILE_BEGIN => Command::TileBegin {
                x: f(8, 16),
                y: f(24, 16),
                clear_mask: f(40, 16),
                clears: w[1..].to_vec(),
            },
            OP_RESOLVE => Command::Resolve {
                program: f(32, 32),
                xthreads: f(8, 5),
                ythreads: f(16, 5),
            },
            OP_END_TILE => Command::EndTile,
            _ => {
                let edges: [Edge; 3] = std::array::from_fn(|i| Edge {
                    a: sext(w[1 + i], 0, 24),
                    b: sext(w[1 + i], 24, 24),
                    c: sext(w[4 + i], 0, 48),
                    top_left: f(33 + i as u32, 1) != 0,
                });
                let rw = std::array::from_fn(|i| {
                    f32::from_bits((w[1 + i] >> 48 | (w[4 + i] >> 48) << 16) as u32)
                });
                Command::Draw {
                    state: f(8, 8),
                    tri: TriSetup {
                        area2: edges.iter().map(|e| e.c).sum(),
                        edges,
                        bbox: std::array::from_fn(|k| f(16 + 3 * k as u32, 3)),
                        z_c: w[7] as i64,
                        dzdx: sext(w[8], 0, 48),
                        dzdy: sext(w[9], 0, 48),
                        depth_op: CompareOp::ALL[f(28, 3) as usize],
                        depth_write: f(31, 1) != 0,
                        prim: f(40, PRIM_BITS),
                        rw,
                        front: f(32, 1) != 0,
                    },
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::tile::setup::{setup, CullMode, RasterState, Vertex};
    use crate::models::tile::GUARD;

    fn cmds_for(v: &[Vertex; 3], st: &RasterState, prim: u32) -> Vec<Command> {
        let mut out = vec![];
        for tile in [(0, 0), (1, 0), (0, 1), (2, 1), (511, 511)] {
            if let Ok(tri) = setup(v, tile, st, prim) {
                out.push(Command::Draw { state: 3, tri });
            }
        }
        out
    }

    fn round_trip(c: &Command) {
        let w = c.encode().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(Some(w.len()), Command::size(w[0]), "{c:?}");
        assert_eq!(Command::decode(&w).as_ref(), Some(c));
    }

    #[test]
    fn round_trips() {
        let v = [
            Vertex::from_f32(3.3, 1.0, 0.25, 2.0),
            Vertex::from_f32(40.0, 9.5, 0.5, 1.0),
            Vertex::from_f32(7.0, 30.0, 0.75, 4.0),
        ];
        let st = RasterState {
            depth_op: CompareOp::LessOrEqual,
            depth_write: true,
            ..Default::default()
        };
        let mut cmds = cmds_for(&v, &st, 77);
        assert!(cmds.len() >= 3);
        cmds.extend([
            Command::TileBegin {
                x: 5,
                y: 7,
                clear_mask: 0x15,
                clears: vec![0x1234_5678, 0xFFFF_FFFF_FFFF_FFFF, 0xFF_FFFF],
            },
            Command::TileBegin {
                x: 0xFFFF,
                y: 0,
                clear_mask: 0,
                clears: vec![],
            },
            Command::Resolve {
                program: 0xDEAD_BEEF,
                xthreads: 16,
                ythreads: 4,
            },
            Command::EndTile,
        ]);
        for c in &cmds {
            round_trip(c);
        }
        assert_eq!(Command::size(0x99), None);
        assert_eq!(Command::size(OP_TILE_BEGIN | 0x1F << 40), Some(6));
    }

    /// The extreme triangles of the guard band (both windings, far tiles) fit the widths.
    #[test]
    fn guard_band_extremes_fit() {
        let g = (GUARD - 1) as f32 / 256.0;
        let st = RasterState {
            cull: CullMode::None,
            ..Default::default()
        };
        let corners = [(-g, -g), (g, -g), (g, g), (-g, g)];
        let mut n = 0;
        for k in 0..4 {
            let p = |i: usize| corners[(k + i) % 4];
            for order in [[0, 1, 2], [0, 2, 1]] {
                let v = order.map(|i| Vertex::from_f32(p(i).0, p(i).1, 0.5, 1.5));
                let v2 = [v[0], v[1], Vertex::from_f32(0.1, 0.2, 0.0, -3.0)];
                for c in cmds_for(&v, &st, (1 << PRIM_BITS) - 1)
                    .iter()
                    .chain(&cmds_for(&v2, &st, 0))
                {
                    round_trip(c);
                    n += 1;
                }
            }
        }
        assert!(n > 16);
    }

    #[test]
    fn out_of_range_fields_are_errors_naming_them() {
        let bad = Command::Resolve {
            program: 0,
            xthreads: 17,
            ythreads: 1,
        };
        let e = bad.encode().unwrap_err().to_string();
        assert!(e.contains("xthreads") && e.contains("1 ..= 16"), "{e}");
        let bad = Command::TileBegin {
            x: 0,
            y: 0,
            clear_mask: 3,
            clears: vec![0],
        };
        assert!(bad
            .encode()
            .unwrap_err()
            .to_string()
            .contains("clear values"));
        let v = [
            Vertex::from_f32(3.3, 1.0, 0.25, 2.0),
            Vertex::from_f32(40.0, 9.5, 0.5, 1.0),
            Vertex::from_f32(7.0, 30.0, 0.75, 4.0),
        ];
        let Command::Draw { tri, .. } = &cmds_for(&v, &RasterState::default(), 1)[0] else {
            unreachable!()
        };
        let mut t = *tri;
        t.prim = 1 << PRIM_BITS;
        let e = Command::Draw { state: 0, tri: t }
            .encode()
            .unwrap_err()
            .to_string();
        assert!(e.contains("primitive id"), "{e}");
        let mut t = *tri;
        t.edges[1].a = 1 << 23;
        let e = Command::Draw { state: 0, tri: t }
            .encode()
            .unwrap_err()
            .to_string();
        assert!(e.contains("field a"), "{e}");
    }
}
