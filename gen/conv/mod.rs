//! `rendergen conv`: an image convolution run as a shader program on the shader cores, with
//! every texel fetched through the texture unit (issue 14 §3; `convolution-and-linking.md`
//! Part A).
//!
//! * [`Kernel`]: the presets and the JSON form `{"width": w, "height": h, "weights": [...],
//!   "divisor": d, "bias": b}` (row order). The result per channel is
//!   `clamp(round((Σ w·texel) / d + b), 0, 255)`, rounding half away from zero.
//! * Two shaders ([`mod@program`]): *baseline* fetches every tap per pixel (filtered at the texel
//!   centre), *collective* fetches the 2×2 group's patch once as raw footprints broadcast into
//!   the quad's lanes and convolves in the shader, in one of three broadcast modes
//!   ([`Mode::Collective`] = all, [`Mode::Selective`], [`Mode::Shared`]; [`mod@broadcast`],
//!   `rendergen conv --broadcast all|selective|shared`). They give bit-identical images.
//! * Two engines: [`run_model`] (the shader interpreter with the texture unit's golden model
//!   answering `tex`) and [`rtl::run_rtl`] (the cycle-accurate `texsys` top: shader core,
//!   sampler bridge and texture unit, with a memory agent behind the unit).
//!
//! The texture the unit samples is the image itself when both sides are powers of two (the
//! unit's wrap mode is the border mode); otherwise the image is padded to a power-of-two
//! texture with a margin of the kernel's radius filled by the border rule (the RTL takes
//! power-of-two sizes only), and the unit clamps.

//!
//! # Where the spec's scenarios (§A.16.3) are tested
//! | | scenario | model | RTL |
//! |---|---|---|---|
//! | T1–T4, T7, T9 | 3×3, 1×7, 7×1, 19×1 counts (36→16 texels, 36→4 footprints, 28→16, 11 requests for 19×1, broadcast 64/36/16 writes) | `rendergen-sim models::texture::tests::collective_counts_match_the_spec` | `testbenches texture::collective_fetch_counts_and_equal_outputs` |
//! | T5, T6, T11, T13 | method 1 nudged ±1/8, n = 2 footprints, mip levels 1–2, borders | `…::shifted_coordinates_beyond_half_a_texel_pick_the_wrong_patch`, `…::collective_fetch_from_mip_levels` | `texture::shifted_coordinates_mip_levels_and_borders` |
//! | T9 | 19×1 in three sub-operations (§A.7) in the cores: 11 requests, 44 texel reads, 40 unique per quad; the overlapping columns 7 and 14 dropped (16 / 8 / 4 writes per quad in all / selective / shared), 160 / 76 / 40 texel register writes = the frame model's `broadcast`; images bit-identical (`--kernel` a 19×1 JSON) | `models::texture::system::tests::overlapping_sub_operations_drop_duplicates_as_the_frame_model`, `conv::broadcast::tests::t9_19x1_drops_duplicates_in_every_mode_on_the_model_and_the_rtl`, compiler `--test collective one_quad_counts` | `conv::broadcast::tests::t9_19x1_drops_duplicates_in_every_mode_on_the_model_and_the_rtl` (`tex_system` = model counters incl. `counters_dup_dropped`), `texture::system::*` (a strip-2 selective broadcast in the system program, co-simulated) |
//! | T7 | broadcast modes all / selective / shared in the core: 64 / 36 / 16 texel register writes per quad for 3×3, identical images (`--broadcast`) | `models::texture::system::tests::broadcast_modes_write_the_spec_counts`, `conv::broadcast::tests::broadcast_modes_match_the_reference_with_the_spec_write_counts` | `conv::broadcast::tests::rtl_broadcast_modes_count_64_36_16_and_match_the_reference`, `texture::system::*` (every mode in the system program, co-simulated) |
//! | T8 | MACs per pixel (tap lookup, Fig. 17a; shared: every weighted patch texel, Fig. 17c) | `conv::tests::t8_mac_counts`, `conv::broadcast::tests::shared_mac_counts` | — |
//! | T12, T18 | mixed filtered / raw / broadcast / gather traffic in order, back-pressure | `models::texture::system::tests` | `texture::system::system_matches_interpreter_and_texture_model_under_back_pressure`, `texture::collective_fetch_counts_and_equal_outputs` |
//! | T13, T14 | whole images, every border mode, totals per mode, bit-exact | `conv::tests::presets_and_borders_match_the_integer_reference_in_both_modes`, `…::whole_image_figures_per_quad` | `conv::tests::rtl_matches_the_reference_and_the_models_counts` |
//! | T15 | separable 5×5 in two passes | `conv::tests::t15_separable_5x5_in_two_passes` | — |
//! | T19 | one footprint per clock sustained | — | `texture::latency_and_throughput` |
//! | T20 | VCD, Verilog, Verilator and Yosys | — | `texture::t20_waveforms_of_t1_and_t2` (VCD of T1 and T2, handshakes counted), `texture::texture_unit_lint_clean`, `texture::system::system_lint_clean`, `…::system_cosim_iverilog_and_verilator` |
//! | T10 | sideband | carried in every answer and checked with its tags | the same tests |
//! | T16 | bilinear reversal: a 4-sample linear-filtered GLSL shader converted to 7 raw taps; matches the f64 7-tap golden, the original within the filter's fraction quantisation | `rendergen-shader-compiler --test collective t16_bilinear_reversal`; odd counts, both variants, helper: `…::odd_counts_two_variants_and_the_helper` | — |
//! | T17 | the compiler's kernel-shader checks (§A.12), each both ways | `rendergen-shader-compiler --test collective t17_every_check_both_ways` | — |
//! | §2 | the pass on GLSL kernels (gauss3, gauss5, box3, sobel-x, 1×7, 7×1, 19×1 split): converted programs bit-identical to the originals on the unit's model, counts per quad | `…::kernels_convert_and_run_bit_identical`, `…::one_quad_counts`; `--shader`: `conv::tests::shader_examples_convert_and_run` | — |
//!
//! # A user's kernel shader (`--shader FILE.glsl`, [`mod@shader`])
//! The kernel-shader pass (`rendergen_shader_compiler::collective`) compiles a GLSL fragment
//! shader that convolves around `gl_FragCoord`, reports whether it converted it to the
//! collective fetch (or which check of §A.12 refused), and runs the original and the
//! selected program on the model engine (examples: `gen/conv/examples/gauss3.glsl`,
//! `blur9-bilinear.glsl`).

