//! `rendergen conv --shader FILE.glsl`: a user's GLSL kernel (convolution) fragment shader,
//! compiled, passed through the kernel-shader pass (`rendergen_shader_compiler::collective`,
//! spec §A.12), and run over the image on the shader interpreter with the texture unit's model
//! — the original program and, when the pass fired, the converted one the helper selects.
//!
//! The shader samples one `texture2D` (binding 0 or any; `ABI.md` "Sampled textures") whose
//! size is the image's, writes `vec4` location 0 (RGBA in 0..1; stored as RGBA8
//! `round(clamp(v, 0, 1)·255)`), and reads its pixel from `gl_FragCoord` (one fragment per
//! pixel, 2×2 quads). `gen/conv/examples/gauss3.glsl` and `blur7-bilinear.glsl` are examples.

use super::{stats_of, Border, ConvStats, Image, Kernel};
use rendergen_shader_compiler::collective::{self, Collective, LaunchProps, Params, Selection};
use rendergen_shader_compiler::{Compiled, Lang, Options, ShaderStage};
use rendergen_sim::models::shader::{run, Config, Launch};
use rendergen_sim::models::texture::system::TexEnv;
use rendergen_sim::models::texture::TexDesc;

/// Registers per lane of the core the shader is compiled for and run on: the compiler's
/// scheduler issues every sample early, so an original 5×5 shader needs more than the default 64.
pub const SHADER_REGS: usize = 128;

/// One program's run over the image.
pub struct ShaderImage {
    /// The output image.
    pub image: Image,
    /// Its figures (MACs are not counted for a user's shader: 0).
    pub stats: ConvStats,
}

/// The result of [`run_shader`].
pub struct ShaderRun {
    /// The pass's result (original, variants, refusal or analysis, selection).
    pub pass: Collective,
    /// The original program's run.
    pub original: ShaderImage,
    /// The selected converted program's run, when the pass fired.
    pub converted: Option<ShaderImage>,
}

impl ShaderRun {
    /// The pass's outcome as JSON (fired, the refusing check, variants, selection).
    pub fn pass_json(&self) -> serde_json::Value {
        match &self.pass.outcome {
            Err(r) => serde_json::json!({
                "fired": false,
                "check": r.check(),
                "reason": r.to_string(),
            }),
            Ok(a) => serde_json::json!({
                "fired": true,
                "samples": a.samples.len(),
                "bilinear_samples": a.bilinear_samples(),
                "level": a.level,
                "taps": [a.taps.0, a.taps.1, a.taps.2, a.taps.3],
                "footprints_per_quad": a.footprints(),
                "variants": self.pass.variants.iter().map(|v| format!("{:?}", v.kind).to_lowercase()).collect::<Vec<_>>(),
                "selection": self.pass.selection as u32,
                "selected": format!("{:?}", self.pass.selection).to_lowercase(),
                "instructions": [self.pass.original.stats.instructions, self.pass.selected().stats.instructions],
            }),
        }
    }
}

/// The texture of `img` for a shader run: the image itself (any size; rows at a power-of-two
/// pitch, as the unit addresses them), wrap = `border`.
pub fn texture(img: &Image, border: Border) -> (TexDesc, Vec<u32>) {
    let (lw, lh) = (
        img.width.next_power_of_two().trailing_zeros(),
        img.height.next_power_of_two().trailing_zeros(),
    );
    let pitch = 1u32 << lw;
    let mut mem = vec![0u32; (pitch << lh) as usize];
    for y in 0..img.height {
        for x in 0..img.width {
            mem[(y * pitch + x) as usize] = img.texels[(y * img.width + x) as usize];
        }
    }
    let desc = TexDesc {
        base: 0,
        log2_w: lw,
        log2_h: lh,
        width: img.width,
        height: img.height,
        mips: 1,
        srgb: false,
        tiled: false,
        wrap: [border.wrap(); 2],
        border: 0,
        min_lod: -32768,
        max_lod: 32767,
        base_level: 0,
    };
    (desc, mem)
}

/// Runs `prog` over `img` as fragments (2×2 quads, `MODEL_QUADS` per warp).
pub fn render(prog: &Compiled, img: &Image, border: Border) -> Result<ShaderImage, String> {
    let (desc, mem) = texture(img, border);
    let mut env = TexEnv::new(desc, &mem);
    let (gw, gh) = (img.width.div_ceil(2), img.height.div_ceil(2));
    let groups: Vec<(u32, u32)> = (0..gh).flat_map(|y| (0..gw).map(move |x| (x, y))).collect();
    let mut out = vec![0u32; img.texels.len()];
    let mut instructions = 0;
    for (wi, warp) in groups.chunks(super::MODEL_QUADS).enumerate() {
        let mut l = Launch::new(warp.len());
        l.warp_id = wi as u32;
        for (q, &(gx, gy)) in warp.iter().enumerate() {
            for i in 0..4u32 {
                let (x, y) = (2 * gx + (i & 1), 2 * gy + (i >> 1));
                l.regs.push(vec![
                    (x as f32 + 0.5).to_bits(),
                    (y as f32 + 0.5).to_bits(),
                    0.5f32.to_bits(),
                    1.0f32.to_bits(),
                ]);
                if x >= img.width || y >= img.height {
                    l.helpers |= 1 << (4 * q + i as usize);
                }
            }
        }
        env.slot = wi as u32 & 7;
        let cfg = Config {
            regs: SHADER_REGS,
            ..Config::default()
        };
        let o = run(&prog.words, &cfg, &l, &mut env);
        if let Some(e) = o.error {
            return Err(format!("warp {wi}: {e:?}"));
        }
        instructions += o.executed;
        for (q, &(gx, gy)) in warp.iter().enumerate() {
            for i in 0..4u32 {
                let (x, y) = (2 * gx + (i & 1), 2 * gy + (i >> 1));
                if x >= img.width || y >= img.height {
                    continue;
                }
                let e = o.exports[4 * q + i as usize]
                    .get(&0)
                    .ok_or(format!("pixel ({x}, {y}): no export at location 0"))?;
                let mut px = 0u32;
                for (c, &w) in e.iter().take(4).enumerate() {
                    let v = f32::from_bits(w);
                    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                    px |= ((v * 255.0).round() as u32) << (8 * c);
                }
                if e.len() < 4 {
                    px |= 0xFF00_0000;
                }
                out[(y * img.width + x) as usize] = px;
            }
        }
    }
    let none = Kernel {
        w: 1,
        h: 1,
        weights: vec![0],
        divisor: 1,
        bias: 0,
    };
    Ok(ShaderImage {
        image: Image {
            width: img.width,
            height: img.height,
            texels: out,
        },
        stats: stats_of(&env.stats, env.unique_texels(), img, &none, instructions),
    })
}

/// Compiles the GLSL fragment shader `src` (from `path`), runs the kernel-shader pass for a
/// launch over `img`, and runs the original and (if the pass fired) the selected program.
pub fn run_shader(img: &Image, src: &str, path: &str, border: Border) -> Result<ShaderRun, String> {
    let mut opts = Options::new(Lang::Glsl(ShaderStage::Fragment));
    opts.regs = SHADER_REGS;
    let launch = LaunchProps::fragment(img.width, img.height);
    let pass = collective::compile(src, path, &opts, &launch, &Params::default())
        .map_err(|e| e.to_string())?;
    let original = render(&pass.original, img, border)?;
    let converted = match pass.selection {
        Selection::Original => None,
        _ => Some(render(pass.selected(), img, border)?),
    };
    Ok(ShaderRun {
        pass,
        original,
        converted,
    })
}
