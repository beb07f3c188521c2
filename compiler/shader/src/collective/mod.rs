//! The kernel-shader pass (issue 14 §2; `convolution-and-linking.md` §A.12, Figs. 13–14):
//! recognise a convolution ("kernel") shader in the IR and rewrite it to the **collective
//! fetch** — the 2×2 quad's patch of texels fetched once as raw footprints broadcast into the
//! quad's lanes (`tex` in raw, broadcast mode; `ABI.md` "Sampled textures"), each lane picking
//! its own texels out of the patch — the form `rendergen conv` writes by hand
//! (`gen/conv/program.rs`). When any check fails the original program is kept, and the
//! [`Refusal`] says which check refused.
//!
//! Entry points: [`compile`] (source → original + converted programs + the helper's choice)
//! and [`convert`] (IR → converted IR).
//!
//! # The checks (§A.12, in this order)
//! | # | check | refusal |
//! |---|---|---|
//! | 1 | every sample (`tex`) is at the program's top level, one sampler word, a plain filtered fetch | [`Refusal::Structure`] |
//! | 2 | at least [`Params::min_samples`] samples (4) | [`Refusal::TooFewSamples`] |
//! | 3 | samples are at least 1/[`Params::max_instructions_per_sample`] (1/10) of the instructions, counted as the source counts them: vector operations, `(machine instructions − 8·samples) / 4` (the core is scalar, and the ABI's 8-instruction UNORM16 conversion per sample is the texture unit's work on the source's GPU) | [`Refusal::FewSampleInstructions`] |
//! | 4 | integer LOD: `texelFetch` level, or an explicit LOD that is a whole level after the descriptor's clamp, or the implicit LOD with no bias (λ = 0 when texture = render size) and a clamp that keeps 0 | [`Refusal::NonIntegerLod`] |
//! | 5 | texture size at that level = render size (a launch property: [`LaunchProps`]) | [`Refusal::TextureSizeNotRenderSize`] |
//! | 6 | linear LDR texels (the raw path returns stored RGBA8; sRGB is decoded only by the filter) | [`Refusal::Srgb`] |
//! | 7 | centred: each coordinate follows the lane's pixel only, and lands at the same offset and fraction from it for **every** pixel of the render size (evaluated exactly, the unit's fixed-point quantisation included); the taps span a box symmetric about the pixel | [`Refusal::NotCentred`] |
//! | 8 | summed with weights: each sample's value (after the ABI's UNORM16 → binary32 conversion) only feeds products with a lane-invariant weight and sums | [`Refusal::NotSummed`] |
//! | 9 | gather range: the taps are split into windows of at most [`Params::window`] (7) taps per axis, so that every footprint of a window is within −4..+4 of each lane's pixel (one gather per lane); a window's footprints are issued as sub-operations of 4; at most [`Params::max_sub_operations`] (4: the sideband's 2-bit field) | [`Refusal::OutOfGatherRange`] |
//! | — | the converted program fits the core's registers | [`Refusal::Registers`] |
//!
//! **Tolerance.** A sample's position is evaluated as the unit quantises it (`S = floor(s·W·2^16)`,
//! fractions of 8 bits for the filter). A sample up to 1/256 texel right of or below a texel
//! centre has a zero filter fraction: the unit returns the raw texel, so it is a tap (this is
//! the source's "slightly offset" positions 806/906, ¶74). Any other fraction makes it a
//! *bilinear sample* (two or four taps). The texel and the 8-bit fraction must be the same for
//! every pixel; the 16-bit position may wander by [`FRAC16_TOLERANCE`] (64/65536
//! texel: binary32 rounding of `(x + 0.5 + d)/size` for a non-dyadic `d`, as in the usual
//! "linear sampling" Gaussians); the reversal uses its mean.
//!
//! # Variants and the helper (Figs. 14, 15; ¶93–100)
//! * All samples are taps → one variant, [`VariantKind::Direct`]: bit-identical to the original
//!   on the texture unit (the unit's filtered answer at zero fraction is the raw texel expanded
//!   to 16 bits, `c·257`, D8; the converted program expands the same bits and then runs the
//!   original's own conversion and arithmetic unchanged).
//! * Some samples are bilinear samples (a shader optimised for the bilinear filter):
//!   * [`VariantKind::Direct`] (modified *without* reversal): the raw taps are blended in the
//!     shader with the unit's own 8-bit fractions and integer lerps, bit-identical to the original.
//!   * [`VariantKind::Reversed`] (modified *with* reversal, block 1404): each bilinear sample
//!     becomes its two (or four) raw taps blended with the **exact** fraction the shader meant
//!     (the weight split `w·(1−f)`, `w·f` of Fig. 15, applied as `t0 + f·(t1 − t0)` in binary32),
//!     so the result is the n-tap convolution without the filter's fraction quantisation.
//!   * ¶94: an even sample count indicates a bilinear-optimised kernel (2n+1 taps in n+1 samples)
//!     → the reversed variant; an odd count is ambiguous → both variants.
//! * The helper's selection bits (¶100, [`Selection`]): 0 original, 1 without reversal, 2 with
//!   reversal. [`select`] is the helper: it re-runs the checks with the launch known at run time
//!   (the texture size may be unknown at compile time, ¶89: [`LaunchProps::texture_size`] `None`
//!   converts assuming texture = render size) and picks the reversed variant when the samples
//!   form the bilinear pattern of ¶99 (each bilinear sample covers two adjacent taps of its own,
//!   along one axis, no tap shared), else the direct one, else the original.
//!
//! # The rewritten program
//! At the start: the lane's position in its quad (`lane & 1`, `lane >> 1 & 1`), its pixel (from
//! `gl_FragCoord` or the launch's integer registers, [`PixelInput`]) and the quad's top-left
//! pixel. Before the first sample that needs a window: the window's footprints as raw broadcast
//! `tex` (footprint `f`: fetching lane `f mod 4`, sub-operation `f / 4`, the patch code of §A.8
//! when the patch is 4×4, 2×8 or 8×2), every lane receiving all four texels of each; when the
//! windows are a 19×1's (three one-row windows at columns `x0`, `x0 + 7`, `x0 + 14`), they are
//! the sideband's strips (patch 3, sub-operations 1 ..= 3, footprint `j` fetched by lane `j`),
//! the unit drops the second copy of the overlapping columns (`ABI.md`, duplicates), and a
//! sample reads such a texel from the earlier strip's `tex` result. In place of
//! each sample: the lane's texel word(s) chosen from the patch with three `sel` on its quad
//! position, unpacked per channel and expanded to UNORM16 (`c·257`), blended for bilinear
//! samples; the original's conversion and arithmetic follow unchanged.
//!
//! Assumption (check (i) of §A.12, a launch property): the lanes of a quad are the pixels
//! `(x0 + (i & 1), y0 + (i >> 1))` of an aligned 2×2 group, as the rasteriser's fragment quads
//! and `rendergen conv`'s launches are.
//!
//! Not handled (refused as [`Refusal::Structure`] or [`Refusal::NotCentred`]): samples inside
//! loops or branches (unroll the kernel), offsets from uniforms (the run-time range check of
//! ¶90), gathers, more than one texture.