pub mod broadcast;
pub mod program;
pub mod rtl;
pub mod shader;

use rendergen_sim::models::shader::{run, Config, Launch};
use rendergen_sim::models::texture::system::{TexEnv, TexStats};
use rendergen_sim::models::texture::{wrap_size, TexDesc, Wrap};

/// Largest kernel side (odd) of a two-dimensional kernel.
pub const MAX_SIDE: u32 = 9;
/// Largest side of a one-dimensional kernel (`w × 1` or `1 × h`, odd): the 19×1 of §A.7.
pub const MAX_LINE: u32 = 19;
/// Largest divisor.
pub const MAX_DIVISOR: i64 = 4096;
/// Largest sum of |weights|.
pub const MAX_WEIGHT_SUM: i64 = 8192;
/// Largest image side.
pub const MAX_IMAGE: u32 = 1024;

/// A convolution kernel with integer weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Taps across (odd, 1 ..= 9).
    pub w: u32,
    /// Taps down (odd, 1 ..= 9).
    pub h: u32,
    /// `w·h` weights, row order.
    pub weights: Vec<i32>,
    /// Divisor, 1 ..= 4096.
    pub divisor: i32,
    /// Bias added after the division, −255 ..= 255.
    pub bias: i32,
}

/// The preset names.
pub const PRESETS: &[&str] = &["gauss3", "gauss5", "box3", "sobel-x", "sobel-y", "sharpen"];

impl Kernel {
    /// Weight of tap `(kx, ky)`.
    pub fn weight(&self, kx: u32, ky: u32) -> i32 {
        self.weights[(ky * self.w + kx) as usize]
    }

    /// Taps with a non-zero weight.
    pub fn taps_nonzero(&self) -> u64 {
        self.weights.iter().filter(|&&w| w != 0).count() as u64
    }

