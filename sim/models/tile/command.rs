//! The per-tile command lists the tiler writes and the command-list processor reads
//! (issue 13 §1; `tiles-and-allocation.md` A.6, A.10.2 `ts_cmd_proc`).
//!
//! # Encoding
//! Every command is a whole number of 32-bit little-endian words; the low byte of the first
//! word is the opcode, and each opcode has one fixed size:
//!
//! | op | command | words | fields |
//! |---|---|---|---|
//! | 1 | `TILE_BEGIN` | 2 | w0 `[15:8]` unused, `[31:16]` clear mask (bit p = plane p; colour RTs, then depth); w1 tile x `[15:0]`, tile y `[31:16]` (in tiles) |
//! | 2 | `DRAW` | 26 | see below |
//! | 3 | `RESOLVE` | 2 | w0 `[15:8]` program (tile-shader index of the frame); w1 xthreads `[7:0]`, ythreads `[15:8]` |
//! | 4 | `END_TILE` | 1 | — |
//!
//! `DRAW` (104 bytes) carries one triangle already set up for this tile ([`TriSetup`]):
//! * w0: `[15:8]` draw state (the mesh's pipeline index), `[18:16]` depth op (`VkCompareOp`),
//!   `[19]` depth write, `[20]` front facing, `[23:21]` top-left flags of edges 0..2;
//! * w1: primitive id (index into the frame's varying buffer, 3 vertices per primitive);
//! * w2..w13: per edge i: `a` (i32), `b` (i32), `c` (i64, low word first);
//! * w14, w15: `area2` (i64); w16: bbox `qx0 | qy0 << 8 | qx1 << 16 | qy1 << 24`;
//! * w17..w22: `z_c`, `dzdx`, `dzdy` (i64 each); w23..w25: `rw` of the vertices (binary32).
//!
//! The clear values of `TILE_BEGIN` are pass state (registers), not list data.
use super::setup::{CompareOp, Edge, TriSetup};

/// Opcode of `TILE_BEGIN`.
pub const OP_TILE_BEGIN: u32 = 1;
/// Opcode of `DRAW`.
pub const OP_DRAW: u32 = 2;
/// Opcode of `RESOLVE`.
pub const OP_RESOLVE: u32 = 3;
/// Opcode of `END_TILE`.
pub const OP_END_TILE: u32 = 4;
/// Words of a `DRAW`.
pub const DRAW_WORDS: usize = 26;

/// A decoded command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Start tile `(x, y)` (in tiles) and clear the planes in `clear_mask`.
    TileBegin {
        /// Tile column.
        x: u32,
        /// Tile row.
        y: u32,
        /// Planes to clear.
        clear_mask: u32,
    },
    /// Rasterise a set-up triangle with draw state `state`.
    Draw {
        /// The pipeline (mesh) index.
        state: u32,
        /// The triangle (its `prim` indexes the varying buffer).
        tri: TriSetup,
    },
    /// Drain, then run tile shader `program` on `xthreads × ythreads` threads.
    Resolve {
        /// Tile-shader index.
        program: u32,
        /// Thread grid width.
        xthreads: u32,
        /// Thread grid height.
        ythreads: u32,
    },
    /// Write out and finish the tile.
    EndTile,
}