mod analyse;
mod rewrite;

pub use analyse::{Analysis, AxisPos, Sample, Window, FRAC16_TOLERANCE};

use crate::{back, ir, opt, CompileError, Compiled, Options, Stats};
use std::fmt;

/// Where the launch puts a lane's pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PixelInput {
    /// A fragment shader: `gl_FragCoord.xy` in `r0`, `r1` (binary32 `x + 0.5`, `y + 0.5`).
    FragCoord,
    /// Integer pixel coordinates in launch registers `x`, `y` (e.g. a compute launch).
    Integer {
        /// Register of x.
        x: u8,
        /// Register of y.
        y: u8,
    },
}

/// What the launch guarantees (the caller knows it; the pass cannot see it in the program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchProps {
    /// Size of the bound texture's base level, or `None` when unknown at compile time (the
    /// conversion then assumes texture = render size and [`select`] checks at run time, ¶89).
    pub texture_size: Option<(u32, u32)>,
    /// The render target's size in pixels (1 ..= 4096 each).
    pub render_size: (u32, u32),
    /// The texture is sRGB.
    pub srgb: bool,
    /// The descriptor's LOD clamp `(min_lod, max_lod)`, signed Q8.8.
    pub lod_clamp: (i32, i32),
    /// Where a lane's pixel is.
    pub pixel: PixelInput,
}

