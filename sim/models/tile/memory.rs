//! A byte-accurate model of the tile engine's external memory (issue 13 §1 "Memory"): named
//! regions at fixed addresses, per-region read and write byte counters, and a poison value for
//! bytes never written (a read of one is counted per region, so a test can assert that no input
//! was read before it was produced).
//!
//! Regions are allocated at increasing, 4 KiB-aligned addresses from `0x1000_0000`; an access
//! must lie inside one region (an access that straddles regions or hits no region is an
//! error naming the address). Reads and writes are little-endian.

use std::fmt;

/// The byte a never-written location reads as.
pub const POISON: u8 = 0xCD;
/// The first region's address.
pub const BASE: u64 = 0x1000_0000;
const ALIGN: u64 = 0x1000;

/// A region's identity (its index in allocation order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegionId(pub usize);

/// One region and its counters.
#[derive(Clone, Debug)]
pub struct Region {
    /// Its name (e.g. `vertex data`, `command lists`, `rt1 normal`).
    pub name: String,
    /// What the region holds, for grouping in reports (e.g. `g-buffer`, `output`).
    pub class: String,
    /// First byte address.
    pub base: u64,
    data: Vec<u8>,
    written: Vec<bool>,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub written_bytes: u64,
    /// Bytes read that had never been written (they read as [`POISON`]).
    pub poison_reads: u64,
}

impl Region {
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.data.len() as u64
    }

    /// The region's bytes (never-written ones are [`POISON`]), without counting a read.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// Whether byte `offset` was ever written.
    pub fn was_written(&self, offset: u64) -> bool {
        self.written[offset as usize]
    }

    /// Bytes of the region ever written.
    pub fn bytes_touched(&self) -> u64 {
        self.written.iter().filter(|&&w| w).count() as u64
    }
}

/// An access outside every region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadAccess {
    /// The address.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// `"read"` or `"write"`.
    pub kind: &'static str,
}

impl fmt::Display for BadAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} bytes at 0x{:x} is outside every memory region",
            self.kind, self.len, self.addr
        )
    }
}

/// The memory.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    regions: Vec<Region>,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Allocates a region of `size` bytes (all poison) named `name` of class `class`.
    pub fn alloc(&mut self, name: &str, class: &str, size: u64) -> RegionId {
        let base = self.regions.last().map_or(BASE, |r| {
            (r.base + r.size()).div_ceil(ALIGN) * ALIGN + ALIGN
        });
        self.regions.push(Region {
            name: name.to_string(),
            class: class.to_string(),
            base,
            data: vec![POISON; size as usize],
            written: vec![false; size as usize],
            read_bytes: 0,
            written_bytes: 0,
            poison_reads: 0,
        });
        RegionId(self.regions.len() - 1)
    }

    /// Every region in allocation order.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// One region.
    pub fn region(&self, id: RegionId) -> &Region {
        &self.regions[id.0]
    }

    /// The base address of a region.
    pub fn base(&self, id: RegionId) -> u64 {
        self.regions[id.0].base
    }

    fn find(&self, addr: u64, len: u64, kind: &'static str) -> Result<(usize, usize), BadAccess> {
        let i = self.regions.partition_point(|r| r.base <= addr);
        let bad = BadAccess { addr, len, kind };
        let Some(i) = i.checked_sub(1) else {
            return Err(bad);
        };
        let r = &self.regions[i];
        match addr + len <= r.base + r.size() {
            true => Ok((i, (addr - r.base) as usize)),
            false => Err(bad),
        }
    }

    /// Reads `out.len()` bytes at `addr` (counted).
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), BadAccess> {
        let (i, o) = self.find(addr, out.len() as u64, "read")?;
        let r = &mut self.regions[i];
        out.copy_from_slice(&r.data[o..o + out.len()]);
        r.read_bytes += out.len() as u64;
        r.poison_reads += r.written[o..o + out.len()].iter().filter(|&&w| !w).count() as u64;
        Ok(())
    }

    /// Writes `bytes` at `addr` (counted).
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), BadAccess> {
        let (i, o) = self.find(addr, bytes.len() as u64, "write")?;
        let r = &mut self.regions[i];
        r.data[o..o + bytes.len()].copy_from_slice(bytes);
        r.written[o..o + bytes.len()].fill(true);
        r.written_bytes += bytes.len() as u64;
        Ok(())
    }

    /// Puts `bytes` at `addr` without counting (the host's upload of inputs before a frame).
    pub fn preload(&mut self, addr: u64, bytes: &[u8]) -> Result<(), BadAccess> {
        let (i, o) = self.find(addr, bytes.len() as u64, "write")?;
        let r = &mut self.regions[i];
        r.data[o..o + bytes.len()].copy_from_slice(bytes);
        r.written[o..o + bytes.len()].fill(true);
        Ok(())
    }

    /// Reads without counting (a value already fetched, e.g. the other channels of a texel).
    pub fn peek(&self, addr: u64, out: &mut [u8]) -> Result<(), BadAccess> {
        let (i, o) = self.find(addr, out.len() as u64, "read")?;
        out.copy_from_slice(&self.regions[i].data[o..o + out.len()]);
        Ok(())
    }

    /// Reads a little-endian word.
    pub fn read_u32(&mut self, addr: u64) -> Result<u32, BadAccess> {
        let mut b = [0; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Writes a little-endian word.
    pub fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), BadAccess> {
        self.write(addr, &v.to_le_bytes())
    }

    /// Reads consecutive little-endian words.
    pub fn read_words(&mut self, addr: u64, n: usize) -> Result<Vec<u32>, BadAccess> {
        let mut b = vec![0; 4 * n];
        self.read(addr, &mut b)?;
        Ok(b.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Writes consecutive little-endian words.
    pub fn write_words(&mut self, addr: u64, words: &[u32]) -> Result<(), BadAccess> {
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write(addr, &b)
    }

    /// Total bytes read and written over every region.
    pub fn totals(&self) -> (u64, u64) {
        self.regions
            .iter()
            .fold((0, 0), |(r, w), x| (r + x.read_bytes, w + x.written_bytes))
    }

    /// Poison bytes read over every region.
    pub fn poison_reads(&self) -> u64 {
        self.regions.iter().map(|r| r.poison_reads).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_poison_and_bounds() {
        let mut m = Memory::new();
        let a = m.alloc("a", "x", 10);
        let b = m.alloc("b", "y", 8);
        assert!(m.base(b) >= m.base(a) + 10 + ALIGN);
        m.write_u32(m.base(a) + 4, 0x1122_3344).unwrap();
        let mut buf = [0u8; 8];
        m.read(m.base(a) + 2, &mut buf).unwrap();
        assert_eq!(
            buf,
            [POISON, POISON, 0x44, 0x33, 0x22, 0x11, POISON, POISON]
        );
        assert_eq!(m.region(a).poison_reads, 4);
        assert_eq!((m.region(a).read_bytes, m.region(a).written_bytes), (8, 4));
        assert!(m.read_u32(m.base(a) + 8).is_err(), "straddles the end");
        assert!(m.write_u32(m.base(a) + 12, 0).is_err(), "between regions");
        assert!(m.read_u32(0).is_err());
        assert_eq!(m.region(b).bytes_touched(), 0);
        assert_eq!(m.totals(), (8, 4));
    }
}
