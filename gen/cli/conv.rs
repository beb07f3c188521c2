//! `rendergen conv IN.png -o OUT.png --kernel K`: an image convolution as a shader program on
//! the cores with every texel through the texture unit (library: [`rendergen_gen::conv`]).

use crate::Failure;
use clap::{Args, ValueEnum};
use rendergen_gen::conv::{self, rtl, Border, Image, Kernel, Mode};
use rendergen_gen::output::write_output;
use std::path::PathBuf;

/// `--mode` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConvMode {
    /// Every tap fetched per pixel (filtered at the texel centre).
    Baseline,
    /// The 2×2 group's patch fetched once as raw footprints, broadcast, convolved in the shader.
    Collective,
}

/// `--broadcast` values (collective mode).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConvBroadcast {
    /// Every lane receives the whole patch (64 texel register writes per quad for 3×3).
    All,
    /// Each lane receives only its kernel window's texels (36 for 3×3).
    Selective,
    /// The patch is written once per quad into shared registers read with `qget` (16 for 3×3).
    Shared,
}

/// `--border` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConvBorder {
    /// Clamp to the edge.
    Clamp,
    /// Repeat.
    Repeat,
    /// Mirrored repeat.
    Mirror,
}

/// `--engine` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ConvEngine {
    /// The cycle-accurate tex_system (shader core + texture unit + memory agent).
    Rtl,
    /// The shader interpreter with the texture unit's golden model.
    Model,
}

/// `rendergen conv`.
#[derive(Args)]
#[command(
    after_help = "Kernel file: {\"width\": w, \"height\": h, \"weights\": [w·h integers, row order], \
\"divisor\": d, \"bias\": b}; odd sides 1..=9 (up to 19 for a w×1 or 1×h row; a 19×1 is \
fetched as the 3 overlapping sub-operations of §A.7), weights -1024..=1024 (sum of |w| ≤ 8192), d 1..=4096 \
(default 1), b -255..=255 (default 0). Per channel: clamp(round((Σ w·texel)/d + b), 0, 255), halves \
away from zero. Presets: gauss3 (1 2 1 /16), gauss5 (binomial /256), box3 (/9), sobel-x, sobel-y \
(bias 128), sharpen (5 centre, -1 cross)."
)]
pub struct ConvArgs {
    /// Input image (PNG; expanded to RGBA8).
    input: PathBuf,
    /// Output image (RGBA8 PNG); written whole or not at all.
    #[arg(short = 'o', long = "out", value_name = "OUT.png")]
    out: PathBuf,
    /// gauss3, gauss5, box3, sobel-x, sobel-y, sharpen, or a JSON kernel file.
    #[arg(long, required_unless_present = "shader", conflicts_with = "shader")]
    kernel: Option<String>,
    /// A GLSL kernel fragment shader instead of --kernel: compiled, passed through the
    /// kernel-shader pass (reports whether it fired or which check refused), and run, original
    /// and converted (model engine; e.g. gen/conv/examples/gauss3.glsl).
    #[arg(long, value_name = "FILE.glsl")]
    shader: Option<PathBuf>,
    /// Which shader runs.
    #[arg(long, value_enum, default_value_t = ConvMode::Collective)]
    mode: ConvMode,
    /// How a collective fetch's texels reach the lanes (--mode collective).
    #[arg(long, value_enum, default_value_t = ConvBroadcast::All)]
    broadcast: ConvBroadcast,
    /// Texels beyond the image.
    #[arg(long, value_enum, default_value_t = ConvBorder::Clamp)]
    border: ConvBorder,
    /// Where the shader and the texture unit run.
    #[arg(long, value_enum, default_value_t = ConvEngine::Model)]
    engine: ConvEngine,
    /// Quads per warp of the core (--engine rtl).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16))]
    quads: u32,
    /// Texture-cache lines of the unit (--engine rtl; a power of two).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(4..=256))]
    cache_lines: u32,
    /// Print the figures as JSON on stdout: requests, texel reads, unique texels,
    /// filter-active cycles, register writes, MAC operations, cycles (rtl), …
    #[arg(long)]
    json: bool,
}

fn kernel(spec: &str) -> Result<Kernel, Failure> {
    if let Some(k) = Kernel::preset(spec) {
        return Ok(k);
    }
    if !spec.ends_with(".json") && !std::path::Path::new(spec).exists() {
        return Err(Failure::usage(format!(
            "--kernel {spec}: not a preset ({}) nor a JSON file",
            conv::PRESETS.join(", ")
        )));
    }
    let text = std::fs::read_to_string(spec)
        .map_err(|e| Failure::usage(format!("--kernel {spec}: cannot read: {e}")))?;
    Kernel::from_json(spec, &text).map_err(Failure::usage)
}

