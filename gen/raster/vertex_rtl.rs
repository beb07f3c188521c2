//! `--engine rtl`, vertex phase: every mesh's vertices of a pass shaded on the `tile_engine`
//! RTL's shader core (`rtl/tile/vertex.rs`), into the post-transform vertex buffer, checked
//! against the frame model's shaded vertices word for word.
//!
//! The driver
//! * places the model's vertex-data regions in the memory agent at the model's layout
//!   (addresses moved by `RTL_BASE − BASE`, as [`super::rtl`] does) and reaches them through
//!   one storage binding (the lowest the pass does not use: its base is the first region,
//!   every attribute at most 16 MiB above it);
//! * loads each mesh's vertex shader at slot `m` of the instruction memory behind its
//!   attribute prologue ([`vertex_prologue`]: the mesh's attribute layout, `imuli` + `ldg`),
//!   targets and `ldu` indices moved ([`relocate`]), and every vertex shader's uniforms into
//!   the uniform memory;
//! * allocates the post-transform buffer behind the model's regions (region
//!   `"<pass>: post-transform vertices"`, meshes one after another, each at a multiple of 16
//!   bytes: vertex `v` of mesh `m` at `ptv_base_m + v·(16 + 16·S)`), and offers one
//!   [`VertexCmd`](rendergen_rtl::tile::vertex::VertexCmd) per mesh on `vertex`; a command's transfer means its mesh is in memory.
//!
//! Errors are the model's words: a vertex warp's fault as `mesh `X` vertex shader: Error at
//! pc N` (pc relative to the shader, as the interpreter reports it), a missing position as
//! `mesh `X`: the vertex shader does not write a vec4 position`.
use super::rtl::{engine_cfg, engine_sim, regs_used, RtlOptions, RTL_BASE};
use rendergen_rtl::tile::frag::relocate;
use rendergen_rtl::tile::vertex::{vertex_prologue, AttributeLoad, VARYING_SLOTS};
use rendergen_shader_isa::WarpError;
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::StreamSource;
use rendergen_sim::models::tile::frame::{Pass, PassResult};
use rendergen_sim::models::tile::memory::{Memory, BASE};
use rendergen_sim::Simulator;

/// Registers per lane of the engine's core (the model's vertex launch fills `r0..r63`).
pub(super) const REGS: u32 = 64;

/// What a vertex phase on the RTL measured and produced.
#[derive(Clone, Debug, Default)]
pub struct VertexReport {
    /// Cycles from the first command offered to the last mesh's buffer in memory.
    pub cycles: u64,
    /// Warp instructions issued (prologues included; the model's `vertex_instructions`
    /// counts 64-lane warps, these are one-quad warps).
    pub issued: u64,
    /// Of those, attribute-prologue instructions.
    pub prologue: u64,
    /// Warps launched (four vertices each).
    pub warps: u64,
    /// Vertex slots per record (`S`, the pass's most varyings).
    pub slots: u32,
    /// Per mesh, its post-transform buffer as the RTL wrote it (`4 + 4·S` words a vertex).
    pub buffer: Vec<Vec<u32>>,
    /// Per agent region (name, bytes read, bytes written): the vertex data and the buffer.
    pub regions: Vec<(String, u64, u64)>,
}

/// Runs the vertex phase of `pass` on the RTL (module docs); `model` is the model's memory
/// after `run_pass` of the pass (or after its failure in the vertex stage: its vertex-data
/// regions are allocated first).
pub fn run_vertices_rtl(
    pass: &Pass,
    model: &Memory,
    opts: &RtlOptions,
) -> Result<VertexReport, String> {
    run_vertices_rtl_with(pass, model, opts, &mut |_, _| {})
}

/// A mesh's program placement.
struct Placed {
    words: Vec<u64>,
    prologue: u32,
    warps: u64,
}

