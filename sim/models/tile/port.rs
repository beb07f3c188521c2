//! The tile engine's special port as the shader core's `spec d, a, b, imm` instruction sees it
//! (`rtl/shader-isa/ISA.md`; `compiler/shader/ABI.md` "Tile engine images"). The compiler
//! lowers `imageLoad`/`imageStore` on storage images to these functions; the numbers are
//! repeated in `rendergen_shader_compiler::abi` and a test in `gen/tests/raster.rs` checks
//! that both agree.
//!
//! * `imm = op << 8 | plane << 2 | channel`; `plane` is the image's binding: colour render
//!   target 0..=7, [`DEPTH_PLANE`] = 8; [`WRITEOUT_BINDING`] is the write-out control.
//! * `a` = address `x | y << 14 | sample << 28` in screen pixels ([`address`]).
//! * [`OP_LOAD`]: `d` = channel `channel` of the plane's value at `a`, converted as
//!   [`super::pack`] says (colour: binary32; depth: the raw D24 integer).
//! * [`OP_STORE`]: channel `channel` at `a` becomes `b` (converted); `d` = 0.
//! * [`OP_WRITEOUT`]: plane `a`'s write-out for this tile becomes mode `b` ([`WriteMode::code`]).
//!
//! In the tile shader the planes are the tile buffer's; an address outside the current tile
//! (or a sample or plane that does not exist) is an error reported with the thread and
//! address, never a wrap. In a fragment shader (the two-pass lighting pass) the planes are
//! surfaces in external memory written out by an earlier pass (the channel-0 request of a
//! load fetches the texel from memory and is counted; channels 1..3 come from the port's latch
//! of it); `OP_STORE` and `OP_WRITEOUT` are errors there.

/// `op` of a load.
pub const OP_LOAD: u32 = 1;
/// `op` of a store.
pub const OP_STORE: u32 = 2;
/// `op` of a write-out control.
pub const OP_WRITEOUT: u32 = 3;
/// The plane (binding) of depth.
pub const DEPTH_PLANE: u32 = 8;
/// The binding of the write-out control image.
pub const WRITEOUT_BINDING: u32 = 15;

/// The function code of `op` on `plane`, channel `channel`.
pub fn function(op: u32, plane: u32, channel: u32) -> u32 {
    op << 8 | plane << 2 | channel
}

/// `(op, plane, channel)` of a function code.
pub fn decode(func: u32) -> (u32, u32, u32) {
    (func >> 8, (func >> 2) & 0x3F, func & 3)
}

/// The address operand of pixel `(x, y)`, sample `s`.
pub fn address(x: u32, y: u32, s: u32) -> u32 {
    (x & 0x3FFF) | (y & 0x3FFF) << 14 | s << 28
}

/// `(x, y, sample)` of an address operand.
pub fn split_address(a: u32) -> (u32, u32, u32) {
    (a & 0x3FFF, (a >> 14) & 0x3FFF, a >> 28)
}

/// How write-out treats one plane of a tile (static configuration or the tile shader's choice).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Not written (suppressed).
    Off,
    /// One value per pixel: the average of its samples.
    #[default]
    Average,
    /// One value per pixel: sample `s`.
    Sample(u32),
    /// Every sample (a multisampled surface in memory).
    All,
}

impl WriteMode {
    /// The code the port and the scene file use: 0 off, 1 average, 2 + s sample s, 6 all.
    pub fn code(self) -> u32 {
        match self {
            WriteMode::Off => 0,
            WriteMode::Average => 1,
            WriteMode::Sample(s) => 2 + s,
            WriteMode::All => 6,
        }
    }

    /// The mode of a code.
    pub fn from_code(c: u32) -> Option<WriteMode> {
        Some(match c {
            0 => WriteMode::Off,
            1 => WriteMode::Average,
            2..=5 => WriteMode::Sample(c - 2),
            6 => WriteMode::All,
            _ => return None,
        })
    }

    /// Samples per pixel the mode stores (of `samples` in the tile buffer).
    pub fn stored_samples(self, samples: u32) -> u32 {
        match self {
            WriteMode::All => samples,
            _ => 1,
        }
    }
}