    /// A preset (`sobel-x`/`-y` add 128 so that both signs of the gradient show).
    pub fn preset(name: &str) -> Option<Kernel> {
        let k = |w: u32, h: u32, weights: Vec<i32>, divisor: i32, bias: i32| Kernel {
            w,
            h,
            weights,
            divisor,
            bias,
        };
        Some(match name {
            "gauss3" => k(3, 3, vec![1, 2, 1, 2, 4, 2, 1, 2, 1], 16, 0),
            "gauss5" => {
                let b = [1, 4, 6, 4, 1];
                let w = (0..25).map(|i| b[i / 5] * b[i % 5]).collect();
                k(5, 5, w, 256, 0)
            }
            "box3" => k(3, 3, vec![1; 9], 9, 0),
            "sobel-x" => k(3, 3, vec![-1, 0, 1, -2, 0, 2, -1, 0, 1], 1, 128),
            "sobel-y" => k(3, 3, vec![-1, -2, -1, 0, 0, 0, 1, 2, 1], 1, 128),
            "sharpen" => k(3, 3, vec![0, -1, 0, -1, 5, -1, 0, -1, 0], 1, 0),
            _ => return None,
        })
    }

    /// Parses the JSON form; errors name `file` and the field.
    pub fn from_json(file: &str, text: &str) -> Result<Kernel, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("{file}: not JSON: {e}"))?;
        let obj = v.as_object().ok_or(format!("{file}: expected an object"))?;
        for key in obj.keys() {
            if !["width", "height", "weights", "divisor", "bias"].contains(&key.as_str()) {
                return Err(format!(
                    "{file}: unknown field `{key}` (expected width, height, weights, divisor, bias)"
                ));
            }
        }
        let int = |name: &str, range: std::ops::RangeInclusive<i64>, default: Option<i64>| {
            let Some(x) = obj.get(name) else {
                return default.ok_or(format!("{file}: missing field `{name}`"));
            };
            let i = x.as_i64().ok_or(format!(
                "{file}: field `{name}`: expected an integer, got {x}"
            ))?;
            if !range.contains(&i) {
                return Err(format!(
                    "{file}: field `{name}`: {i} is outside {}..={}",
                    range.start(),
                    range.end()
                ));
            }
            Ok(i)
        };
        let side = 1..=MAX_LINE as i64;
        let w = int("width", side.clone(), None)? as u32;
        let h = int("height", side, None)? as u32;
        for (name, s, other) in [("width", w, h), ("height", h, w)] {
            if s % 2 == 0 {
                return Err(format!(
                    "{file}: field `{name}`: {s} is even (a kernel is centred on its pixel: 1, 3, 5, …)"
                ));
            }
            if s > MAX_SIDE && other > 1 {
                return Err(format!(
                    "{file}: field `{name}`: {s} is outside 1..={MAX_SIDE} for a {w}×{h} kernel \
                     (up to {MAX_LINE} only when the other side is 1)"
                ));
            }
        }
        let divisor = int("divisor", 1..=MAX_DIVISOR, Some(1))? as i32;
        let bias = int("bias", -255..=255, Some(0))? as i32;
        let arr = obj
            .get("weights")
            .ok_or(format!("{file}: missing field `weights`"))?
            .as_array()
            .ok_or(format!("{file}: field `weights`: expected an array"))?;
        if arr.len() != (w * h) as usize {
            return Err(format!(
                "{file}: field `weights`: {} weights for a {w}×{h} kernel (expected {})",
                arr.len(),
                w * h
            ));
        }
        let mut weights = Vec::with_capacity(arr.len());
        for (i, x) in arr.iter().enumerate() {
            let v = x
                .as_i64()
                .filter(|v| (-1024..=1024).contains(v))
                .ok_or(format!(
                    "{file}: field `weights[{i}]`: expected an integer in -1024..=1024, got {x}"
                ))?;
            weights.push(v as i32);
        }
        let sum: i64 = weights.iter().map(|&w| (w as i64).abs()).sum();
        if sum > MAX_WEIGHT_SUM {
            return Err(format!(
                "{file}: field `weights`: the sum of |weights| is {sum}, at most {MAX_WEIGHT_SUM}"
            ));
        }
        Ok(Kernel {
            w,
            h,
            weights,
            divisor,
            bias,
        })
    }
}