/// [`run_vertices_rtl`], calling `finish` with the design and its simulator at the end (a
/// co-simulation of the recorded run, a VCD …).
pub fn run_vertices_rtl_with(
    pass: &Pass,
    model: &Memory,
    opts: &RtlOptions,
    finish: &mut dyn FnMut(&rendergen_hdl::Design, &mut Simulator),
) -> Result<VertexReport, String> {
    let shift = |a: u64| a - BASE + RTL_BASE;
    let used: Vec<u32> = pass.buffers.iter().map(|b| b.0).collect();
    let VertexSetup {
        binding,
        bind_base,
        programs: raw,
        uniforms: uniform_words,
        slots,
        counts,
        ..
    } = vertex_setup(pass, model, &used)?;
    let stride = 16 + 16 * slots as u64;
    let longest = (raw.iter().map(|(p, b, _)| p.len() + b.len()))
        .max()
        .unwrap_or(1)
        .max(1);
    let entry_log2 = longest.next_power_of_two().trailing_zeros();
    let placed: Vec<Placed> = (raw.iter().enumerate())
        .map(|(s, (pro, body, uniforms))| {
            let at = ((s << entry_log2) + pro.len()) as u32;
            let mut words = pro.clone();
            words.extend(relocate(body, at, *uniforms));
            Placed {
                words,
                prologue: pro.len() as u32,
                warps: counts[s].div_ceil(4),
            }
        })
        .collect();
    // Vertex shaders do not sample (the frame model gives them no texture).
    let cfg = engine_cfg(
        pass,
        (placed.len(), entry_log2),
        REGS,
        uniform_words.len(),
        None,
        "vertex programs",
    )?;
    let (design, mut sim) = engine_sim(&cfg, opts)?;
    let e = |e: rendergen_sim::SimError| e.to_string();
    let t = |e: rendergen_sim::kit::TbError| e.to_string();

    // Memory: the vertex data at the model's layout, the buffer behind every model region.
    let end = (model.regions().iter())
        .map(|r| r.base + r.size())
        .max()
        .unwrap_or(BASE);
    let ptv = shift(end).next_multiple_of(4096);
    let ptv_bases: Vec<u64> = (counts.iter())
        .scan(ptv, |at, &n| {
            let b = *at;
            *at += n * stride;
            Some(b)
        })
        .collect();
    let ptv_bytes = counts.iter().sum::<u64>() * stride;
    let mut mem = MemoryAgent::new(
        &sim,
        "mem",
        MemCfg {
            size: (ptv + ptv_bytes + 0x1000) as usize,
            min_latency: opts.latency.0,
            max_latency: opts.latency.1,
            stall: opts.stall,
            gap: opts.gap,
            poison: rendergen_sim::models::tile::memory::POISON,
            max_outstanding: 8,
            seed: opts.seed,
        },
    )
    .map_err(t)?;
    for &i in &vertex_regions(pass, model)? {
        let r = &model.regions()[i];
        mem.region(&r.name, shift(r.base), r.size());
        mem.load(shift(r.base), r.bytes());
    }
    mem.region(
        &format!("{}: post-transform vertices", pass.name),
        ptv,
        ptv_bytes.max(1),
    );
    sim.poke(
        sim.input(&format!("bases_{binding}")).map_err(e)?,
        shift(bind_base),
    );
    sim.reset(2);
    load_programs(
        &mut sim,
        &placed.iter().map(|p| p.words.clone()).collect::<Vec<_>>(),
        entry_log2,
        &uniform_words,
    )
    .map_err(e)?;

    // One command per mesh.
    let mut cmds = StreamSource::new(&sim, "vertex", opts.seed ^ 0x7E47).map_err(t)?;
    for (k, m) in pass.meshes.iter().enumerate() {
        cmds.send(&[
            counts[k],
            (k as u64) << entry_log2,
            ptv_bases[k],
            m.varyings as u64,
            slots as u64,
        ])
        .map_err(t)?;
    }
    let issue = sim.output("issue").map_err(e)?;
    let fault = sim.output("vertex_fault").map_err(e)?;
    let fault_pc = sim.output("vertex_fault_pc").map_err(e)?;
    let no_position = sim.output("vertex_no_position").map_err(e)?;
    let no_position_addr = sim.output("vertex_no_position_addr").map_err(e)?;
    let mut report = VertexReport {
        slots,
        warps: placed.iter().map(|p| p.warps).sum(),
        prologue: placed.iter().map(|p| p.warps * p.prologue as u64).sum(),
        ..VertexReport::default()
    };
    let start = sim.cycle();
    let meshes = pass.meshes.len();
    let mut moved = (0u64, 0u64, (0u64, 0u64));
    let mut moved_at = start;
    while (cmds.sent() as usize) < meshes {
        cmds.drive(&mut sim);
        mem.drive(&mut sim);
        cmds.sample(&mut sim);
        mem.sample(&mut sim);
        report.issued += sim.peek(issue);
        sim.step();
        let mesh = &pass.meshes[(cmds.sent() as usize).min(meshes - 1)];
        let code = sim.peek(fault);
        if code != 0 {
            let at = sim.peek(fault_pc);
            let slot = (at >> entry_log2) as usize;
            let pc = at
                - ((slot as u64) << entry_log2)
                - placed.get(slot).map_or(0, |p| p.prologue as u64);
            let name = WarpError::from_code(code as u32)
                .map_or_else(|| format!("error {code}"), |w| format!("{w:?}"));
            return Err(format!(
                "--engine rtl: mesh `{}` vertex shader: {name} at pc {pc}",
                pass.meshes[slot.min(meshes - 1)].name
            ));
        }
        if sim.peek(no_position) != 0 {
            let addr = sim.peek(no_position_addr);
            let k = ptv_bases.iter().rposition(|&b| b <= addr).unwrap_or(0);
            return Err(format!(
                "--engine rtl: mesh `{}`: the vertex shader does not write a vec4 position (vertex {})",
                pass.meshes[k].name,
                (addr - ptv_bases[k]) / stride
            ));
        }
        let now = (report.issued, cmds.sent(), mem.transactions());
        if now != moved {
            moved = now;
            moved_at = sim.cycle();
        }
        if sim.cycle() - start > opts.max_cycles || sim.cycle() - moved_at > opts.stall_cycles {
            let _ = sim.finish_vcd();
            return Err(format!(
                "--engine rtl: the vertex phase of mesh `{}` is stuck or too long ({} cycles; {} of {meshes} meshes done)",
                mesh.name,
                sim.cycle() - start,
                cmds.sent()
            ));
        }
    }
    mem.check().map_err(t)?;
    mem.assert_no_stray_writes().map_err(t)?;
    report.cycles = sim.cycle() - start;
    sim.finish_vcd()
        .map_err(|e| format!("--engine rtl: writing the VCD: {e}"))?;
    finish(&design, &mut sim);
    for (k, &n) in counts.iter().enumerate() {
        let bytes = mem.bytes(ptv_bases[k], (n * stride) as usize);
        report.buffer.push(
            (bytes.chunks_exact(4))
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect(),
        );
    }
    for r in mem.regions() {
        report
            .regions
            .push((r.name.clone(), r.read_bytes, r.written_bytes));
    }
    Ok(report)
}

