//! Part 1 of `rendergen demo`: one ray per pixel textures an image through the PBRU.
//!
//! The engine is [`rendergen_gen::pbru::build_engine`] with the default [`PbruCfg`] (4 cores × 2
//! slots, every pipeline); the memory, program and rays come from
//! [`rendergen_gen::pbru::workload::setup`] (`texture` workload, the demo's texture); the
//! SM, TTU and L1 agents are those of `rendergen sim pbru` (`rendergen_sim::agents::pbru`).
//! [`System::run_with`] runs the clock (stopping the VCD after [`VCD_CYCLES`]) and compares each
//! finished ray with the golden interpreter; [`System::finished`] then gives each ray, whose top
//! four stack words are its pixel's colour. Any mismatch, unanswered ray or hang fails the demo.
//!
//! **Colour mapping.** The program leaves R G B A as Q16.16 (TEX_DP turns UNORM16 `c` into
//! `c + (c >> 15)`, so 1.0 is `0x10000`, then `MUL` by the ray's scale). A word `v` becomes the
//! 8-bit value `(clamp(v, 0, 0x10000) · 255 + 0x8000) >> 16`: 0 → 0, 1.0 → 255, rounded to
//! nearest; negative values give 0 and values above 1.0 give 255.
//!
//! **Reference.** `reference.png` decodes each pixel's texel with the reference ASTC decoder
//! (`decode_texel`, LDR linear, texel `(x mod 8, y mod 8)` of block `(x/8, y/8)`), applies the
//! same UNORM16 → Q16.16 conversion and the same `MUL` (`(a·b + 0x8000) >> 16`, ISA.md), and the
//! same 8-bit mapping. The demo fails if any Q16.16 word or any PNG byte differs.

use super::io;
use super::texture::{self, HEIGHT, WIDTH};
use crate::Failure;
use rendergen_gen::pbru::build_engine;
use rendergen_gen::pbru::workload::{self, Workload};
use rendergen_gen::verilog;
use rendergen_rtl::pbru::ports::PbruCfg;
use rendergen_sim::agents::pbru::{L1Cfg, SmLoad, System, SystemCfg};
use rendergen_sim::kit::TbError;
use rendergen_sim::models::astc::{decode_texel, AstcFile, Profile};
use rendergen_sim::Simulator;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Cycles recorded in `pbru.vcd` (from the start of reset).
const VCD_CYCLES: u64 = 2_000;
/// Seed of the workload and of the agents.
const SEED: u64 = 1;
/// The scale every ray multiplies its texel by (Q16.16 1.0: the image is the texture itself).
const SCALE: u32 = 0x1_0000;

/// Q16.16 → 8 bits (see the module documentation).
pub fn to_u8(v: u32) -> u8 {
    let v = (v as i32).clamp(0, 0x1_0000) as u32;
    ((v * 255 + 0x8000) >> 16) as u8
}

/// The ISA's `MUL`: `(a·b + 0x8000) >> 16` on the signed 64-bit product, wrapped to 32 bits.
fn mul_q16(a: u32, b: u32) -> u32 {
    ((a as i32 as i64 * b as i32 as i64 + 0x8000) >> 16) as u32
}

/// The Q16.16 RGBA the reference decoder gives pixel (`x`, `y`), scaled like the program.
fn reference_pixel(t: &AstcFile, x: u32, y: u32) -> [u32; 4] {
    let (bw, bh) = (t.footprint.w(), t.footprint.h());
    let texel = decode_texel(
        t.block(x / bw, y / bh),
        t.footprint,
        Profile::LdrLinear,
        x % bw,
        y % bh,
    );
    texel
        .rgba
        .map(|c| mul_q16(c as u32 + (c as u32 >> 15), SCALE))
}

/// One pipeline instance's activity (the conventions of `rendergen sim pbru`).
struct PipeLine {
    /// `astc_a`, or `astc_a0`, `astc_a1`, … when a kind has several instances.
    name: String,
    /// Requests accepted per cycle: `(sm_grants + core_grants) / cycles`.
    utilization: f64,
    /// Fraction of cycles with at least one request in flight (`perf_<instance>_busy`).
    busy: f64,
    core_grants: u64,
    sm_grants: u64,
}

