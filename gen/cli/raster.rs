//! `rendergen raster SCENE.json -o OUT.png`: a scene rendered by the tile engine
//! (`rendergen_gen::raster`; scenes in gen/raster/scenes/).

use crate::pbru::EvalArg;
use crate::Failure;
use clap::{Args, ValueEnum};
use rendergen_gen::progress::Progress;
use rendergen_gen::raster::rtl::RtlOptions;
use rendergen_gen::raster::{render, render_rtl, rtl_json, Mode, RasterScene};
use std::path::PathBuf;

/// How the frame is rendered.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModeArg {
    /// G-buffer in the tile buffer, lighting by the tile shader, only the output written out.
    TileShader,
    /// The conventional deferred renderer: G-buffer written out, read back by a full-screen pass.
    TwoPass,
    /// One pass with each mesh's forward shader.
    Forward,
}

/// Which engine renders.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EngineArg {
    /// The tile engine's RTL (`tile_engine`), simulated cycle by cycle from vertices to
    /// pixels, one simulation per pass (after the model's run of the same frame); its image,
    /// primitive data and command lists must equal the model's bit for bit.
    Rtl,
    /// The frame-level golden model (sim/models/tile/frame.rs).
    Model,
}

/// `rendergen raster`.
#[derive(Args)]
pub struct RasterArgs {
    /// The scene (JSON; format in gen/raster/scene.rs, examples in gen/raster/scenes/).
    scene: PathBuf,
    /// Output image (.png, 8-bit RGBA).
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Rendering mode.
    #[arg(long, value_enum, default_value_t = ModeArg::TileShader)]
    mode: ModeArg,
    /// Samples per pixel: 1 or 4.
    #[arg(long, default_value_t = 1)]
    msaa: u32,
    /// Engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Model)]
    engine: EngineArg,
    /// Print statistics as JSON on stdout: cycles (the model's cost model), pixels per clock,
    /// external bytes per region and class, the analytic minimum, per-tile counts and cycles.
    #[arg(long)]
    json: bool,
    /// With `--engine rtl`: give up (with what is stuck) after this many cycles.
    #[arg(long, default_value_t = RtlOptions::default().max_cycles)]
    max_cycles: u64,
    /// With `--engine rtl`: write a VCD of the run (every named signal) to this file.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// With `--engine rtl`: how the simulator evaluates logic: `active` skips groups of logic
    /// whose inputs did not change (same results, faster: most of the engine idles in any
    /// phase); `full` evaluates everything every cycle (the reference).
    #[arg(long, value_enum, default_value_t = EvalArg::Active)]
    eval: EvalArg,
    /// With `--engine rtl` and a one-pass mode: record the engine's inputs of every cycle into
    /// FILE, to time the simulators on a real frame with `rendergen bench tile_engine -p …
    /// --replay FILE --engine E` (the parameters are printed on stderr and in `--json`'s
    /// `rtl.replay_params`). About 8 bytes per input word per cycle: keep the frame small.
    #[arg(long, value_name = "FILE")]
    record_stimulus: Option<PathBuf>,
}

/// Runs `rendergen raster`.
pub fn run(a: RasterArgs) -> Result<(), Failure> {
    if !matches!(a.msaa, 1 | 4) {
        return Err(Failure::usage(format!(
            "--msaa {}: expected 1 or 4",
            a.msaa
        )));
    }
    if a.out.extension().and_then(|e| e.to_str()) != Some("png") {
        return Err(Failure::usage(format!(
            "-o {}: the output must end in .png",
            a.out.display()
        )));
    }
    if let Some(f) = &a.record_stimulus {
        if !matches!(a.engine, EngineArg::Rtl) || matches!(a.mode, ModeArg::TwoPass) {
            return Err(Failure::usage(format!(
                "--record-stimulus {}: needs --engine rtl and a one-pass mode (tile-shader or forward)",
                f.display()
            )));
        }
    }
    let scene = RasterScene::load(&a.scene).map_err(Failure::check)?;
    let mode = match a.mode {
        ModeArg::TileShader => Mode::TileShader,
        ModeArg::TwoPass => Mode::TwoPass,
        ModeArg::Forward => Mode::Forward,
    };
    let passes = if matches!(mode, Mode::TwoPass) { 2 } else { 1 };
    let tiles = passes * scene.width.div_ceil(16) as u64 * scene.height.div_ceil(16) as u64;
    let bar = Progress::bar("raster", tiles, "tiles");
    let mut frame =
        render(&scene, mode, a.msaa, &mut |done, _| bar.set(done)).map_err(|e| Failure {
            code: e.code,
            message: e.message,
        })?;
    drop(bar);
    let rtl = match a.engine {
        EngineArg::Model => None,
        EngineArg::Rtl => Some(
            render_rtl(
                &mut frame,
                &RtlOptions {
                    max_cycles: a.max_cycles,
                    vcd: a.vcd.clone(),
                    eval: a.eval.eval(),
                    stimulus: a.record_stimulus.clone(),
                    progress: true,
                    ..RtlOptions::default()
                },
            )
            .map_err(|e| Failure {
                code: e.code,
                message: e.message,
            })?,
        ),
    };
    if let (Some(f), Some(r)) = (&a.record_stimulus, &rtl) {
        eprintln!(
            "recorded the run's inputs into {}; replay: rendergen bench tile_engine -p {} --replay {} --engine E",
            f.display(),
            r.replay_params.join(" -p "),
            f.display()
        );
    }
    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, frame.width, frame.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(Failure::check)?;
        w.write_image_data(&frame.rgba8()).map_err(Failure::check)?;
    }
    rendergen_gen::output::write_output(&a.out, |w| w.write_all(&png_bytes))
        .map_err(Failure::check)?;
    if a.json {
        let mut doc = frame.stats_json(mode, a.msaa);
        if let Some(r) = &rtl {
            doc["engine"] = "rtl".into();
            doc["rtl"] = rtl_json(&frame, r);
            doc["rtl"]["simulator_eval"] = format!("{:?}", a.eval).to_lowercase().into();
            if a.record_stimulus.is_some() {
                doc["rtl"]["replay_params"] = r.replay_params.clone().into();
            }
            doc["rtl_vertex"] = rendergen_gen::raster::vertex_rtl::vertices_json(&frame, &r.vertex);
            doc["rtl_geometry"] = rendergen_gen::raster::geometry_json(r);
        }
        println!("{doc:#}");
    } else if let Some(r) = &rtl {
        println!(
            "{}: {}x{}, {} RTL cycles, {:.3} pixels/clock, core utilisation {:.3} (bit-identical to the model)",
            a.out.display(),
            frame.width,
            frame.height,
            r.cycles,
            (frame.width * frame.height) as f64 / r.cycles.max(1) as f64,
            r.core_utilisation()
        );
    } else {
        let (r, w) = frame.memory.totals();
        println!(
            "{}: {}x{}, {} cycles (model cost), {} B read, {} B written (minimum {} B)",
            a.out.display(),
            frame.width,
            frame.height,
            frame.cycles(),
            r,
            w,
            frame.minimum_bytes
        );
    }
    Ok(())
}