/// A pass's vertex shading set up for the engine: the binding that reaches the vertex data,
/// each mesh's program (attribute prologue, shader, uniforms), its vertex count.
pub(super) struct VertexSetup {
    /// The storage binding of the vertex data (the lowest not in `taken`).
    pub binding: u32,
    /// The model address the binding's base reaches (the first vertex-data region).
    pub bind_base: u64,
    /// Per mesh: its prologue, its shader's words and its first uniform word.
    pub programs: Vec<(Vec<u64>, Vec<u64>, u32)>,
    /// Every vertex shader's uniform words, one after another.
    pub uniforms: Vec<u32>,
    /// Varying slots per post-transform record (`S`, the pass's most).
    pub slots: u32,
    /// Vertices per mesh.
    pub counts: Vec<u64>,
}

/// The model regions of `pass`'s vertex data, one per mesh.
pub(super) fn vertex_regions(pass: &Pass, model: &Memory) -> Result<Vec<usize>, String> {
    let mut regions = Vec::new();
    for m in &pass.meshes {
        let name = format!("{}: vertex data {}", pass.name, m.name);
        let r = (model.regions().iter())
            .position(|r| r.name == name)
            .ok_or_else(|| format!("--engine rtl: the model has no region `{name}`"))?;
        regions.push(r);
    }
    Ok(regions)
}

