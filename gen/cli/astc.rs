//! `rendergen astc decode` and `rendergen astc info`.

use crate::Failure;
use clap::{Subcommand, ValueEnum};
use rendergen_gen::astc::{
    block_histogram, decode_into, decode_model_rows, decode_rtl_rows, ImageFormat,
};
use rendergen_gen::output::VcdOut;
use rendergen_gen::progress::Progress;
use rendergen_sim::models::astc::{AstcFile, Profile, Texel};
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
        /// Output file: .png (LDR/sRGB, RGBA8) or .ktx (RGBA8 for LDR/sRGB, half-floats for
        /// HDR), as astcenc writes them.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Decode profile.
        #[arg(long, value_enum, default_value_t = ProfileArg::Ldr)]
        profile: ProfileArg,
        /// Decoder: the ASTC_DP RTL in simulation, or the reference model.
        #[arg(long, value_enum, default_value_t = DecodeEngine::Rtl)]
        engine: DecodeEngine,
        /// Waveform of the RTL decode.
        #[command(flatten)]
        vcd: crate::vcd::VcdArgs,
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
            vcd,
        } => {
            let vcd = vcd.out()?;
            if vcd.is_some() && matches!(engine, DecodeEngine::Model) {
                return Err(Failure::usage("--vcd needs --engine rtl"));
            }
            decode(&input, &out, profile.into(), engine, vcd)
        }
    }
}

/// Reads an `.astc` file; bytes after the last block are ignored with a warning, as astcenc
/// ignores them.
pub(crate) fn read(input: &Path) -> Result<AstcFile, Failure> {
    let (file, extra) = AstcFile::read_lenient(input)
        .map_err(|e| Failure::check(format!("{}: {e}", input.display())))?;
    if extra > 0 {
        eprintln!(
            "warning: {}: {extra} bytes after the last block ignored (astcenc ignores them too)",
            input.display()
        );
    }
    Ok(file)
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
    println!("blocks:     {}", file.blocks.len());
    for (k, n) in block_histogram(&file) {
        println!(
            "  {k:<40} {n:>9}  ({:.1}%)",
            100.0 * n as f64 / file.blocks.len() as f64
        );
    }
    Ok(())
}

fn decode(
    input: &Path,
    out: &Path,
    profile: Profile,
    engine: DecodeEngine,
    vcd: Option<VcdOut>,
) -> Result<(), Failure> {
    let format = ImageFormat::for_path(out, profile).map_err(Failure::usage)?;
    let file = read(input)?;
    let started = Instant::now();
    let total = file.width as u64 * file.height as u64;
    let bar = Progress::bar(&format!("decoding {}", input.display()), total, "texels");
    let (width, mut done) = (file.width as u64, 0u64);
    let cycles = decode_into(out, (file.width, file.height), format, |sink| {
        let mut rows = |row: &[Texel]| {
            sink(row)?;
            done += width;
            bar.set(done);
            Ok(())
        };
        match engine {
            DecodeEngine::Model => decode_model_rows(&file, profile, &mut rows).map(|()| None),
            DecodeEngine::Rtl => decode_rtl_rows(&file, profile, vcd.as_ref(), &mut rows).map(Some),
        }
    })
    .map_err(Failure::check)?;
    drop(bar);
    let seconds = started.elapsed().as_secs_f64();
    let n = total;
    println!("texels:          {n}");
    match cycles {
        Some(c) => {
            println!("cycles:          {c}");
            println!("texels/cycle:    {:.4}", n as f64 / c as f64);
        }
        None => println!("cycles:          - (reference model)"),
    }
    println!(
        "texels/second:   {:.0} (wall {seconds:.2} s)",
        n as f64 / seconds
    );
    println!("wrote {}", out.display());
    Ok(())
}
