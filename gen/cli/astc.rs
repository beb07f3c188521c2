//! `rendergen astc decode` and `rendergen astc info`.

use crate::Failure;
use clap::{Subcommand, ValueEnum};
use rendergen_sim::models::astc::{decode_texel, AstcFile, BlockInfo, Profile, Texel};
use rendergen_sim::models::ktx;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// ASTC subcommands.
#[derive(Subcommand)]
pub enum AstcCommand {
    /// Decode a whole .astc image, every texel through the ASTC_DP RTL (cycle-accurate) or the
    /// reference model; LDR/sRGB write an RGBA8 PNG, HDR a KTX 1.0 file of half-floats.
    Decode {
        /// Input .astc file.
        input: PathBuf,
        /// Output file (.png for LDR/sRGB, .ktx for HDR).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Decode profile.
        #[arg(long, value_enum, default_value_t = ProfileArg::Ldr)]
        profile: ProfileArg,
        /// Decoder: the ASTC_DP RTL in simulation, or the reference model.
        #[arg(long, value_enum, default_value_t = DecodeEngine::Rtl)]
        engine: DecodeEngine,
    },
    /// Footprint, size, and a histogram of block kinds.
    Info {
        /// Input .astc file.
        input: PathBuf,
    },
}

/// `--profile` values.
#[derive(Clone, Copy, ValueEnum)]
pub enum ProfileArg {
    /// LDR, linear.
    Ldr,
    /// LDR, sRGB.
    Srgb,
    /// HDR.
    Hdr,
}

/// `--engine` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DecodeEngine {
    /// ASTC_DP RTL in the cycle simulator.
    Rtl,
    /// Reference model.
    Model,
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Profile {
        match p {
            ProfileArg::Ldr => Profile::LdrLinear,
            ProfileArg::Srgb => Profile::LdrSrgb,
            ProfileArg::Hdr => Profile::Hdr,
        }
    }
}

/// Runs an `astc` subcommand.
pub fn run(cmd: AstcCommand) -> Result<(), Failure> {
    match cmd {
        AstcCommand::Info { input } => info(&input),
        AstcCommand::Decode {
            input,
            out,
            profile,
            engine,
        } => decode(&input, &out, profile.into(), engine),
    }
}

fn read(input: &Path) -> Result<AstcFile, Failure> {
    AstcFile::read(input).map_err(|e| Failure::check(format!("{}: {e}", input.display())))
}

fn info(input: &Path) -> Result<(), Failure> {
    let file = read(input)?;
    let fp = file.footprint;
    println!("file:       {}", input.display());
    println!("footprint:  {}x{}", fp.w(), fp.h());
    println!(
        "size:       {}x{} texels, {}x{} blocks",
        file.width,
        file.height,
        file.blocks_x(),
        file.blocks_y()
    );
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    for block in &file.blocks {
        let bits = rendergen_sim::models::astc::block_bits(block);
        for label in histogram_labels(&BlockInfo::parse(bits, fp)) {
            *kinds.entry(label).or_default() += 1;
        }
    }
    println!("blocks:     {}", file.blocks.len());
    for (k, n) in kinds {
        println!(
            "  {k:<32} {n:>9}  ({:.1}%)",
            100.0 * n as f64 / file.blocks.len() as f64
        );
    }
    Ok(())
}

/// The histogram rows a block counts in: its kind, and for normal blocks the partition count,
/// dual-plane, each partition's endpoint mode and the weight range.
fn histogram_labels(kind: &BlockInfo) -> Vec<String> {
    match kind {
        BlockInfo::VoidExtent { hdr, .. } => {
            vec![format!("void-extent {}", if *hdr { "hdr" } else { "ldr" })]
        }
        BlockInfo::Illegal(reason) => vec![format!("illegal: {reason}")],
        BlockInfo::Normal(l) => {
            let mut v = vec![
                format!("partitions {}", l.partitions),
                format!(
                    "dual-plane {}",
                    if l.mode.dual_plane { "yes" } else { "no" }
                ),
                format!("weight range 0..{}", l.mode.weight_quant.levels() - 1),
            ];
            let mut cems: Vec<u8> = l.cems[..l.partitions as usize].to_vec();
            cems.sort_unstable();
            cems.dedup();
            v.extend(cems.iter().map(|c| format!("endpoint mode {c:>2}")));
            v
        }
    }
}

fn decode(input: &Path, out: &Path, profile: Profile, engine: DecodeEngine) -> Result<(), Failure> {
    let file = read(input)?;
    let started = Instant::now();
    let (texels, cycles) = match engine {
        DecodeEngine::Model => (decode_model(&file, profile), None),
        DecodeEngine::Rtl => {
            let (t, c) = crate::astc_rtl::decode(&file, profile, progress)?;
            (t, Some(c))
        }
    };
    eprintln!();
    let seconds = started.elapsed().as_secs_f64();
    write_image(out, &file, profile, &texels)?;
    let n = texels.len() as u64;
    println!("texels:          {n}");
    match cycles {
        Some(c) => {
            println!("cycles:          {c}");
            println!("texels/cycle:    {:.3}", n as f64 / c as f64);
        }
        None => println!("cycles:          - (reference model)"),
    }
    println!(
        "texels/second:   {:.0} (wall {:.2} s)",
        n as f64 / seconds,
        seconds
    );
    println!("wrote {}", out.display());
    Ok(())
}

/// Prints a progress bar on stderr (every 1/64 of the work).
pub fn progress(done: u64, total: u64) {
    if total < 65_536 || !done.is_multiple_of((total / 64).max(1)) && done != total {
        return;
    }
    let filled = (done * 40 / total.max(1)) as usize;
    eprint!(
        "\r[{}{}] {:>3}%",
        "#".repeat(filled),
        " ".repeat(40 - filled),
        done * 100 / total.max(1)
    );
    let _ = std::io::stderr().flush();
}

fn decode_model(file: &AstcFile, profile: Profile) -> Vec<Texel> {
    let (w, h) = (file.width, file.height);
    let (bw, bh) = (file.footprint.w(), file.footprint.h());
    let total = w as u64 * h as u64;
    let mut out = Vec::with_capacity(total as usize);
    for y in 0..h {
        for x in 0..w {
            let block = file.block(x / bw, y / bh);
            out.push(decode_texel(block, file.footprint, profile, x % bw, y % bh));
            progress(out.len() as u64, total);
        }
    }
    out
}

fn write_image(
    out: &Path,
    file: &AstcFile,
    profile: Profile,
    texels: &[Texel],
) -> Result<(), Failure> {
    let fail = |e: String| Failure::check(format!("cannot write {}: {e}", out.display()));
    if profile == Profile::Hdr {
        let halfs: Vec<u16> = texels.iter().flat_map(|t| t.to_fp16()).collect();
        return std::fs::write(out, ktx::write_rgba16f(file.width, file.height, &halfs))
            .map_err(|e| fail(e.to_string()));
    }
    let bytes: Vec<u8> = texels.iter().flat_map(|t| t.to_rgba8()).collect();
    let f = std::fs::File::create(out).map_err(|e| fail(e.to_string()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(f), file.width, file.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| fail(e.to_string()))?;
    writer
        .write_image_data(&bytes)
        .map_err(|e| fail(e.to_string()))
}