impl LaunchProps {
    /// A fragment launch over a `w × h` target sampling a linear texture of the same size, no
    /// LOD clamp.
    pub fn fragment(w: u32, h: u32) -> LaunchProps {
        LaunchProps {
            texture_size: Some((w, h)),
            render_size: (w, h),
            srgb: false,
            lod_clamp: (-32768, 32767),
            pixel: PixelInput::FragCoord,
        }
    }
}

/// The thresholds of the checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Fewest samples (¶102: e.g. 4).
    pub min_samples: usize,
    /// Most machine instructions per sample (¶103: samples at least 1 in 10).
    pub max_instructions_per_sample: usize,
    /// Taps per axis of one window (7: a window's patch is ≤ 8 texels, every footprint within
    /// −4..+4 of each lane's pixel).
    pub window: u32,
    /// Most sub-operations of 4 footprints (4: the sideband's 2-bit field).
    pub max_sub_operations: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            min_samples: 4,
            max_instructions_per_sample: 10,
            window: 7,
            max_sub_operations: 4,
        }
    }
}

/// Why the pass kept the original program (one per check of the module table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Check 1: samples under control flow, several sampler words, or not a plain fetch.
    Structure(String),
    /// Check 2.
    TooFewSamples {
        /// Samples found.
        samples: usize,
        /// The minimum.
        min: usize,
    },
    /// Check 3.
    FewSampleInstructions {
        /// Samples found.
        samples: usize,
        /// Vector-equivalent instructions of the original (see check 3).
        instructions: usize,
    },
    /// Check 4: why the level is not a whole number.
    NonIntegerLod(String),
    /// Check 5.
    TextureSizeNotRenderSize {
        /// The texture's size at the sampled level.
        texture: (u32, u32),
        /// The render size.
        render: (u32, u32),
        /// The level.
        level: u32,
    },
    /// Check 6.
    Srgb,
    /// Check 7: which sample (0-based, program order) and why.
    NotCentred {
        /// The sample.
        sample: usize,
        /// Why.
        reason: String,
    },
    /// Check 8.
    NotSummed {
        /// The sample.
        sample: usize,
        /// Why.
        reason: String,
    },
    /// Check 9.
    OutOfGatherRange {
        /// Sub-operations the taps need.
        sub_operations: u32,
        /// The most allowed.
        max: u32,
        /// The taps' box `(x_min, x_max, y_min, y_max)`.
        taps: (i32, i32, i32, i32),
    },
    /// The converted program does not fit the core's registers.
    Registers(String),
}