/// What the engine run produced.
struct EngineRun {
    /// Q16.16 RGBA per pixel, row-major (`None`: the ray never finished or returned < 4 words).
    pixels: Vec<Option<[u32; 4]>>,
    cycles: u64,
    mismatches: Vec<String>,
    mismatch_count: u64,
    pipelines: Vec<PipeLine>,
    seconds: f64,
}

/// Runs the texture workload on the engine, tracing the first [`VCD_CYCLES`] into `vcd`.
fn run_engine(cfg: &PbruCfg, tex: &AstcFile, vcd: &Path) -> Result<EngineRun, Failure> {
    let check = |e: rendergen_sim::kit::TbError| Failure::check(format!("engine run: {e}"));
    let rays = tex.width * tex.height;
    let mut setup = workload::setup(Workload::Texture, None, Some(tex.clone()), rays, SEED)
        .map_err(Failure::check)?;
    for r in &mut setup.rays {
        r.ray.stack[6] = SCALE; // u v sqrt_cov base dims format scale
    }
    let design = build_engine(cfg).map_err(|e| Failure::check(format!("elaboration:\n{e}")))?;
    let mut sim = Simulator::new(&design).map_err(Failure::check)?;
    let f = std::fs::File::create(vcd).map_err(|e| io("create", vcd, e))?;
    sim.trace_vcd(std::io::BufWriter::new(f))
        .map_err(|e| io("write", vcd, e))?;
    sim.reset(2);
    let sys_cfg = SystemCfg {
        seed: SEED,
        sm_load: SmLoad {
            prob: 0.0,
            ..SmLoad::default()
        },
        pipes: cfg.pipes.iter().map(|p| p.kind).collect(),
        l1: L1Cfg::default(),
        ..SystemCfg::default()
    };
    let mut sys = System::new(&sim, setup.mem, &sys_cfg).map_err(check)?;
    for r in &setup.rays {
        sys.send(&r.ray, r.mode, r.ret_dst).map_err(check)?;
    }
    let started = Instant::now();
    // The agents check every finished ray against the golden interpreter.
    let report = sys
        .run_with(&mut sim, |sim| {
            if sim.cycle() == VCD_CYCLES {
                sim.finish_vcd()
                    .map_err(|e| TbError::new(format!("{}: {e}", vcd.display())))?;
            }
            Ok(())
        })
        .map_err(check)?;
    let seconds = started.elapsed().as_secs_f64();
    sim.finish_vcd().map_err(|e| io("write", vcd, e))?;
    let mut pixels = vec![None; rays as usize];
    for (id, ray) in sys.finished() {
        let s = &ray.stack;
        if let (Some(p), Some(top)) = (
            pixels.get_mut(*id as usize),
            s.len().checked_sub(4).map(|k| &s[k..]),
        ) {
            *p = Some([top[0], top[1], top[2], top[3]]);
        }
    }
    let cycles = sim.cycle().max(1) as f64;
    let names: Vec<String> = report.pipelines.keys().cloned().collect();
    let pipelines = (report.pipelines.iter())
        .map(|(n, p)| {
            // `astc_a0` → `astc_a` when the engine has one instance of the kind.
            let base = n.trim_end_matches(|c: char| c.is_ascii_digit());
            let single = !names
                .iter()
                .any(|m| m != n && m.starts_with(base) && m[base.len()..].parse::<u32>().is_ok());
            let name = if single { base.to_string() } else { n.clone() };
            PipeLine {
                name,
                utilization: (p.sm_grants + p.core_grants) as f64 / cycles,
                busy: p.busy,
                core_grants: p.core_grants,
                sm_grants: p.sm_grants,
            }
        })
        .collect();
    Ok(EngineRun {
        pixels,
        cycles: sim.cycle(),
        mismatches: report.mismatch_details.iter().take(8).cloned().collect(),
        mismatch_count: report.mismatches + report.unchecked,
        pipelines,
        seconds,
    })
}

/// Writes `path` and records it with its size.
fn written(files: &mut Vec<(PathBuf, u64)>, path: PathBuf) {
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    files.push((path, size));
}