/// The vertex programs of `pass` ([`VertexSetup`]), the vertex data reached through the
/// lowest storage binding not in `taken`; an error for more varyings than the sink keeps, a
/// shader using more registers than the core has, vertex data spread over more than 16 MiB.
pub(super) fn vertex_setup(
    pass: &Pass,
    model: &Memory,
    taken: &[u32],
) -> Result<VertexSetup, String> {
    let slots = pass.meshes.iter().map(|m| m.varyings).max().unwrap_or(0);
    if slots > VARYING_SLOTS {
        return Err(format!(
            "--engine rtl: {slots} varying slots; the vertex sink keeps at most {VARYING_SLOTS}"
        ));
    }
    let binding = (0..16u32)
        .find(|b| !taken.contains(b))
        .ok_or("--engine rtl: every storage binding is in use; the vertex data needs one")?;
    let regions = vertex_regions(pass, model)?;
    let bind_base = (regions.iter())
        .map(|&r| model.regions()[r].base)
        .min()
        .unwrap_or(BASE);
    let mut programs = Vec::new();
    let mut uniforms: Vec<u32> = Vec::new();
    for (m, &r) in pass.meshes.iter().zip(&regions) {
        if regs_used(&m.vertex.words) > REGS as usize {
            return Err(format!(
                "--engine rtl: mesh `{}`'s vertex shader uses {} registers; the core has {REGS}",
                m.name,
                regs_used(&m.vertex.words)
            ));
        }
        let mut offset = model.regions()[r].base - bind_base;
        let mut loads = Vec::new();
        for a in &m.attributes {
            if offset + 4 * a.data.len() as u64 > 1 << 24 {
                return Err(format!(
                    "--engine rtl: mesh `{}`'s vertex data lies beyond 16 MiB of the first mesh's",
                    m.name
                ));
            }
            loads.push(AttributeLoad {
                location: a.location,
                components: a.components,
                addr: (binding << 24) + offset as u32,
            });
            offset += 4 * a.data.len() as u64;
        }
        let pro = vertex_prologue(&loads).map_err(|e| format!("mesh `{}`: {e}", m.name))?;
        programs.push((pro, m.vertex.words.clone(), uniforms.len() as u32));
        uniforms.extend(&m.vertex.uniforms);
    }
    Ok(VertexSetup {
        binding,
        bind_base,
        programs,
        uniforms,
        slots,
        counts: pass.meshes.iter().map(vertex_count).collect(),
    })
}

/// Vertices of a mesh (its first attribute's).
pub(super) fn vertex_count(m: &rendergen_sim::models::tile::frame::Mesh) -> u64 {
    m.attributes
        .first()
        .map_or(0, |a| (a.data.len() / a.components.max(1) as usize) as u64)
}

/// Programs at slots of `2^entry_log2` words, then the uniform words (the core takes `prog`
/// while idle).
pub(super) fn load_programs(
    sim: &mut Simulator,
    programs: &[Vec<u64>],
    entry_log2: u32,
    uniforms: &[u32],
) -> Result<(), rendergen_sim::SimError> {
    let (pv, pa, pw) = (
        sim.input("prog_valid")?,
        sim.input("prog_addr")?,
        sim.input("prog_word")?,
    );
    for (s, words) in programs.iter().enumerate() {
        for (k, &w) in words.iter().enumerate() {
            sim.poke(pv, 1);
            sim.poke(pa, ((s << entry_log2) + k) as u64);
            sim.poke(pw, w);
            sim.step();
        }
    }
    sim.poke(pv, 0);
    let (uv, ua, uw) = (
        sim.input("uniform_valid")?,
        sim.input("uniform_addr")?,
        sim.input("uniform_word")?,
    );
    for (k, &w) in uniforms.iter().enumerate() {
        sim.poke(uv, 1);
        sim.poke(ua, k as u64);
        sim.poke(uw, w as u64);
        sim.step();
    }
    sim.poke(uv, 0);
    Ok(())
}