impl Refusal {
    /// The check's short name (for reports).
    pub fn check(&self) -> &'static str {
        match self {
            Refusal::Structure(_) => "structure",
            Refusal::TooFewSamples { .. } => "enough samples",
            Refusal::FewSampleInstructions { .. } => "sample share",
            Refusal::NonIntegerLod(_) => "integer LOD",
            Refusal::TextureSizeNotRenderSize { .. } => "texture size = render size",
            Refusal::Srgb => "linear LDR texels",
            Refusal::NotCentred { .. } => "centred",
            Refusal::NotSummed { .. } => "summed with weights",
            Refusal::OutOfGatherRange { .. } => "gather range",
            Refusal::Registers(_) => "registers",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.check())?;
        match self {
            Refusal::Structure(s) | Refusal::NonIntegerLod(s) | Refusal::Registers(s) => {
                write!(f, "{s}")
            }
            Refusal::TooFewSamples { samples, min } => {
                write!(f, "{samples} samples, a kernel shader has at least {min}")
            }
            Refusal::FewSampleInstructions {
                samples,
                instructions,
            } => write!(
                f,
                "{samples} samples in {instructions} vector-equivalent instructions (fewer than 1 in 10)"
            ),
            Refusal::TextureSizeNotRenderSize {
                texture,
                render,
                level,
            } => write!(
                f,
                "texture {}×{} at level {level}, render target {}×{}",
                texture.0, texture.1, render.0, render.1
            ),
            Refusal::Srgb => write!(
                f,
                "sRGB texture (raw texels are stored bytes; only the filter decodes sRGB)"
            ),
            Refusal::NotCentred { sample, reason } | Refusal::NotSummed { sample, reason } => {
                write!(f, "sample {sample}: {reason}")
            }
            Refusal::OutOfGatherRange {
                sub_operations,
                max,
                taps,
            } => write!(
                f,
                "taps x {}..{}, y {}..{} need {sub_operations} sub-operations of 4 footprints, at most {max}",
                taps.0, taps.1, taps.2, taps.3
            ),
        }
    }
}

/// Which converted program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantKind {
    /// Modified without bilinear reversal (bit-identical to the original).
    Direct,
    /// Modified with bilinear reversal (exact fractions).
    Reversed,
}

/// The helper's selection bits (¶100).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// 0: the original shader.
    Original = 0,
    /// 1: modified without reversal.
    Direct = 1,
    /// 2: modified with reversal.
    Reversed = 2,
}

/// A converted program (IR).
#[derive(Clone, Debug)]
pub struct Converted {
    /// Which one.
    pub kind: VariantKind,
    /// The program.
    pub ir: ir::Program,
}

/// What [`convert`] found and made.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The recognised kernel.
    pub analysis: Analysis,
    /// The variants (one, or two for an odd sample count with bilinear samples).
    pub variants: Vec<Converted>,
}

/// Runs the checks on `prog` (optimised IR; `instructions` = machine instructions of its
/// compiled form) and, when they pass, builds the converted variants.
pub fn convert(
    prog: &ir::Program,
    instructions: usize,
    launch: &LaunchProps,
    params: &Params,
) -> Result<Conversion, Refusal> {
    let analysis = analyse::analyse(prog, instructions, launch, params)?;
    let kinds: &[VariantKind] = match analysis.bilinear_samples() {
        0 => &[VariantKind::Direct],
        _ if analysis.samples.len() % 2 == 0 => &[VariantKind::Reversed],
        _ => &[VariantKind::Direct, VariantKind::Reversed],
    };
    let variants = kinds
        .iter()
        .map(|&kind| {
            let mut ir = rewrite::rewrite(prog, &analysis, kind, launch);
            opt::optimise(&mut ir, false);
            Converted { kind, ir }
        })
        .collect();
    Ok(Conversion { analysis, variants })
}

/// The helper (block 1308, ¶100): the selection for a launch known at run time.
pub fn select(
    prog: &ir::Program,
    instructions: usize,
    c: &Conversion,
    run: &LaunchProps,
) -> Selection {
    let Ok(a) = analyse::analyse(prog, instructions, run, &c.analysis.params) else {
        return Selection::Original;
    };
    let has = |k| c.variants.iter().any(|v| v.kind == k);
    if a.samples != c.analysis.samples || a.level != c.analysis.level {
        return Selection::Original; // converted for another layout
    }
    if a.bilinear_pattern() && has(VariantKind::Reversed) {
        Selection::Reversed
    } else if has(VariantKind::Direct) {
        Selection::Direct
    } else {
        Selection::Original
    }
}

/// A compiled variant.
#[derive(Clone, Debug)]
pub struct Variant {
    /// Which one.
    pub kind: VariantKind,
    /// The program.
    pub compiled: Compiled,
}

