//! The byte memory behind the SM's L1: programs (instruction chunks) and ASTC texture blocks.

use rendergen_isa::CHUNK_BYTES;
use std::collections::HashMap;

/// Bytes in an ASTC block; block address `b` is byte address `16 · b`.
pub const BLOCK_BYTES: u32 = 16;

/// A sparse 32-bit byte-addressed memory; bytes never written read as 0 (`NOP`).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    chunks: HashMap<u32, [u8; CHUNK_BYTES as usize]>,
}

impl Memory {
    /// An empty memory.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// The byte at `addr`.
    pub fn byte(&self, addr: u32) -> u8 {
        let base = addr & !(CHUNK_BYTES - 1);
        self.chunks
            .get(&base)
            .map_or(0, |c| c[(addr - base) as usize])
    }

    /// Writes `bytes` from `addr` on (wrapping at 2³²).
    pub fn write(&mut self, addr: u32, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u32);
            let base = a & !(CHUNK_BYTES - 1);
            self.chunks.entry(base).or_insert([0; CHUNK_BYTES as usize])[(a - base) as usize] = *b;
        }
    }

    /// `n` bytes from `addr` on.
    pub fn read(&self, addr: u32, n: u32) -> Vec<u8> {
        (0..n).map(|i| self.byte(addr.wrapping_add(i))).collect()
    }

    /// The 32-byte instruction chunk holding `addr`.
    pub fn chunk(&self, addr: u32) -> [u8; CHUNK_BYTES as usize] {
        let base = addr & !(CHUNK_BYTES - 1);
        self.chunks
            .get(&base)
            .copied()
            .unwrap_or([0; CHUNK_BYTES as usize])
    }

    /// The ASTC block at block address `block_addr` (byte address `16 · block_addr`, wrapping).
    pub fn block(&self, block_addr: u32) -> [u8; 16] {
        let bytes = self.read(block_addr.wrapping_mul(BLOCK_BYTES), BLOCK_BYTES);
        bytes.try_into().expect("16 bytes")
    }

    /// Stores `blocks` at consecutive block addresses from `first_block` on.
    pub fn write_blocks(&mut self, first_block: u32, blocks: &[[u8; 16]]) {
        for (i, b) in blocks.iter().enumerate() {
            let at = first_block.wrapping_add(i as u32).wrapping_mul(BLOCK_BYTES);
            self.write(at, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_reads_writes_and_blocks() {
        let mut m = Memory::new();
        assert_eq!(m.byte(0x1234), 0);
        m.write(30, &[1, 2, 3, 4]); // straddles chunks 0 and 32
        assert_eq!(m.read(29, 6), [0, 1, 2, 3, 4, 0]);
        assert_eq!(m.chunk(33)[0..2], [3, 4]);
        m.write_blocks(5, &[[7; 16], [9; 16]]);
        assert_eq!(m.block(5), [7; 16]);
        assert_eq!(m.byte(16 * 6 + 15), 9);
        m.write(u32::MAX, &[0xAA, 0xBB]);
        assert_eq!((m.byte(u32::MAX), m.byte(0)), (0xAA, 0xBB));
    }
}