fn split(v: i64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

fn join(lo: u32, hi: u32) -> i64 {
    (lo as u64 | (hi as u64) << 32) as i64
}

impl Command {
    /// The command's words.
    pub fn encode(&self) -> Vec<u32> {
        match self {
            Command::TileBegin { x, y, clear_mask } => {
                vec![OP_TILE_BEGIN | clear_mask << 16, x | y << 16]
            }
            Command::Draw { state, tri } => {
                let tl = (0..3).fold(0, |a, i| a | (tri.edges[i].top_left as u32) << (21 + i));
                let mut w = vec![
                    OP_DRAW
                        | (state & 0xFF) << 8
                        | (tri.depth_op as u32) << 16
                        | (tri.depth_write as u32) << 19
                        | (tri.front as u32) << 20
                        | tl,
                    tri.prim,
                ];
                for e in &tri.edges {
                    w.extend([e.a as i32 as u32, e.b as i32 as u32]);
                    w.extend(split(e.c));
                }
                w.extend(split(tri.area2));
                let [a, b, c, d] = tri.bbox;
                w.push(a | b << 8 | c << 16 | d << 24);
                for v in [tri.z_c, tri.dzdx, tri.dzdy] {
                    w.extend(split(v));
                }
                w.extend(tri.rw.map(f32::to_bits));
                w
            }
            Command::Resolve {
                program,
                xthreads,
                ythreads,
            } => vec![OP_RESOLVE | (program & 0xFF) << 8, xthreads | ythreads << 8],
            Command::EndTile => vec![OP_END_TILE],
        }
    }

    /// Words of the command starting with `w0`, or `None` for an unknown opcode.
    pub fn size(w0: u32) -> Option<usize> {
        match w0 & 0xFF {
            OP_TILE_BEGIN | OP_RESOLVE => Some(2),
            OP_DRAW => Some(DRAW_WORDS),
            OP_END_TILE => Some(1),
            _ => None,
        }
    }

    /// Decodes one command (`w` holds exactly its words).
    pub fn decode(w: &[u32]) -> Option<Command> {
        if Command::size(*w.first()?)? != w.len() {
            return None;
        }
        Some(match w[0] & 0xFF {
            OP_TILE_BEGIN => Command::TileBegin {
                x: w[1] & 0xFFFF,
                y: w[1] >> 16,
                clear_mask: w[0] >> 16,
            },
            OP_RESOLVE => Command::Resolve {
                program: (w[0] >> 8) & 0xFF,
                xthreads: w[1] & 0xFF,
                ythreads: (w[1] >> 8) & 0xFF,
            },
            OP_END_TILE => Command::EndTile,
            _ => {
                let edges = std::array::from_fn(|i| {
                    let b = 2 + 4 * i;
                    let a = w[b] as i32 as i64;
                    Edge {
                        a,
                        b: w[b + 1] as i32 as i64,
                        c: join(w[b + 2], w[b + 3]),
                        top_left: (w[0] >> (21 + i)) & 1 != 0,
                    }
                });
                Command::Draw {
                    state: (w[0] >> 8) & 0xFF,
                    tri: TriSetup {
                        edges,
                        area2: join(w[14], w[15]),
                        bbox: [
                            w[16] & 0xFF,
                            (w[16] >> 8) & 0xFF,
                            (w[16] >> 16) & 0xFF,
                            w[16] >> 24,
                        ],
                        z_c: join(w[17], w[18]),
                        dzdx: join(w[19], w[20]),
                        dzdy: join(w[21], w[22]),
                        depth_op: CompareOp::ALL[((w[0] >> 16) & 7) as usize],
                        depth_write: (w[0] >> 19) & 1 != 0,
                        prim: w[1],
                        rw: [w[23], w[24], w[25]].map(f32::from_bits),
                        front: (w[0] >> 20) & 1 != 0,
                    },
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::tile::setup::{setup, RasterState, Vertex};

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
        for tile in [(0, 0), (1, 0), (0, 1), (2, 1)] {
            let tri = match setup(&v, tile, &st, 77) {
                Ok(t) => t,
                Err(_) => continue,
            };
            let cmds = [
                Command::TileBegin {
                    x: tile.0,
                    y: tile.1,
                    clear_mask: 0x1F,
                },
                Command::Draw { state: 3, tri },
                Command::Resolve {
                    program: 1,
                    xthreads: 16,
                    ythreads: 4,
                },
                Command::EndTile,
            ];
            for c in cmds {
                let w = c.encode();
                assert_eq!(Some(w.len()), Command::size(w[0]));
                assert_eq!(Command::decode(&w), Some(c));
            }
        }
        assert_eq!(Command::size(0x99), None);
    }
}