/// The first difference between the RTL's post-transform buffer and the model's shaded
/// vertices (`result.clip_vertices`), or `None` when every word is equal.
pub fn compare_vertices(report: &VertexReport, result: &PassResult) -> Option<String> {
    if report.buffer.len() != result.clip_vertices.len() {
        return Some(format!(
            "{} meshes on the RTL, {} in the model",
            report.buffer.len(),
            result.clip_vertices.len()
        ));
    }
    let per = 4 + 4 * report.slots as usize;
    for (m, (rtl, verts)) in report.buffer.iter().zip(&result.clip_vertices).enumerate() {
        if rtl.len() != per * verts.len() {
            return Some(format!(
                "mesh {m}: {} words on the RTL, {} vertices in the model",
                rtl.len(),
                verts.len()
            ));
        }
        for (v, cv) in verts.iter().enumerate() {
            let want = cv
                .pos
                .iter()
                .map(|p| p.to_bits())
                .chain(cv.vary.iter().copied());
            for (k, w) in want.enumerate() {
                let got = rtl[v * per + k];
                if got != w {
                    return Some(format!(
                        "mesh {m} vertex {v} word {k}: RTL {got:#010x}, model {w:#010x}"
                    ));
                }
            }
        }
    }
    None
}

/// The vertex phase of every pass of a rendered frame with meshes on the RTL, each checked
/// against the model's vertices (an error names the pass and the first different word);
/// per pass its name and report.
pub fn render_vertices_rtl(
    frame: &super::Frame,
    opts: &RtlOptions,
) -> Result<Vec<(String, VertexReport)>, super::RasterError> {
    let fail = |message: String| super::RasterError { code: 1, message };
    let mut out = Vec::new();
    for (pass, (name, result)) in frame.descs.iter().zip(&frame.passes) {
        if pass.meshes.is_empty() {
            continue;
        }
        let r = run_vertices_rtl(pass, &frame.memory, opts)
            .map_err(|e| fail(format!("{e} (pass `{name}`)")))?;
        if let Some(d) = compare_vertices(&r, result) {
            return Err(fail(format!(
                "--engine rtl: the RTL's post-transform vertices differ from the model's in pass `{name}`: {d}"
            )));
        }
        out.push((name.clone(), r));
    }
    Ok(out)
}

/// The `--json` section of the vertex phases (`rtl_vertex`): per pass the RTL's cycles,
/// warp instructions (prologue included) and warps beside the model's `vertex_instructions`
/// (64-lane warps) and `cycles_geometry`.
pub fn vertices_json(
    frame: &super::Frame,
    reports: &[(String, VertexReport)],
) -> serde_json::Value {
    let passes: Vec<serde_json::Value> = (reports.iter())
        .map(|(name, r)| {
            let model = frame.passes.iter().find(|p| &p.0 == name).map(|p| &p.1);
            serde_json::json!({
                "pass": name,
                "vertices": model.map_or(0, |m| m.vertices),
                "cycles": r.cycles,
                "instructions": r.issued,
                "prologue_instructions": r.prologue,
                "warps": r.warps,
                "slots": r.slots,
                "model_vertex_instructions": model.map_or(0, |m| m.vertex_instructions),
                "model_cycles_geometry": model.map_or(0, |m| m.cycles_geometry),
                "regions": r.regions.iter().map(|(n, rd, wr)| serde_json::json!({ "name": n, "read_bytes": rd, "written_bytes": wr })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "cycles": reports.iter().map(|r| r.1.cycles).sum::<u64>(),
        "instructions": reports.iter().map(|r| r.1.issued).sum::<u64>(),
        "passes": passes,
    })
}