/// How texels beyond the image are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Border {
    /// Clamp to the edge.
    Clamp,
    /// Repeat the image.
    Repeat,
    /// Mirrored repeat (Vulkan: the edge texel repeats once).
    Mirror,
}

impl Border {
    fn wrap(self) -> Wrap {
        match self {
            Border::Clamp => Wrap::Clamp,
            Border::Repeat => Wrap::Repeat,
            Border::Mirror => Wrap::Mirror,
        }
    }
}

/// Which shader runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every tap fetched per pixel.
    Baseline,
    /// The group's patch fetched once, broadcast into every lane (mode *all*), convolved in
    /// the shader.
    Collective,
    /// Collective, broadcast *selective*: a lane receives only its window's texels
    /// ([`broadcast::selective`]).
    Selective,
    /// Collective, broadcast into quad-*shared* registers read with `qget`
    /// ([`broadcast::shared`]).
    Shared,
}

impl Mode {
    /// Multiply-accumulates per pixel: the non-zero taps, or for [`Mode::Shared`] every patch
    /// texel a lane of the quad weights; times four channels.
    pub fn macs_per_pixel(self, kernel: &Kernel) -> u64 {
        4 * match self {
            Mode::Shared => broadcast::shared_texels(kernel),
            _ => kernel.taps_nonzero(),
        }
    }
}

/// An RGBA8 image (R in bits 7:0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Texels, row order.
    pub texels: Vec<u32>,
}

impl Image {
    /// Reads a PNG (any colour type, expanded to RGBA8); errors name `file`.
    pub fn read_png(file: &str, bytes: &[u8]) -> Result<Image, String> {
        let mut dec = png::Decoder::new(bytes);
        dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = dec
            .read_info()
            .map_err(|e| format!("{file}: not a PNG: {e}"))?;
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| format!("{file}: bad PNG data: {e}"))?;
        let (w, h) = (info.width, info.height);
        if w > MAX_IMAGE || h > MAX_IMAGE {
            return Err(format!(
                "{file}: {w}×{h} is larger than {MAX_IMAGE}×{MAX_IMAGE}"
            ));
        }
        let ch = match info.color_type {
            png::ColorType::Grayscale => 1,
            png::ColorType::GrayscaleAlpha => 2,
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            png::ColorType::Indexed => return Err(format!("{file}: indexed PNG not expanded")),
        };
        let texels = buf[..info.buffer_size()]
            .chunks(ch)
            .map(|p| {
                let (r, g, b, a) = match ch {
                    1 => (p[0], p[0], p[0], 255),
                    2 => (p[0], p[0], p[0], p[1]),
                    3 => (p[0], p[1], p[2], 255),
                    _ => (p[0], p[1], p[2], p[3]),
                };
                u32::from_le_bytes([r, g, b, a])
            })
            .collect();
        Ok(Image {
            width: w,
            height: h,
            texels,
        })
    }

    /// The image as RGBA8 PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().map_err(|e| e.to_string())?;
            let bytes: Vec<u8> = self.texels.iter().flat_map(|t| t.to_le_bytes()).collect();
            w.write_image_data(&bytes).map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}

/// The texture the unit samples for `img` under `kernel` and `border`: descriptor, memory and
/// the texel coordinates of pixel (0, 0).
pub struct Texture {
    /// Descriptor (base 0, linear, one level).
    pub desc: TexDesc,
    /// Texel memory.
    pub mem: Vec<u32>,
    /// Texel of pixel (0, 0).
    pub origin: (i32, i32),
}

fn log2_ceil(v: u32) -> u32 {
    v.next_power_of_two().trailing_zeros()
}

