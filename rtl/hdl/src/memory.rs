//! Memories: synchronous write ports, synchronous or combinational read ports, initial contents.
//!
//! Semantics (simulator and emitted Verilog agree): writes happen at the clock edge; a synchronous
//! read port registers `mem[addr]` at the edge when enabled, reading the contents *before* that
//! edge's writes (read-first); a combinational read port shows the current contents. When two
//! write ports hit one word in one cycle, the later-declared port wins. Addresses are exactly
//! `clog2(depth)` bits; reading beyond `depth` (non-power-of-two depths) is undefined.

use crate::bits::Bits;
use crate::ctx;
use crate::error::ErrorKind;
use crate::ir::{Loc, Memory, Op, ReadPort, WritePort};
use crate::module::Module;
use crate::sig::Sig;
use std::panic::Location;

/// Bits needed to address `depth` words (at least 1).
pub fn clog2(depth: u64) -> u32 {
    (64 - (depth.max(2) - 1).leading_zeros()).max(1)
}

/// A handle to a memory of the module under construction.
#[derive(Clone, Copy, Debug)]
pub struct Mem {
    module: u32,
    index: u32,
    width: u32,
    addr_width: u32,
}

impl Module {
    /// Declares a memory of `depth` words of `width` bits.
    #[track_caller]
    pub fn memory(&mut self, name: &str, width: u32, depth: u32) -> Mem {
        let loc = Location::caller();
        ctx::with(|c| {
            if width == 0 || depth == 0 {
                c.error(
                    ErrorKind::Invalid,
                    loc,
                    format!("memory `{name}` needs width ≥ 1 and depth ≥ 1 (got {width}×{depth})"),
                );
            }
            let name = c.unique_local(name);
            let def = &mut c.top().def;
            def.mems.push(Memory {
                name,
                width: width.max(1),
                depth: depth.max(1),
                init: None,
                writes: Vec::new(),
                reads: Vec::new(),
                collisions_undefined: false,
                loc,
            });
            Mem {
                module: c.top().uid,
                index: (c.top().def.mems.len() - 1) as u32,
                width: width.max(1),
                addr_width: clog2(depth.max(1) as u64),
            }
        })
    }
}

impl Mem {
    /// Word width.
    pub fn width(self) -> u32 {
        self.width
    }

    /// Address width (`clog2(depth)`).
    pub fn addr_width(self) -> u32 {
        self.addr_width
    }

    /// Declares cross-port collisions undefined in hardware: a word written by one port in a
    /// cycle in which another port reads or writes it may give any value (the simulator keeps
    /// its deterministic result: read-first, later port wins). This is the contract of
    /// vendor true dual-port RAMs (ECP5 DP16KD, Xilinx and Intel TDP blocks); the emitted
    /// Verilog says so with `(* no_rw_check *)`, which lets Yosys map the memory to them.
    /// Same-port read-during-write stays read-first.
    pub fn collisions_undefined(self) -> Mem {
        ctx::with(|c| c.top().def.mems[self.index as usize].collisions_undefined = true);
        self
    }

    /// Sets the initial contents from integers (word 0 first; each must fit the width).
    #[track_caller]
    pub fn init(self, words: &[u64]) -> Mem {
        let loc = Location::caller();
        let bits = words
            .iter()
            .map(|w| Bits::from_u64(*w, self.width))
            .collect();
        if self.width < 64 && words.iter().any(|w| w >> self.width != 0) {
            ctx::with(|c| {
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!("initial contents do not fit the {}-bit words", self.width),
                )
            });
        }
        self.init_bits(bits, loc)
    }

    fn init_bits(self, words: Vec<Bits>, loc: Loc) -> Mem {
        ctx::with(|c| {
            let mem = &mut c.top().def.mems[self.index as usize];
            if words.len() > mem.depth as usize {
                let msg = format!(
                    "memory `{}` has {} words but {} initial values were given",
                    mem.name,
                    mem.depth,
                    words.len()
                );
                c.error(ErrorKind::Invalid, loc, msg);
                return;
            }
            mem.init = Some(words);
        });
        self
    }

    /// Sets the initial contents from bit vectors of any width.
    #[track_caller]
    pub fn init_wide(self, words: Vec<Bits>) -> Mem {
        let w = self.width;
        self.init_bits(
            words.into_iter().map(|b| b.resized(w)).collect(),
            Location::caller(),
        )
    }

    fn check(self, what: &str, s: Sig, width: u32, loc: Loc) -> u32 {
        ctx::with(|c| {
            if c.top().uid != self.module {
                c.error(
                    ErrorKind::ForeignSignal,
                    loc,
                    "memory of another module".into(),
                );
            }
            let n = c.operand(s, loc);
            if s.width != width {
                let name = c.top().def.mems[self.index as usize].name.clone();
                let d = c.describe(n);
                c.error(
                    ErrorKind::WidthMismatch,
                    loc,
                    format!(
                        "{what} of memory `{name}` must be {width} bits; {d} is {} bits",
                        s.width
                    ),
                );
                return c.dummy(width, loc);
            }
            n
        })
    }

    /// Adds a write port: at the clock edge, if `enable`, `mem[addr] <= data`.
    #[track_caller]
    pub fn write(self, enable: Sig, addr: Sig, data: Sig) {
        let loc = Location::caller();
        let enable = self.check("write enable", enable, 1, loc);
        let addr = self.check("write address", addr, self.addr_width, loc);
        let data = self.check("write data", data, self.width, loc);
        ctx::with(|c| {
            c.top().def.mems[self.index as usize]
                .writes
                .push(WritePort { enable, addr, data })
        });
    }

    /// Adds a combinational read port: `mem[addr]` now.
    #[track_caller]
    pub fn read_comb(self, addr: Sig) -> Sig {
        self.read(addr, None, false, Location::caller())
    }

    /// Adds a synchronous read port: the data of `addr` one clock later (read-first), updated
    /// only in cycles where `enable` is 1 (pass `None` for always).
    #[track_caller]
    pub fn read_sync(self, addr: Sig, enable: Option<Sig>) -> Sig {
        self.read(addr, enable, true, Location::caller())
    }

    fn read(self, addr: Sig, enable: Option<Sig>, sync: bool, loc: Loc) -> Sig {
        let addr = self.check("read address", addr, self.addr_width, loc);
        let enable = enable.map(|e| self.check("read enable", e, 1, loc));
        ctx::with(|c| {
            let mem = &c.top().def.mems[self.index as usize];
            let port = mem.reads.len() as u32;
            let name = format!(
                "{}_rdata{}",
                mem.name,
                if port == 0 {
                    String::new()
                } else {
                    port.to_string()
                }
            );
            let s = c.sig(
                Op::MemRead {
                    mem: self.index,
                    port,
                },
                self.width,
                loc,
            );
            let name = c.unique_local(&name);
            c.top().def.nodes[s.node as usize].name = Some(name);
            c.top().def.mems[self.index as usize].reads.push(ReadPort {
                addr,
                sync,
                enable,
                node: s.node,
            });
            s
        })
    }
}

#[cfg(test)]
mod tests {
    use super::clog2;

    #[test]
    fn clog2_values() {
        assert_eq!(clog2(1), 1);
        assert_eq!(clog2(2), 1);
        assert_eq!(clog2(3), 2);
        assert_eq!(clog2(16), 4);
        assert_eq!(clog2(17), 5);
    }
}
