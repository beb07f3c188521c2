//! Instruction selection: one flat node becomes an alias, a folded constant, a narrow
//! instruction or a multi-word operation.

use super::compile::{Builder, Sink};
use super::program::*;
use rendergen_hdl::bits::words_for;
use rendergen_hdl::ir::{BinOp, NodeId, Op, UnOp};

impl Builder<'_> {
    /// Compiles one live node that has no place yet.
    pub(super) fn node(&mut self, id: NodeId, sink: Sink) {
        let node = &self.flat.nodes[id as usize];
        let w = node.width;
        let mut all_const = true;
        let mut widest = 0;
        self.flat.comb_operands(id, |a| {
            all_const &= self.is_const[a as usize];
            widest = widest.max(self.flat.nodes[a as usize].width);
        });
        let pure = !matches!(node.op, Op::MemRead { .. });
        let sink = if all_const && pure { Sink::Const } else { sink };
        let sl = |b: &Self, x: NodeId| b.place[x as usize];
        match &node.op {
            Op::Const(bits) => {
                let d = self.alloc(w, false);
                let words = bits.resized(w);
                let n = words.words().len();
                self.m.v[d as usize..d as usize + n].copy_from_slice(words.words());
                self.place[id as usize] = d;
                self.is_const[id as usize] = true;
                return;
            }
            Op::Wire(Some(src)) => return self.alias(id, *src),
            Op::Concat(parts) if parts.len() == 1 => return self.alias(id, parts[0]),
            Op::Extend { a, signed } if w == self.width(*a) || (!signed && w <= 64) => {
                return self.alias(id, *a)
            }
            Op::Slice { a, lo: 0 } if w == self.width(*a) => return self.alias(id, *a),
            // The top word(s) of a wide value from a word boundary: those words, as they are
            // (bits above the width are zero).
            Op::Slice { a, lo } if lo.is_multiple_of(64) && lo + w == self.width(*a) => {
                self.alias(id, *a);
                self.place[id as usize] += lo / 64;
                return;
            }
            Op::Mux {
                sel,
                on_true,
                on_false,
            } if self.is_const[*sel as usize] => {
                let s = self.m.v[sl(self, *sel) as usize];
                return self.alias(id, if s != 0 { *on_true } else { *on_false });
            }
            _ => {}
        }
        let d = self.alloc(w, false);
        self.place[id as usize] = d;
        self.is_const[id as usize] = sink == Sink::Const;
        let narrow = w <= 64 && widest <= 64;
        let wb = w as u8;
        match node.op.clone() {
            Op::Wire(_) | Op::Const(_) | Op::Input(_) | Op::Reg(_) | Op::InstOut { .. } => {
                // Undriven (rejected by elaboration) or already allocated: stays zero.
            }
            Op::MemRead { mem, .. } => {
                let rp = self.flat.mems[mem as usize]
                    .reads
                    .iter()
                    .find(|r| r.node == id)
                    .expect("read port of its node")
                    .clone();
                let addr = self.index(rp.addr, sink);
                if words_for(w) == 1 {
                    self.emit(Ins::MemRd { d, mem, addr }, sink)
                } else {
                    self.emit_wide(WideOp::MemRd { d, mem, addr }, sink)
                }
            }
            Op::Unary(op, a) => {
                let wa = self.width(a);
                let a = sl(self, a);
                let ins = match op {
                    _ if !narrow => None,
                    UnOp::Not => Some(Ins::Not { d, a, w: wb }),
                    UnOp::Neg => Some(Ins::Neg { d, a, w: wb }),
                    UnOp::RedAnd => Some(Ins::RedAnd { d, a, w: wa as u8 }),
                    UnOp::RedOr => Some(Ins::RedOr { d, a }),
                    UnOp::RedXor => Some(Ins::RedXor { d, a }),
                };
                match ins {
                    Some(ins) => self.emit(ins, sink),
                    None => self.emit_wide(WideOp::Un { op, d, a, w, wa }, sink),
                }
            }
            Op::Binary(op, a, b) => {
                let wa = self.width(a);
                let narrow = w <= 64 && wa <= 64 && (op.is_shift() || self.width(b) <= 64);
                let a = sl(self, a);
                let b = if op.is_shift() {
                    self.index(b, sink)
                } else {
                    sl(self, b)
                };
                if narrow {
                    self.emit(binary(op, d, a, b, wa as u8), sink)
                } else {
                    self.emit_wide(WideOp::Bin { op, d, a, b, w, wa }, sink)
                }
            }
            Op::Mux {
                sel,
                on_true,
                on_false,
            } => {
                let (s, t, f) = (sl(self, sel), sl(self, on_true), sl(self, on_false));
                if narrow {
                    self.emit(Ins::Mux { d, s, t, f }, sink)
                } else {
                    let n = words_for(w) as u32;
                    self.emit_wide(WideOp::Mux { d, s, t, f, n }, sink)
                }
            }
            Op::Concat(parts) => {
                let first = parts[0];
                if narrow && self.width(first) == 1 && parts.iter().all(|p| *p == first) {
                    // Replication of one bit: 0 or all ones, `-bit` at width `w`.
                    let a = sl(self, first);
                    self.emit(Ins::Neg { d, a, w: wb }, sink)
                } else if narrow {
                    let mut hi = sl(self, parts[0]);
                    for &p in &parts[1..] {
                        let (lo, sh) = (sl(self, p), self.width(p) as u8);
                        self.emit(Ins::Cat2 { d, hi, lo, sh }, sink);
                        hi = d;
                    }
                } else {
                    let parts = parts.iter().map(|p| (sl(self, *p), self.width(*p)));
                    let parts = parts.collect();
                    self.emit_wide(WideOp::Concat { d, w, parts }, sink)
                }
            }
            Op::Slice { a, lo } => {
                let wa = self.width(a);
                let a = sl(self, a);
                if narrow || (w <= 64 && lo % 64 + w <= 64) {
                    // A narrow field of a wide value within one word reads that word.
                    self.emit(
                        Ins::Slice {
                            d,
                            a: a + lo / 64,
                            lo: (lo % 64) as u8,
                            w: wb,
                        },
                        sink,
                    )
                } else {
                    self.emit_wide(WideOp::Slice { d, a, wa, lo, w }, sink)
                }
            }
            Op::Extend { a, signed } => {
                let wa = self.width(a);
                let a = sl(self, a);
                if narrow {
                    self.emit(
                        Ins::Sext {
                            d,
                            a,
                            wa: wa as u8,
                            w: wb,
                        },
                        sink,
                    )
                } else {
                    self.emit_wide(
                        WideOp::Extend {
                            d,
                            a,
                            wa,
                            w,
                            signed,
                        },
                        sink,
                    )
                }
            }
            Op::Select {
                index,
                cases,
                default,
            } => {
                let idx = self.index(index, sink);
                let mut places: Vec<Place> = cases.iter().map(|c| sl(self, *c)).collect();
                let default = sl(self, default);
                let n = cases.len() as u32;
                if w <= 64 {
                    let start = self.prog.sel_tab.len() as u32;
                    places.push(default);
                    self.prog.sel_tab.extend(places);
                    self.emit(Ins::Select { d, idx, start, n }, sink)
                } else {
                    let (cases, n) = (places, words_for(w) as u32);
                    let op = WideOp::Select {
                        d,
                        idx,
                        cases,
                        default,
                        n,
                    };
                    self.emit_wide(op, sink)
                }
            }
            Op::Lut { index, table } => {
                let idx = self.index(index, sink);
                let entries = table.len() as u32;
                if w <= 64 {
                    let start = self.prog.lut_tab.len() as u32;
                    let vals = table.iter().map(|b| b.resized(w).to_u64());
                    self.prog.lut_tab.extend(vals);
                    self.emit(
                        Ins::Lut {
                            d,
                            idx,
                            start,
                            n: entries,
                        },
                        sink,
                    )
                } else {
                    let n = words_for(w) as u32;
                    let t = table.iter().flat_map(|b| b.resized(w).words().to_vec());
                    let table = t.collect();
                    let op = WideOp::Lut {
                        d,
                        idx,
                        table,
                        entries,
                        n,
                    };
                    self.emit_wide(op, sink)
                }
            }
        }
    }
}

/// The narrow instruction for a binary operation (`w` is the operand width).
fn binary(op: BinOp, d: Place, a: Place, b: Place, w: u8) -> Ins {
    match op {
        BinOp::Add => Ins::Add { d, a, b, w },
        BinOp::Sub => Ins::Sub { d, a, b, w },
        BinOp::Mul => Ins::Mul { d, a, b, w },
        BinOp::And => Ins::And { d, a, b },
        BinOp::Or => Ins::Or { d, a, b },
        BinOp::Xor => Ins::Xor { d, a, b },
        BinOp::Shl => Ins::Shl { d, a, b, w },
        BinOp::Shr => Ins::Shr { d, a, b, w },
        BinOp::Sra => Ins::Sra { d, a, b, w },
        BinOp::Eq => Ins::Eq { d, a, b },
        BinOp::Ne => Ins::Ne { d, a, b },
        BinOp::Lt => Ins::Lt { d, a, b },
        BinOp::Le => Ins::Le { d, a, b },
        BinOp::SLt => Ins::SLt { d, a, b, w },
        BinOp::SLe => Ins::SLe { d, a, b, w },
    }
}
