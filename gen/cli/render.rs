//! `rendergen render SCENE.json -o OUT.png`: a scene rendered through the PBRU
//! (`rendergen_gen::render`).

use crate::Failure;
use clap::{Args, ValueEnum};
use rendergen_gen::render::{render, EngineKind, RenderOptions, Rendered, Scene};
use std::path::PathBuf;

/// The engine that runs the materials.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Engine {
    /// The cycle-accurate PBRU (`pbru_top`, default configuration), checked against the
    /// interpreter.
    Rtl,
    /// The PBRU interpreter.
    Model,
    /// The independent f64 reference.
    F64,
}

/// `rendergen render`.
#[derive(Args)]
pub struct RenderArgs {
    /// The scene (JSON; format and example in gen/render/scenes/).
    scene: PathBuf,
    /// Output image: `.png` (sRGB, 8 bits) or `.pfm` (linear, 32-bit float).
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Samples per pixel (1: pixel centres; more: jittered).
    #[arg(long, default_value_t = 1)]
    spp: u32,
    /// Bounces: 1 is direct light only; each further one importance-samples a direction.
    #[arg(long, default_value_t = 1)]
    depth: u32,
    /// Where the material programs run.
    #[arg(long, value_enum, default_value_t = Engine::Rtl)]
    engine: Engine,
    /// Seed of the random numbers (pixel jitter, ξ, ray ids).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// PBRU cores (--engine rtl; the other parameters are the defaults).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=8))]
    cores: u32,
    /// Ray slots per core (--engine rtl).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    slots: u32,
    /// Override the scene's width.
    #[arg(long)]
    width: Option<u32>,
    /// Override the scene's height.
    #[arg(long)]
    height: Option<u32>,
    /// Print statistics as JSON on stdout: rays, PBRU cycles, rays per cycle, per-pipeline
    /// utilization, PSNR against the f64 render (rendered too unless --engine f64), time.
    #[arg(long)]
    json: bool,
}

fn stats_json(img: &Rendered, engine: Engine, reference: Option<&Rendered>) -> serde_json::Value {
    let e = &img.engine;
    let pipes: serde_json::Map<String, serde_json::Value> = (e.pipelines.iter())
        .map(|(k, p)| {
            (
                k.clone(),
                serde_json::json!({ "utilization": p.utilization, "busy": p.busy }),
            )
        })
        .collect();
    serde_json::json!({
        "engine": format!("{engine:?}").to_lowercase(),
        "width": img.width,
        "height": img.height,
        "camera_rays": img.camera_rays,
        "shadow_rays": img.shadow_rays,
        "pbru_rays": img.pbru_rays(),
        "shading_rays": e.shading_rays,
        "sampling_rays": e.sampling_rays,
        "pbru_cycles": e.cycles,
        "rays_per_cycle": if e.cycles > 0 { img.pbru_rays() as f64 / e.cycles as f64 } else { 0.0 },
        "mismatches": e.mismatches,
        "mismatch_details": e.mismatch_details,
        "pipelines": pipes,
        "psnr_vs_f64_db": reference.map(|r| {
            let p = img.psnr(r);
            if p.is_finite() { serde_json::json!(p) } else { serde_json::json!("inf") }
        }),
        "render_seconds": img.seconds,
        "reference_seconds": reference.map(|r| r.seconds),
    })
}

/// Runs `rendergen render`.
pub fn run(a: RenderArgs) -> Result<(), Failure> {
    let mut scene = Scene::load(&a.scene).map_err(Failure::check)?;
    for (v, name) in [(a.width, "--width"), (a.height, "--height")] {
        if v.is_some_and(|v| !(1..=4096).contains(&v)) {
            return Err(Failure::usage(format!("{name}: expected 1..=4096")));
        }
    }
    scene.width = a.width.unwrap_or(scene.width);
    scene.height = a.height.unwrap_or(scene.height);
    let kind = match a.engine {
        Engine::Rtl => EngineKind::Rtl,
        Engine::Model => EngineKind::Model,
        Engine::F64 => EngineKind::F64,
    };
    let opts = RenderOptions {
        spp: a.spp,
        depth: a.depth,
        engine: kind,
        seed: a.seed,
        cores: a.cores,
        slots: a.slots,
    };
    let ext = a.out.extension().and_then(|e| e.to_str()).unwrap_or("");
    let pfm = ext == "pfm";
    if ext != "png" && !pfm {
        return Err(Failure::usage(format!(
            "-o {}: the output must end in .png or .pfm",
            a.out.display()
        )));
    }
    let img = render(&scene, &opts).map_err(Failure::check)?;
    let bytes = if pfm {
        img.pfm()
    } else {
        img.png().map_err(Failure::check)?
    };
    rendergen_gen::output::write_output(&a.out, |w| w.write_all(&bytes)).map_err(Failure::check)?;
    if img.engine.mismatches > 0 {
        eprintln!(
            "warning: {} PBRU rays differ from the interpreter: {:?}",
            img.engine.mismatches, img.engine.mismatch_details
        );
    }
    if a.json {
        let reference = if kind == EngineKind::F64 {
            None
        } else {
            let o = RenderOptions {
                engine: EngineKind::F64,
                ..opts
            };
            Some(render(&scene, &o).map_err(Failure::check)?)
        };
        println!("{:#}", stats_json(&img, a.engine, reference.as_ref()));
    } else {
        println!(
            "{}: {}x{}, {} PBRU rays, {} s",
            a.out.display(),
            img.width,
            img.height,
            img.pbru_rays(),
            img.seconds
        );
    }
    if img.engine.mismatches > 0 {
        return Err(Failure::check(format!(
            "{} PBRU rays differ from the interpreter",
            img.engine.mismatches
        )));
    }
    Ok(())
}