/// Runs part 1 into `out`: `texture-source.png`, `texture.astc`, `textured.png`,
/// `reference.png`, `pbru.vcd`, `verilog/pbru/`.
pub fn run(out: &Path) -> Result<(), Failure> {
    let total = Instant::now();
    let mut files = Vec::new();
    let tex = texture::build(out)?;
    written(&mut files, out.join("texture-source.png"));
    written(&mut files, out.join("texture.astc"));
    let t = &tex.file;
    println!(
        "texture: {}x{} pixels, {}x{} footprint, {} blocks ({})",
        t.width,
        t.height,
        t.footprint.w(),
        t.footprint.h(),
        t.blocks.len(),
        tex.how
    );

    let cfg = PbruCfg::default();
    let design = build_engine(&cfg).map_err(|e| Failure::check(format!("elaboration:\n{e}")))?;
    let vdir = out.join("verilog").join("pbru");
    std::fs::create_dir_all(&vdir).map_err(|e| io("create", &vdir, e))?;
    let mut vbytes = 0;
    let vfiles = verilog::emit(&design);
    for f in &vfiles {
        let p = vdir.join(&f.name);
        std::fs::write(&p, &f.text).map_err(|e| io("write", &p, e))?;
        vbytes += f.text.len() as u64;
    }
    files.push((vdir.clone(), vbytes));
    println!(
        "engine: pbru, {} cores x {} slots, {} pipelines, {} nodes; Verilog: {} modules",
        cfg.cores,
        cfg.slots,
        cfg.pipes.len(),
        design.flat_node_count(),
        vfiles.len()
    );

    let vcd = out.join("pbru.vcd");
    let run = run_engine(&cfg, t, &vcd)?;
    written(&mut files, vcd);

    let (w, h) = (WIDTH, HEIGHT);
    let mut got = Vec::with_capacity((w * h * 4) as usize);
    let mut want = Vec::with_capacity((w * h * 4) as usize);
    let mut differ = 0u32;
    for y in 0..h {
        for x in 0..w {
            let r = reference_pixel(t, x, y);
            let g = run.pixels[(y * w + x) as usize];
            differ += (g != Some(r)) as u32;
            got.extend(g.unwrap_or([0; 4]).map(to_u8));
            want.extend(r.map(to_u8));
        }
    }
    let textured = out.join("textured.png");
    texture::write_png(&textured, w, h, &got)?;
    written(&mut files, textured);
    let reference = out.join("reference.png");
    texture::write_png(&reference, w, h, &want)?;
    written(&mut files, reference);
    let bytes_differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();

    let rays = w * h;
    println!(
        "rays {rays}, cycles {}, {:.4} rays/cycle ({:.2} cycles/ray); simulated in {:.1} s ({:.0} cycles/s)",
        run.cycles,
        rays as f64 / run.cycles as f64,
        run.cycles as f64 / rays as f64,
        run.seconds,
        run.cycles as f64 / run.seconds
    );
    println!(
        "mismatches against the interpreter: {}; pixels differing from the reference decoder: {differ} (PNG bytes: {bytes_differ})",
        run.mismatch_count
    );
    for m in &run.mismatches {
        println!("  mismatch: {m}");
    }
    println!("  pipeline     utilization     busy  core grants  SM grants");
    for p in &run.pipelines {
        println!(
            "  {:<12} {:>10.2}%  {:>6.2}%  {:>11}  {:>9}",
            p.name,
            100.0 * p.utilization,
            100.0 * p.busy,
            p.core_grants,
            p.sm_grants
        );
    }
    println!("  (utilization: requests accepted per cycle; busy: cycles with a request in flight)");
    println!("files:");
    for (p, size) in &files {
        println!("  {:<40} {:>10} bytes", p.display(), size);
    }
    println!("part 1 took {:.1} s", total.elapsed().as_secs_f64());
    if run.mismatch_count > 0 || differ > 0 || bytes_differ > 0 {
        return Err(Failure::check(format!(
            "{} rays differ from the interpreter, {differ} pixels from the reference decoder",
            run.mismatch_count
        )));
    }
    println!("engine: every ray equal to the interpreter; textured.png equal to reference.png");
    Ok(())
}