/// Builds the texture for `img` (see the module docs).
pub fn texture(img: &Image, kernel: &Kernel, border: Border) -> Texture {
    let pot = img.width.is_power_of_two() && img.height.is_power_of_two();
    let (mx, my) = match pot {
        true => (0, 0),
        false => (kernel.w / 2, kernel.h / 2),
    };
    let (lw, lh) = (
        log2_ceil(img.width + 2 * mx).max(1),
        log2_ceil(img.height + 2 * my).max(1),
    );
    let (tw, th) = (1u32 << lw, 1u32 << lh);
    let mut mem = vec![0u32; (tw * th) as usize];
    for y in 0..th {
        for x in 0..tw {
            let sx = wrap_size(x as i64 - mx as i64, img.width, border.wrap());
            let sy = wrap_size(y as i64 - my as i64, img.height, border.wrap());
            mem[(y * tw + x) as usize] = img.texels[(sy * img.width + sx) as usize];
        }
    }
    let wrap = if pot { border.wrap() } else { Wrap::Clamp };
    Texture {
        desc: TexDesc {
            base: 0,
            log2_w: lw,
            log2_h: lh,
            width: tw,
            height: th,
            mips: 1,
            srgb: false,
            tiled: false,
            wrap: [wrap; 2],
            border: 0,
            min_lod: -32768,
            max_lod: 32767,
            base_level: 0,
        },
        mem,
        origin: (mx as i32, my as i32),
    }
}

/// The program of `mode` (assembly) and the registers it needs per lane.
pub fn program(kernel: &Kernel, mode: Mode) -> (String, u32) {
    match mode {
        Mode::Baseline => (program::baseline(kernel), program::BASELINE_REGS),
        Mode::Collective => (
            program::collective(kernel),
            program::collective_regs(kernel),
        ),
        Mode::Selective => (
            broadcast::selective(kernel),
            program::collective_regs(kernel),
        ),
        Mode::Shared => (broadcast::shared(kernel), broadcast::shared_regs(kernel)),
    }
}

/// The warps of an image: each is `quads` consecutive 2×2 groups (row order of groups); per
/// lane its pixel's texel coordinates in `r0`, `r1`; lanes outside the image are helpers.
/// Also returns, per warp and lane, the pixel index written (or `None`).
pub fn launches(img: &Image, tex: &Texture, quads: usize) -> Vec<(Launch, Vec<Option<usize>>)> {
    let (gw, gh) = (img.width.div_ceil(2), img.height.div_ceil(2));
    let groups = (gw * gh) as usize;
    (0..groups.div_ceil(quads))
        .map(|wi| {
            let mut l = Launch::new(quads);
            l.warp_id = wi as u32;
            let mut pix = Vec::with_capacity(4 * quads);
            for q in 0..quads {
                let g = (wi * quads + q).min(groups - 1);
                let (gx, gy) = (g as u32 % gw, g as u32 / gw);
                for i in 0..4u32 {
                    let (x, y) = (2 * gx + (i & 1), 2 * gy + (i >> 1));
                    let inside = wi * quads + q < groups && x < img.width && y < img.height;
                    l.regs.push(vec![
                        (x as i32 + tex.origin.0) as u32,
                        (y as i32 + tex.origin.1) as u32,
                    ]);
                    if !inside {
                        l.helpers |= 1 << (4 * q + i as usize);
                    }
                    pix.push(inside.then_some((y * img.width + x) as usize));
                }
            }
            (l, pix)
        })
        .collect()
}

/// Figures of one run (`--json`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvStats {
    /// Requests to the texture unit.
    pub requests: u64,
    /// 2×2 footprints the unit fetched.
    pub footprints: u64,
    /// Texels read by the unit.
    pub texel_reads: u64,
    /// Distinct texels read (model engine; the RTL run reports the model's count of the same
    /// requests).
    pub unique_texels: u64,
    /// Footprints through the bilinear filter (one per clock: the filter's active cycles).
    pub filter_active: u64,
    /// Texel register writes in the cores.
    pub reg_writes: u64,
    /// Texel register writes dropped because an earlier sub-operation of the quad's
    /// collective fetch delivered the texel (19×1: columns 7 and 14).
    pub dup_dropped: u64,
    /// Multiply-accumulates (per pixel: non-zero taps × 4 channels).
    pub macs: u64,
    /// Warp instructions executed.
    pub instructions: u64,
    /// Clocks (RTL only).
    pub cycles: Option<u64>,
    /// Texel bytes read from memory (RTL: line fills × 16 bytes; model: unique texels × 4).
    pub texel_bytes: u64,
    /// Clocks in which the core issued an instruction (RTL only).
    pub core_busy: Option<u64>,
    /// Clocks in which the texture unit took a footprint into its cache stage (RTL only).
    pub unit_busy: Option<u64>,
}