/// The result of [`compile`].
#[derive(Clone, Debug)]
pub struct Collective {
    /// The original program (always built: the fallback, block 1312).
    pub original: Compiled,
    /// The analysis of the recognised kernel, or why the pass refused.
    pub outcome: Result<Analysis, Refusal>,
    /// The converted programs (empty when refused).
    pub variants: Vec<Variant>,
    /// The helper's selection for the compile-time launch.
    pub selection: Selection,
}

impl Collective {
    /// The program the selection names.
    pub fn selected(&self) -> &Compiled {
        let kind = match self.selection {
            Selection::Original => return &self.original,
            Selection::Direct => VariantKind::Direct,
            Selection::Reversed => VariantKind::Reversed,
        };
        self.variants
            .iter()
            .find(|v| v.kind == kind)
            .map_or(&self.original, |v| &v.compiled)
    }

    /// The variant of `kind`, if built.
    pub fn variant(&self, kind: VariantKind) -> Option<&Compiled> {
        self.variants
            .iter()
            .find(|v| v.kind == kind)
            .map(|v| &v.compiled)
    }
}

/// Compiles `src` and runs the kernel-shader pass on it for `launch`.
///
/// ```
/// use rendergen_shader_compiler::collective::{compile, LaunchProps, Params, Selection};
/// use rendergen_shader_compiler::{Lang, Options, ShaderStage};
/// let src = "#version 450
/// layout(location = 0) out vec4 o;
/// layout(binding = 0) uniform texture2D img;
/// layout(binding = 1) uniform sampler smp;
/// void main() {
///     ivec2 p = ivec2(gl_FragCoord.xy);
///     o = texelFetch(sampler2D(img, smp), p + ivec2(-1, 0), 0) * 0.25
///       + texelFetch(sampler2D(img, smp), p, 0) * 0.5
///       + texelFetch(sampler2D(img, smp), p + ivec2(1, 0), 0) * 0.25
///       + texelFetch(sampler2D(img, smp), p + ivec2(0, 1), 0) * 0.0;
/// }";
/// let opts = Options::new(Lang::Glsl(ShaderStage::Fragment));
/// let c = compile(src, "k.glsl", &opts, &LaunchProps::fragment(64, 64), &Params::default()).unwrap();
/// assert!(c.outcome.is_err()); // the taps are not centred: y spans 0..1
/// assert_eq!(c.selection, Selection::Original);
/// ```
pub fn compile(
    src: &str,
    path: &str,
    opts: &Options,
    launch: &LaunchProps,
    params: &Params,
) -> Result<Collective, CompileError> {
    let original = crate::compile(src, path, opts)?;
    let n = original.stats.instructions;
    let conversion = match convert(&original.ir, n, launch, params) {
        Ok(c) => c,
        Err(r) => return Ok(refused(original, r)),
    };
    let mut variants = Vec::new();
    for v in &conversion.variants {
        let out = match back::generate(&v.ir, opts.regs, opts.optimise) {
            Ok(o) => o,
            Err(e) => return Ok(refused(original, Refusal::Registers(e))),
        };
        let asm = rendergen_shader_isa::disasm::disassemble(&out.words);
        variants.push(Variant {
            kind: v.kind,
            compiled: Compiled {
                asm,
                words: out.words,
                interface: original.interface.clone(),
                ir: v.ir.clone(),
                stats: Stats {
                    ir_before: original.stats.ir_after,
                    ir_after: v.ir.count_defs(),
                    instructions: out.instructions,
                    registers: out.registers,
                    cycles_unscheduled: out.cycles_unscheduled,
                    cycles_scheduled: out.cycles_scheduled,
                    schedule_window: out.schedule_window,
                },
            },
        });
    }
    let run = LaunchProps {
        texture_size: launch.texture_size.or(Some(launch.render_size)),
        ..*launch
    };
    let selection = select(&original.ir, n, &conversion, &run);
    Ok(Collective {
        original,
        outcome: Ok(conversion.analysis),
        variants,
        selection,
    })
}

fn refused(original: Compiled, r: Refusal) -> Collective {
    Collective {
        original,
        outcome: Err(r),
        variants: vec![],
        selection: Selection::Original,
    }
}
