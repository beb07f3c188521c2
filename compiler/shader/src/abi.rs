//! The ABI between compiled programs and what launches them (the tile engine, the texture
//! unit, `rendergen shader run`). `ABI.md` explains it; these are its numbers.

use naga::{BuiltIn, ShaderStage};

/// The first register of the location inputs: input location `l` component `c` is register
/// `INPUT_BASE + 4·l + c` at launch.
pub const INPUT_BASE: u8 = 8;
/// The highest input location (`8 + 4·13 + 3 = 63`, the last register of a 64-register core).
pub const MAX_INPUT_LOCATION: u32 = 13;
/// Uniform bindings (group 0) the ABI maps: binding `b` starts at uniform word `256·b`.
pub const UNIFORM_BINDINGS: u32 = 16;
/// Uniform words per binding.
pub const UNIFORM_WORDS_PER_BINDING: u32 = 256;
/// Storage-buffer bindings (group 0) the ABI maps.
pub const STORAGE_BINDINGS: u32 = 16;

/// The global-memory byte address of storage binding `b`: `b · 2^24` (16 MiB each).
pub fn storage_address(b: u32) -> u32 {
    b << 24
}

/// `spec` operation: an image load (`imageLoad`).
pub const SPEC_LOAD: u32 = 1;
/// `spec` operation: an image store (`imageStore`), one channel.
pub const SPEC_STORE: u32 = 2;
/// `spec` operation: a write-out control (`imageStore` to [`WRITEOUT_BINDING`]).
pub const SPEC_WRITEOUT: u32 = 3;
/// The storage-image binding of the tile's depth plane (colour render targets are 0..=7).
pub const TILE_DEPTH_BINDING: u32 = 8;
/// The storage-image binding of the write-out control.
pub const WRITEOUT_BINDING: u32 = 15;

/// The `spec` function code of `op` on image `binding`, channel `channel`
/// (`op << 8 | binding << 2 | channel`).
pub fn spec_function(op: u32, binding: u32, channel: u32) -> u32 {
    op << 8 | binding << 2 | channel
}

/// The export location of the vertex position (`gl_Position`, `@builtin(position)` output).
pub const POSITION_EXPORT: u32 = 0x100;
/// The export location of the fragment depth (`gl_FragDepth`, `@builtin(frag_depth)`).
pub const FRAG_DEPTH_EXPORT: u32 = 0x101;

/// The register of the first component of input location `loc` with `n` components.
pub fn input_register(loc: u32, n: usize) -> Option<u8> {
    (loc <= MAX_INPUT_LOCATION && n <= 4).then(|| INPUT_BASE + 4 * loc as u8)
}

/// The first register of a built-in input of `stage` (its components follow), or `None` if
/// the stage does not have it.
///
/// | stage | register | built-in |
/// |---|---|---|
/// | fragment | r0..r3 | frag coord (x, y, z, w) |
/// | fragment | r4 | front facing (1 or 0) |
/// | fragment | r5 | sample index |
/// | vertex | r0 | vertex index |
/// | vertex | r1 | instance index |
/// | compute | r0..r2 | global invocation id |
/// | compute | r3..r5 | local invocation id |
/// | compute | r6 | local invocation index |
/// | compute | r7..r9 | workgroup id |
pub fn builtin_register(stage: ShaderStage, b: BuiltIn) -> Option<u8> {
    Some(match (stage, b) {
        (ShaderStage::Fragment, BuiltIn::Position { .. }) => 0,
        (ShaderStage::Fragment, BuiltIn::FrontFacing) => 4,
        (ShaderStage::Fragment, BuiltIn::SampleIndex) => 5,
        (ShaderStage::Vertex, BuiltIn::VertexIndex) => 0,
        (ShaderStage::Vertex, BuiltIn::InstanceIndex) => 1,
        (ShaderStage::Compute, BuiltIn::GlobalInvocationId) => 0,
        (ShaderStage::Compute, BuiltIn::LocalInvocationId) => 3,
        (ShaderStage::Compute, BuiltIn::LocalInvocationIndex) => 6,
        (ShaderStage::Compute, BuiltIn::WorkGroupId) => 7,
        _ => return None,
    })
}

/// The export location of a built-in output.
pub fn builtin_export(b: BuiltIn) -> Option<u32> {
    match b {
        BuiltIn::Position { .. } => Some(POSITION_EXPORT),
        BuiltIn::FragDepth => Some(FRAG_DEPTH_EXPORT),
        _ => None,
    }
}

/// The uniform word of byte `offset` (std140 / WGSL uniform layout) in binding `binding`.
pub fn uniform_word(binding: u32, offset: u32) -> u32 {
    binding * UNIFORM_WORDS_PER_BINDING + offset / 4
}