impl ConvStats {
    /// The counts both engines report and must agree on: requests, footprints, texel reads,
    /// filter-active cycles, register writes, duplicates dropped, MAC operations.
    pub fn counts(&self) -> [u64; 7] {
        [
            self.requests,
            self.footprints,
            self.texel_reads,
            self.filter_active,
            self.reg_writes,
            self.dup_dropped,
            self.macs,
        ]
    }
}

/// A convolution run's result.
pub struct Convolved {
    /// The output image.
    pub image: Image,
    /// Its figures.
    pub stats: ConvStats,
}

/// Quads per warp of the model engine (as the RTL default).
pub const MODEL_QUADS: usize = 4;

/// Convolves `img` with the shader interpreter, `tex` answered by the texture unit's model.
pub fn run_model(
    img: &Image,
    kernel: &Kernel,
    mode: Mode,
    border: Border,
) -> Result<Convolved, String> {
    let tex = texture(img, kernel, border);
    let (src, regs) = program(kernel, mode);
    let prog = rendergen_shader_isa::asm::assemble(&src).map_err(|e| e.to_string())?;
    let cfg = Config {
        regs: regs as usize,
        ..Config::default()
    };
    let mut env = TexEnv::new(tex.desc, &tex.mem);
    let mut out = vec![0u32; img.texels.len()];
    let mut instructions = 0;
    for (wi, (launch, pix)) in launches(img, &tex, MODEL_QUADS).iter().enumerate() {
        env.slot = wi as u32 & 7;
        let o = run(&prog, &cfg, launch, &mut env);
        if let Some(e) = o.error {
            return Err(format!("warp {wi}: {e:?}"));
        }
        instructions += o.executed;
        for (lane, p) in pix.iter().enumerate() {
            if let Some(p) = p {
                out[*p] = o.exports[lane]
                    .get(&0)
                    .and_then(|w| w.first().copied())
                    .ok_or(format!("warp {wi} lane {lane}: no export"))?;
            }
        }
    }
    let mut stats = stats_of(&env.stats, env.unique_texels(), img, kernel, instructions);
    stats.macs = img.width as u64 * img.height as u64 * mode.macs_per_pixel(kernel);
    Ok(Convolved {
        image: Image {
            width: img.width,
            height: img.height,
            texels: out,
        },
        stats,
    })
}

fn stats_of(t: &TexStats, unique: u64, img: &Image, k: &Kernel, instr: u64) -> ConvStats {
    ConvStats {
        requests: t.requests,
        footprints: t.counts.footprints,
        texel_reads: t.counts.texel_reads,
        unique_texels: unique,
        filter_active: t.counts.filter_active,
        reg_writes: t.reg_writes,
        dup_dropped: t.dup_dropped,
        macs: img.width as u64 * img.height as u64 * k.taps_nonzero() * 4,
        instructions: instr,
        cycles: None,
        texel_bytes: unique * 4,
        core_busy: None,
        unit_busy: None,
    }
}

/// The figures as JSON.
pub fn stats_json(s: &ConvStats) -> serde_json::Value {
    serde_json::json!({
        "requests": s.requests,
        "footprints": s.footprints,
        "texel_reads": s.texel_reads,
        "unique_texels": s.unique_texels,
        "filter_active_cycles": s.filter_active,
        "register_writes": s.reg_writes,
        "duplicates_dropped": s.dup_dropped,
        "mac_operations": s.macs,
        "instructions": s.instructions,
        "cycles": s.cycles,
        "texel_bytes_from_memory": s.texel_bytes,
        "core_busy_cycles": s.core_busy,
        "texture_unit_busy_cycles": s.unit_busy,
    })
}

#[cfg(test)]
mod tests;