/// Runs `rendergen conv`.
pub fn run(a: ConvArgs) -> Result<(), Failure> {
    if !a.cache_lines.is_power_of_two() {
        return Err(Failure::usage(format!(
            "--cache-lines {}: expected a power of two in 4..=256",
            a.cache_lines
        )));
    }
    let name = a.input.display().to_string();
    let bytes =
        std::fs::read(&a.input).map_err(|e| Failure::usage(format!("cannot read {name}: {e}")))?;
    let img = Image::read_png(&name, &bytes).map_err(Failure::usage)?;
    if let Some(path) = &a.shader {
        return run_shader(&a, path, &img);
    }
    let k = kernel(a.kernel.as_deref().expect("clap: --kernel or --shader"))?;
    let mode = match (a.mode, a.broadcast) {
        (ConvMode::Baseline, ConvBroadcast::All) => Mode::Baseline,
        (ConvMode::Baseline, b) => {
            return Err(Failure::usage(format!(
                "--broadcast {}: only with --mode collective",
                format!("{b:?}").to_lowercase()
            )))
        }
        (ConvMode::Collective, ConvBroadcast::All) => Mode::Collective,
        (ConvMode::Collective, ConvBroadcast::Selective) => Mode::Selective,
        (ConvMode::Collective, ConvBroadcast::Shared) => Mode::Shared,
    };
    let border = border(a.border);
    let result = match a.engine {
        ConvEngine::Model => conv::run_model(&img, &k, mode, border),
        ConvEngine::Rtl => rtl::run_rtl(
            &img,
            &k,
            mode,
            border,
            &rtl::RtlOptions {
                quads: a.quads,
                cache_lines: a.cache_lines,
                progress: true,
                ..rtl::RtlOptions::default()
            },
        ),
    }
    .map_err(Failure::check)?;
    let png = result.image.png().map_err(Failure::check)?;
    write_output(&a.out, |w| w.write_all(&png)).map_err(Failure::check)?;
    if a.json {
        let mut j = conv::stats_json(&result.stats);
        let o = j.as_object_mut().expect("an object");
        o.insert(
            "engine".into(),
            format!("{:?}", a.engine).to_lowercase().into(),
        );
        o.insert("mode".into(), format!("{:?}", a.mode).to_lowercase().into());
        o.insert(
            "broadcast".into(),
            format!("{:?}", a.broadcast).to_lowercase().into(),
        );
        o.insert(
            "border".into(),
            format!("{:?}", a.border).to_lowercase().into(),
        );
        o.insert("kernel".into(), format!("{}x{}", k.w, k.h).into());
        o.insert("width".into(), img.width.into());
        o.insert("height".into(), img.height.into());
        println!("{j}");
    }
    Ok(())
}

fn border(b: ConvBorder) -> Border {
    match b {
        ConvBorder::Clamp => Border::Clamp,
        ConvBorder::Repeat => Border::Repeat,
        ConvBorder::Mirror => Border::Mirror,
    }
}

/// `--shader FILE.glsl`: the kernel-shader pass on a user's shader, then both runs.
fn run_shader(a: &ConvArgs, path: &std::path::Path, img: &Image) -> Result<(), Failure> {
    if matches!(a.engine, ConvEngine::Rtl) {
        return Err(Failure::usage(
            "--shader runs on --engine model (the RTL engine runs the built-in kernels)"
                .to_string(),
        ));
    }
    let file = path.display().to_string();
    let src = std::fs::read_to_string(path)
        .map_err(|e| Failure::usage(format!("--shader {file}: cannot read: {e}")))?;
    let r = conv::shader::run_shader(img, &src, &file, border(a.border)).map_err(Failure::usage)?;
    match &r.pass.outcome {
        Err(refusal) => eprintln!("kernel-shader pass: kept the original ({refusal})"),
        Ok(an) => eprintln!(
            "kernel-shader pass: fired, {} samples ({} bilinear) -> {} raw broadcast footprints per quad; variants {:?}, selected {:?}",
            an.samples.len(),
            an.bilinear_samples(),
            an.footprints(),
            r.pass.variants.iter().map(|v| v.kind).collect::<Vec<_>>(),
            r.pass.selection
        ),
    }
    let out = r.converted.as_ref().unwrap_or(&r.original);
    let png = out.image.png().map_err(Failure::check)?;
    write_output(&a.out, |w| w.write_all(&png)).map_err(Failure::check)?;
    let identical = r.converted.as_ref().map(|c| c.image == r.original.image);
    if let Some(false) = identical {
        eprintln!("the converted image differs from the original's (expected with the bilinear reversal: exact fractions)");
    }
    if a.json {
        let j = serde_json::json!({
            "engine": "model",
            "border": format!("{:?}", a.border).to_lowercase(),
            "shader": file,
            "width": img.width,
            "height": img.height,
            "pass": r.pass_json(),
            "original": conv::stats_json(&r.original.stats),
            "converted": r.converted.as_ref().map(|c| conv::stats_json(&c.stats)),
            "images_identical": identical,
        });
        println!("{j}");
    }
    Ok(())
}