/// `tex` sampler word, bits 1:0 `mode`: filtered (16-bit linear UNORM RGBA per lane).
/// The word's table is `ABI.md` "Sampled textures" and `rendergen_sim::models::texture::system`.
pub const TEX_MODE_FILTERED: u32 = 0;
/// `tex` sampler word `mode`: gather (one component, 16-bit UNORM, of the four footprint texels).
pub const TEX_MODE_GATHER: u32 = 2;
/// `tex` sampler word bit 2: the coordinates are signed integer texel coordinates.
pub const TEX_INT_COORDS: u32 = 1 << 2;
/// `tex` sampler word bit 10: bilinear filter (else nearest).
pub const TEX_LINEAR: u32 = 1 << 10;
/// `tex` sampler word bits 12:11 = 1: nearest mip level.
pub const TEX_MIP_NEAREST: u32 = 1 << 11;
/// `tex` sampler word bits 12:11 = 2: linear between mip levels (trilinear).
pub const TEX_MIP_LINEAR: u32 = 2 << 11;
/// `tex` sampler word bit 13: the LOD field is the level of detail (else a bias).
pub const TEX_EXPLICIT_LOD: u32 = 1 << 13;

/// The texels (bit `k` of `t00, t10, t01, t11`) of the footprint a raw broadcast `tex`
/// (`mode` 1, `broadcast` 1) answers that **no lane writes**, in every broadcast mode, because
/// an earlier sub-operation of the same collective fetch delivered them (`ABI.md` "Sampled
/// textures", duplicates): the 19×1 strips (`patch` 3, `subop` 1 ..= 3, strip `s`'s lane `l`
/// at patch column `7·(s − 1) + 2l`) overlap in one column, so lane 0 of strips 2 and 3
/// fetches its left column (texels 0 and 2) again. Every other word: none.
pub fn tex_duplicate_texels(word: u32) -> u32 {
    let raw_broadcast = word & 3 == 1 && word >> 3 & 1 == 1;
    let (source, patch, subop) = (word >> 4 & 3, word >> 6 & 3, word >> 8 & 3);
    match raw_broadcast && patch == 3 && subop >= 2 && source == 0 {
        true => 0b0101,
        false => 0,
    }
}

/// `tex` sampler word bits 15:14: the gathered component.
pub fn tex_comp(c: u32) -> u32 {
    (c & 3) << 14
}

/// `tex` sampler word bits 31:16: LOD or bias, signed Q8.8 (`q` in −32768 ..= 32767).
pub fn tex_lod(q: i32) -> u32 {
    ((q as u32) & 0xFFFF) << 16
}

/// A constant LOD or bias `x` as signed Q8.8, rounded to nearest (ties away from zero), or
/// `None` when it is not finite or outside −128 ..= 127.99609375.
pub fn lod_q8_8(x: f32) -> Option<i32> {
    let q = (f64::from(x) * 256.0).round();
    (q.is_finite() && (-32768.0..=32767.0).contains(&q)).then_some(q as i32)
}

/// The multiplier that turns the texture unit's 16-bit UNORM answers into binary32:
/// `v = fmul(u2f(c), UNORM16_SCALE)` with `UNORM16_SCALE = f32(1/65535)` = `0x37800080`.
pub const UNORM16_SCALE: f32 = (1.0f64 / 65535.0) as f32;

/// The sampler word of `texture()` / `textureSample` (implicit LOD, `bias` in Q8.8):
/// filtered, bilinear, linear between levels (Vulkan `LINEAR` / `MIPMAP_MODE_LINEAR`).
pub fn tex_word_sample(bias: i32) -> u32 {
    TEX_MODE_FILTERED | TEX_LINEAR | TEX_MIP_LINEAR | tex_lod(bias)
}

/// The sampler word of `textureLod` / `textureSampleLevel` (explicit LOD `lod` in Q8.8).
pub fn tex_word_lod(lod: i32) -> u32 {
    tex_word_sample(0) | TEX_EXPLICIT_LOD | tex_lod(lod)
}

/// The sampler word of `texelFetch` / `textureLoad` of level `level`: filtered at integer
/// texel coordinates, nearest filter, nearest level, explicit LOD `level · 256`.
pub fn tex_word_fetch(level: u32) -> u32 {
    TEX_MODE_FILTERED
        | TEX_INT_COORDS
        | TEX_MIP_NEAREST
        | TEX_EXPLICIT_LOD
        | tex_lod((level.min(127) as i32) << 8)
}

/// The sampler word of `textureGather` / `textureGather` of component `comp` (level 0).
pub fn tex_word_gather(comp: u32) -> u32 {
    TEX_MODE_GATHER | TEX_MIP_NEAREST | TEX_EXPLICIT_LOD | tex_comp(comp)
}
