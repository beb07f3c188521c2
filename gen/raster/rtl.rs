//! `--engine rtl`: a render pass on the `tile_engine` RTL (`rendergen_rtl::tile::engine`,
//! built with its geometry front end, `EngineCfg::geometry`), simulated cycle by cycle in ONE
//! simulation from vertices to pixels: the vertex phase, then the geometry front end from the
//! RTL's own post-transform buffer, then every tile from the RTL's own lists and primitive
//! data.
//!
//! The frame model runs the pass first (for the comparison, and for the inputs: vertex data,
//! textures, storage buffers). Its memory is placed in the byte-accurate memory agent
//! (`rendergen_sim::agents::memory::MemoryAgent`) at the same layout (addresses moved down by a
//! constant, `RTL_BASE − BASE`); loaded are the inputs, **not** the model's `"<pass>:
//! primitive data"` (the RTL writes it, at the same place and layout: `geom_prim_base` is the
//! region's base, primitive `id`'s `3·(1 + 4·S)` words at `+ 4·3·(1 + 4·S)·id`, as the
//! fragment prologue reads them), nor its `"<pass>: command lists"` (the model packs its lists
//! behind a table; the RTL's list writer keeps fixed bins, so the region stays untouched), nor
//! the surfaces the write-out fills. **Memory layout decisions** behind the model's regions:
//! * [`PTV_REGION`], at the first 4 KiB boundary behind them: the post-transform buffer, the
//!   meshes one after another, vertex `v` of mesh `m` at `ptv_base_m + v·(16 + 16·S)`
//!   (`S` = the pass's most varying slots; what `vertex_exports` writes and `geom_fetch`
//!   reads);
//! * [`LISTS_REGION`], at the next 4 KiB boundary: tile `t`'s bin at `lists_base + t·8·B`,
//!   `B` = the model's longest list rounded up to a power of two (at least 32 words; a `DRAW`
//!   that does not fit sets `geom_overflow`, an error).
//!
//! The driver
//! * loads every program into the core's instruction memory through `prog` — draw state `s`'s
//!   fragment shader behind its prologue (`rtl/tile/frag.rs`: barycentrics and varyings on
//!   the core) at slot `s`, tile program `p` at slot `meshes + p`, mesh `m`'s vertex shader
//!   behind its attribute prologue (`vertex_rtl`) at slot `meshes + resolves + m`, slots of
//!   `2^entry_log2` words — with control targets moved to absolute instruction-memory words
//!   (slot base + prologue length) and `ldu` indices to the program's uniforms
//!   (`frag::relocate`), and every program's uniforms into the uniform memory (`uniform`);
//! * sets the storage bindings' bases (the primitive buffer gets the lowest free binding, the
//!   vertex data the next), each draw state's (mesh's) blend state per target and late-depth
//!   flag, the write-out's static configuration, the
//!   image-load unit's surface table (`rtl/tile/image_load.rs`: the surfaces a two-pass
//!   lighting pass reads, whose bytes are an earlier RTL pass's, [`RtlOptions::preload`]) and
//!   the front end's (`geom_*`: screen, tiles, bins, clear values, primitive base);
//! * offers one vertex command per mesh on `vertex`; once the last is taken (its transfer
//!   means the mesh's vertices are in memory) the `mesh` items (a frame-begin marker, each
//!   mesh with the `RESOLVE` tokens that follow it, the frame-end marker) and the `resolve`
//!   descriptors; the engine hands each list to its back end itself, after every list word
//!   and every primitive-data write is acknowledged (`list_offered`, `list_taken`);
//! * when the first list is offered (the geometry phase's end), checks the RTL's
//!   post-transform vertices, the front end's counters, its primitive data and every list
//!   word against the model's (an error names the first difference), then runs the tiles
//!   until the last list is taken.
//!
//! The surfaces' bytes, and those of the storage buffers the pass binds, are then the RTL's;
//! [`compare`] checks them against the model's.
use super::vertex_rtl::{
    compare_vertices, load_programs, vertex_regions, vertex_setup, VertexReport, VertexSetup,
};
use rendergen_hdl::HwEnum;
use rendergen_rtl::shader::ShaderCfg;
use rendergen_rtl::tile::cmd::CmdState;
use rendergen_rtl::tile::engine::{tile_engine_top, EngineCfg};
use rendergen_rtl::tile::frag::{fragment_prologue, relocate, FragCfg, SCRATCH_REGS};
use rendergen_rtl::tile::geometry::fetch::FetchCfg;
use rendergen_rtl::tile::geometry::frontend::FrontCfg;
use rendergen_rtl::tile::geometry::{GeomCfg, KIND_BEGIN, KIND_END, KIND_RESOLVE, KIND_TRIANGLE};
use rendergen_rtl::tile::image_load::{ImageError, ImageFormat};
use rendergen_rtl::tile::texture::{EngineTexCfg, TEX_STATES};
use rendergen_rtl::tile::{RtFormat, TileCfg};
use rendergen_shader_isa::Inst;
use rendergen_sim::agents::memory::{MemCfg, MemoryAgent};
use rendergen_sim::kit::StreamSource;
use rendergen_sim::models::texture::Filter;
use rendergen_sim::models::tile::buffer::Format;
use rendergen_sim::models::tile::frame::{Pass, PassResult};
use rendergen_sim::models::tile::memory::{Memory, BASE};
use rendergen_sim::models::tile::port::WriteMode;
use rendergen_sim::models::tile::setup::{CullMode, FrontFace};
use rendergen_sim::{Eval, Simulator};

/// Most draw states (meshes of a pass) the engine's blend-state and late-depth tables hold
/// (`FragCfg::states`' range).
pub const MAX_STATES: u32 = 16;

/// Where the model's first region lands in the agent's memory.
pub const RTL_BASE: u64 = 0x1000;

/// Timing of the memory agent and the run's limits.
#[derive(Clone, Debug)]
pub struct RtlOptions {
    /// Seed of the memory agent's random choices.
    pub seed: u64,
    /// Fewest and most cycles from a memory request to its answer.
    pub latency: (u64, u64),
    /// Probability of the memory holding `mem_req_ready` low / not offering a due answer.
    pub stall: f64,
    /// Probability of not offering a due answer in a cycle.
    pub gap: f64,
    /// Give up after this many cycles (an error saying what is stuck).
    pub max_cycles: u64,
    /// Give up when nothing moves for this many cycles: no list taken, no warp instruction
    /// issued, no memory transaction (a deadlock; the error says what is stuck).
    pub stall_cycles: u64,
    /// Write a VCD of the whole run (every named signal) to this file.
    pub vcd: Option<std::path::PathBuf>,
    /// Render only the first `tiles` tiles (`None`: all).
    pub tiles: Option<usize>,
    /// Record the run from its first cycle (for a co-simulation by the caller's `finish`).
    pub record: bool,
    /// Contents for model regions instead of the model's bytes (model region index, bytes):
    /// the surfaces an earlier pass wrote on the RTL, which this pass reads as images.
    pub preload: Vec<(usize, Vec<u8>)>,
    /// The simulator's evaluation mode (`rendergen raster --eval`): `Active` skips groups of
    /// logic whose inputs did not change (the same results; faster, since most of the engine
    /// idles in any phase), `Full` evaluates everything every cycle (the reference).
    pub eval: Eval,
    /// Write the engine's inputs of every cycle of the pass to this stimulus file
    /// (`crate::bench::replay`), for `rendergen bench tile_engine -p … --replay FILE`: the
    /// report's `replay_params` are the `-p` values that build the same engine. Not with
    /// `record` (the trace goes to the file).
    pub stimulus: Option<std::path::PathBuf>,
    /// Show a progress bar of the tiles on stderr (`rendergen_gen::progress`; hidden unless
    /// the progress mode shows bars).
    pub progress: bool,
}

impl Default for RtlOptions {
    fn default() -> Self {
        RtlOptions {
            seed: 1,
            latency: (8, 8),
            stall: 0.0,
            gap: 0.0,
            max_cycles: 20_000_000,
            stall_cycles: 20_000,
            vcd: None,
            tiles: None,
            record: false,
            preload: Vec::new(),
            eval: Eval::Active,
            stimulus: None,
            progress: false,
        }
    }
}

/// One tile's RTL cycles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtlTile {
    /// Tile column and row.
    pub tile: (u32, u32),
    /// Cycles from the previous tile's end to this one's.
    pub cycles: u64,
    /// Cycles waiting for the drain barriers.
    pub drain: u64,
    /// Cycles from a tile-shader launch to its completion.
    pub tile_shader: u64,
    /// Cycles of the write-out (`tile_cmd` in its write-out state: from the request to the
    /// write-out's completion). A tile whose planes are all suppressed still counts
    /// `planes + 1` or so: the write-out steps through the planes without a memory access.
    pub writeout: u64,
}

impl RtlTile {
    /// The rest: command processing and fragment work.
    pub fn fragment(&self) -> u64 {
        self.cycles
            .saturating_sub(self.drain + self.tile_shader + self.writeout)
    }
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct RtlReport {
    /// The tiles' cycles: from the first list offered to the back end (the geometry phase's
    /// end) to the last tile's end.
    pub cycles: u64,
    /// Per tile, in list order.
    pub tiles: Vec<RtlTile>,
    /// Warp instructions issued by the core.
    pub issued: u64,
    /// Per model region (name, class): bytes read and written by the RTL.
    pub regions: Vec<(String, String, u64, u64)>,
    /// The surfaces' bytes as the RTL wrote them (model region index, bytes).
    pub surfaces: Vec<(usize, Vec<u8>)>,
    /// The storage buffers the pass binds (`Pass::buffers`: a tile shader's direct stores,
    /// its external reads) after the run (model region index, bytes).
    pub buffers: Vec<(usize, Vec<u8>)>,
    /// The texture unit's counters, when the pass samples textures.
    pub texture: Option<RtlTexture>,
    /// Per pass with meshes, its vertex phase (pass name, report).
    pub vertex: Vec<(String, VertexReport)>,
    /// Per pass, its geometry phase (pass name, report).
    pub geometry: Vec<(String, RtlGeometry)>,
    /// Cycles simulated (vertex, geometry and tile phases) and the wall-clock seconds
    /// they took (the simulator's speed; not part of any check).
    pub simulated: (u64, f64),
    /// With [`RtlOptions::stimulus`]: the `rendergen bench tile_engine` parameters
    /// (`NAME=VALUE`) of the engine the pass ran on ([`catalog_params`]).
    pub replay_params: Vec<String>,
}

/// The texture unit's counters of a run (summed over passes by `render_rtl`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtlTexture {
    /// Quad requests from the core.
    pub requests: u64,
    /// Footprints (one per active lane and level).
    pub footprints: u64,
    /// Footprints served with no line fill.
    pub cache_hits: u64,
    /// Line fills (2×2 texel blocks, 16 bytes each from the textures region).
    pub line_fills: u64,
    /// Descriptor switches (a warp of another textured draw state sampled; the cache flushed).
    pub switches: u64,
}

impl RtlTexture {
    /// Adds `o`'s counts.
    pub fn add(&mut self, o: &RtlTexture) {
        self.requests += o.requests;
        self.footprints += o.footprints;
        self.cache_hits += o.cache_hits;
        self.line_fills += o.line_fills;
        self.switches += o.switches;
    }
}

impl RtlReport {
    /// Warp instructions per cycle.
    pub fn core_utilisation(&self) -> f64 {
        match self.cycles {
            0 => 0.0,
            c => self.issued as f64 / c as f64,
        }
    }
}

pub(super) fn rt_format(f: Format) -> RtFormat {
    match f {
        Format::Rgba8 => RtFormat::Rgba8,
        Format::Rgba16f => RtFormat::Rgba16f,
        Format::R32f => RtFormat::R32f,
        Format::Rg16f => RtFormat::Rg16f,
    }
}

/// Registers a program uses (its highest register + 1).
pub(super) fn regs_used(words: &[u64]) -> usize {
    words
        .iter()
        .filter_map(|&w| Inst::decode(w).ok())
        .map(|i| i.regs_needed())
        .max()
        .unwrap_or(0)
}

/// Runs the per-tile part of `pass` on the RTL. `model` is the model's memory after
/// [`rendergen_sim::models::tile::frame::run_pass`] of the same pass, `result` its result.
pub fn run_pass_rtl(
    pass: &Pass,
    model: &Memory,
    result: &PassResult,
    opts: &RtlOptions,
) -> Result<RtlReport, String> {
    run_pass_rtl_with(pass, model, result, opts, &mut |_, _| {})
}

/// [`run_pass_rtl`], calling `finish` with the design and its simulator after the last tile
/// (a co-simulation of the recorded run, a VCD …).
pub fn run_pass_rtl_with(
    pass: &Pass,
    model: &Memory,
    result: &PassResult,
    opts: &RtlOptions,
    finish: &mut dyn FnMut(&rendergen_hdl::Design, &mut Simulator),
) -> Result<RtlReport, String> {
    if opts.record && opts.stimulus.is_some() {
        return Err(
            "--engine rtl: a stimulus file and a recorded run for `finish` exclude each other"
                .into(),
        );
    }
    // Sample-rate shading (`sample_shading`, below): once per covered sample at 4×; at 1×
    // once per pixel with gl_SampleID = 0, the same work as pixel-rate shading.
    if pass.meshes.len() > MAX_STATES as usize {
        return Err(format!(
            "--engine rtl: the pass has {} meshes; the engine's blend-state and late-depth tables have entries for draw states 0..{MAX_STATES}",
            pass.meshes.len()
        ));
    }
    let shift = |a: u64| a - BASE + RTL_BASE;
    // Programs.
    let regs = 64u32;
    let scratch = regs - SCRATCH_REGS;
    let slots_max = pass.meshes.iter().map(|m| m.varyings).max().unwrap_or(0);
    let vertex_stride = 1 + 4 * slots_max;
    let prim_stride = 3 * vertex_stride;
    let used: Vec<u32> = pass.buffers.iter().map(|b| b.0).collect();
    let prim_binding = (0..16u32)
        .find(|b| !used.contains(b))
        .ok_or("--engine rtl: every storage binding is in use; the primitive buffer needs one")?;
    let prim_region = model
        .regions()
        .iter()
        .position(|r| r.name == format!("{}: primitive data", pass.name))
        .ok_or("--engine rtl: the pass has no primitive buffer")?;
    // Each program as (prologue, body, first uniform word); the body's control targets and
    // `ldu` indices are moved once the slot size is known (targets are absolute words of the
    // instruction memory: the program's slot base plus the prologue's length).
    let mut raw: Vec<(Vec<u64>, &[u64], u32)> = Vec::new();
    let mut uniform_words: Vec<u32> = Vec::new();
    for m in &pass.meshes {
        if regs_used(&m.fragment.words) > scratch as usize {
            return Err(format!(
                "--engine rtl: mesh `{}`'s fragment shader uses {} registers; the RTL engine leaves {scratch} beside the prologue's",
                m.name,
                regs_used(&m.fragment.words)
            ));
        }
        let pro = fragment_prologue(
            scratch,
            m.varyings,
            prim_binding << 24,
            prim_stride,
            vertex_stride,
        );
        raw.push((pro, &m.fragment.words, uniform_words.len() as u32));
        uniform_words.extend(&m.fragment.uniforms);
    }
    for r in &pass.resolves {
        raw.push((Vec::new(), &r.program.words, uniform_words.len() as u32));
        uniform_words.extend(&r.program.uniforms);
    }
    // The vertex shaders (behind their attribute prologues) after the tile programs, their
    // vertex data through the next free binding.
    let cmd_region = model
        .regions()
        .iter()
        .position(|r| r.name == format!("{}: command lists", pass.name))
        .ok_or("--engine rtl: the pass has no command lists")?;
    let vs = vertex_setup(pass, model, &[used.as_slice(), &[prim_binding]].concat())?;
    let vertex_slot = raw.len();
    let vertex_uniforms = uniform_words.len() as u32;
    for (pro, body, u) in &vs.programs {
        raw.push((pro.clone(), body, vertex_uniforms + u));
    }
    uniform_words.extend(&vs.uniforms);
    let longest = (raw.iter().map(|(p, b, _)| p.len() + b.len()))
        .max()
        .unwrap_or(1)
        .max(1);
    let entry_log2 = longest.next_power_of_two().trailing_zeros();
    let programs: Vec<Vec<u64>> = (raw.iter().enumerate())
        .map(|(s, (pro, body, uniforms))| {
            let at = ((s << entry_log2) + pro.len()) as u32;
            let mut words = pro.clone();
            words.extend(relocate(body, at, *uniforms));
            words
        })
        .collect();
    let mut cfg = engine_cfg(
        pass,
        (programs.len(), entry_log2),
        regs,
        uniform_words.len(),
        texture_cfg(pass)?,
        "programs",
    )?;
    let tiles_x = pass.width.div_ceil(16);
    let all_tiles = (tiles_x * pass.height.div_ceil(16)) as usize;
    let model_lists = model_lists(model, cmd_region, all_tiles)?;
    let longest = model_lists.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let bin_words = longest.next_power_of_two().max(32);
    if bin_words > 65536 || all_tiles > 65536 {
        return Err(format!(
            "--engine rtl: {all_tiles} tiles with lists of up to {longest} words; the list writer keeps at most 65536 tiles of 65536 words"
        ));
    }
    cfg.geometry = Some(FrontCfg {
        fetch: FetchCfg {
            slots: slots_max,
            outstanding: 8,
        },
        geom: GeomCfg {
            planes: pass.targets.len() as u32 + 1,
            bin_words,
            max_tiles: (all_tiles as u32).next_power_of_two(),
            div_steps: 4,
        },
    });
    let (design, mut sim) = engine_sim(&cfg, opts)?;
    let e = |e: rendergen_sim::SimError| e.to_string();
    let t = |e: rendergen_sim::kit::TbError| e.to_string();

    // Memory.
    let end = model
        .regions()
        .iter()
        .map(|r| r.base + r.size())
        .max()
        .unwrap_or(BASE);
    // Behind the model's regions: the post-transform buffer (as `vertex_rtl` lays it out),
    // then the lists' bins.
    let stride = 16 + 16 * u64::from(slots_max);
    let ptv = shift(end).next_multiple_of(4096);
    let ptv_bases: Vec<u64> = (vs.counts.iter())
        .scan(ptv, |at, &n| {
            let b = *at;
            *at += n * stride;
            Some(b)
        })
        .collect();
    let ptv_bytes = vs.counts.iter().sum::<u64>() * stride;
    let lists_base = (ptv + ptv_bytes).next_multiple_of(4096);
    let bin_bytes = 8 * u64::from(bin_words);
    let lists_bytes = all_tiles as u64 * bin_bytes;
    let mut mem = MemoryAgent::new(
        &sim,
        "mem",
        MemCfg {
            size: (lists_base + lists_bytes + 0x1000) as usize,
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
    let surface_regions: Vec<usize> = result
        .surfaces
        .iter()
        .flatten()
        .map(|s| s.region.0)
        .collect();
    for (i, r) in model.regions().iter().enumerate() {
        mem.region(&r.name, shift(r.base), r.size());
        if let Some((_, bytes)) = opts.preload.iter().find(|p| p.0 == i) {
            mem.load(shift(r.base), bytes);
        } else if !surface_regions.contains(&i) && i != prim_region && i != cmd_region {
            mem.load(shift(r.base), r.bytes());
        }
    }
    mem.region(PTV_REGION, ptv, ptv_bytes.max(1));
    mem.region(LISTS_REGION, lists_base, lists_bytes);

    // Configuration.
    let planes = pass.targets.len() + 1;
    let (mut enable, mut all, mut select) = (0u64, 0u64, 0u64);
    for (p, s) in result.surfaces.iter().enumerate() {
        let Some(s) = s else { continue };
        let mode = pass
            .targets
            .get(p)
            .map_or(pass.depth_writeout, |t| t.writeout);
        // Static modes (`tile_writeout`'s `config_all`, `config_select`, `config_sample_<p>`);
        // the tile shader's choice replaces them per tile.
        match mode {
            WriteMode::All if pass.samples > 1 => all |= 1 << p,
            WriteMode::Sample(k) => {
                select |= 1 << p;
                let port = sim.input(&format!("config_sample_{p}")).map_err(e)?;
                sim.poke(port, k as u64);
            }
            _ => {}
        }
        let bytes = rendergen_sim::models::tile::pack::bytes_per_sample(s.format) as u64;
        let pitch = pass.width as u64 * s.samples as u64 * bytes;
        let base = shift(model.base(s.region));
        if !base.is_multiple_of(8) {
            return Err(format!(
                "--engine rtl: plane {p}'s surface is at {base:#x}; the write-out needs a multiple of 8"
            ));
        }
        if pitch >= 1 << rendergen_rtl::tile::writeout::PITCH_BITS {
            return Err(format!(
                "--engine rtl: plane {p}'s rows are {pitch} bytes; the write-out's pitch register holds less than {}",
                1u64 << rendergen_rtl::tile::writeout::PITCH_BITS
            ));
        }
        enable |= 1 << p;
        sim.poke(sim.input(&format!("config_base_{p}")).map_err(e)?, base);
        sim.poke(sim.input(&format!("config_pitch_{p}")).map_err(e)?, pitch);
    }
    let _ = planes;
    sim.poke(sim.input("config_width").map_err(e)?, pass.width.into());
    sim.poke(sim.input("config_height").map_err(e)?, pass.height.into());
    sim.poke(sim.input("config_enable").map_err(e)?, enable);
    sim.poke(sim.input("config_all").map_err(e)?, all);
    sim.poke(sim.input("config_select").map_err(e)?, select);
    // Draw state `k` (mesh `k`) shades per sample when its fragment shader reads gl_SampleID.
    let mut per_sample = [0u64; 1 << (rendergen_rtl::tile::STATE_BITS - 6)];
    for (k, m) in pass.meshes.iter().enumerate() {
        per_sample[k / 64] |= (m.sample_shading as u64) << (k % 64);
    }
    let per_sample =
        rendergen_hdl::Bits::from_words(&per_sample, 1 << rendergen_rtl::tile::STATE_BITS);
    sim.poke_bits(sim.input("sample_shading").map_err(e)?, &per_sample);
    // The image-load unit's surface table: the surfaces the lighting pass reads.
    let mut image_enable = 0u64;
    for (b, surf) in &pass.images {
        let base = shift(model.base(surf.region));
        if *b >= 9 || !base.is_multiple_of(8) {
            return Err(format!(
                "--engine rtl: image binding {b} (at {base:#x}): the image-load unit serves bindings 0..=8 at multiples of 8 bytes"
            ));
        }
        let format = match surf.format {
            Some(Format::Rgba8) => ImageFormat::Rgba8,
            Some(Format::Rgba16f) => ImageFormat::Rgba16f,
            Some(Format::R32f) => ImageFormat::R32f,
            Some(Format::Rg16f) => ImageFormat::Rg16f,
            None => ImageFormat::D24,
        };
        image_enable |= 1 << b;
        for (field, v) in [
            ("base", base),
            ("format", format as u64),
            ("width", surf.width as u64),
            ("height", surf.height as u64),
            ("samples", surf.samples as u64),
        ] {
            sim.poke(sim.input(&format!("images_{field}_{b}")).map_err(e)?, v);
        }
    }
    sim.poke(sim.input("images_enable").map_err(e)?, image_enable);
    for &(b, region) in &pass.buffers {
        sim.poke(
            sim.input(&format!("bases_{b}")).map_err(e)?,
            shift(model.base(region)),
        );
    }
    sim.poke(
        sim.input(&format!("bases_{prim_binding}")).map_err(e)?,
        shift(model.regions()[prim_region].base),
    );
    sim.poke(
        sim.input(&format!("bases_{}", vs.binding)).map_err(e)?,
        shift(vs.bind_base),
    );
    sim.poke(
        sim.input("program_base").map_err(e)?,
        pass.meshes.len() as u64,
    );
    // The geometry front end's configuration.
    let clears = (pass.targets.iter().map(|t| t.clear)).chain([u64::from(pass.depth_clear)]);
    for (p, c) in clears.enumerate() {
        sim.poke(sim.input(&format!("geom_clear_{p}")).map_err(e)?, c);
    }
    for (name, v) in [
        ("geom_tiles_x", u64::from(tiles_x)),
        ("geom_tiles_y", u64::from(pass.height.div_ceil(16))),
        ("geom_lists_base", lists_base),
        ("geom_width", u64::from(pass.width)),
        ("geom_height", u64::from(pass.height)),
        ("geom_prim_base", shift(model.regions()[prim_region].base)),
    ] {
        sim.poke(sim.input(name).map_err(e)?, v);
    }
    // Per draw state (mesh): its blend state per target and its late-depth flag.
    let mut late = 0u64;
    for (s, mesh) in pass.meshes.iter().enumerate() {
        late |= (mesh.late_depth as u64) << s;
        for rt in 0..pass.targets.len() {
            let b = mesh.blend.get(rt).copied().unwrap_or_default();
            for (f, v) in [
                ("enable", b.enable as u64),
                ("colour_op", b.colour_op as u64),
                ("src_colour", b.src_colour as u64),
                ("dst_colour", b.dst_colour as u64),
                ("alpha_op", b.alpha_op as u64),
                ("src_alpha", b.src_alpha as u64),
                ("dst_alpha", b.dst_alpha as u64),
            ] {
                sim.poke(sim.input(&format!("blend_{s}_{rt}_{f}")).map_err(e)?, v);
            }
        }
    }
    sim.poke(sim.input("late_depth").map_err(e)?, late);
    set_textures(&mut sim, pass, model, &shift)?;
    sim.reset(2);

    // Programs and uniforms, before the first tile (the core takes `prog` while idle).
    load_programs(&mut sim, &programs, entry_log2, &uniform_words).map_err(e)?;

    // The work: a vertex command per mesh, then the meshes, RESOLVEs and frame markers for
    // the geometry front end (offered once the last vertex command is taken: its vertices
    // are then in memory).
    let mut vertex = StreamSource::new(&sim, "vertex", opts.seed ^ 0x7E47).map_err(t)?;
    for (k, m) in pass.meshes.iter().enumerate() {
        vertex
            .send(&[
                vs.counts[k],
                ((vertex_slot + k) as u64) << entry_log2,
                ptv_bases[k],
                u64::from(m.varyings),
                u64::from(slots_max),
            ])
            .map_err(t)?;
    }
    let (items, resolves) = geometry_items(pass, model, &vs, &ptv_bases)?;
    let mut mesh = StreamSource::new(&sim, "mesh", opts.seed ^ 0x6E54).map_err(t)?;
    for i in &items {
        mesh.send(i).map_err(t)?;
    }
    let mut resolve = StreamSource::new(&sim, "resolve", opts.seed ^ 0x2E50).map_err(t)?;
    for r in &resolves {
        resolve.send(r).map_err(t)?;
    }
    let ntiles = opts.tiles.map_or(all_tiles, |n| n.min(all_tiles));
    let out = |sim: &Simulator, n: &str| sim.output(n).map_err(e);
    let issue = out(&sim, "issue")?;
    let list_offered = out(&sim, "list_offered")?;
    let list_taken = out(&sim, "list_taken")?;
    let counters: Vec<_> = ["drain", "tile_shader", "writeout"]
        .iter()
        .map(|n| out(&sim, &format!("counters_{n}")))
        .collect::<Result<_, _>>()?;
    let frag_fault = out(&sim, "frag_fault")?;
    let ts_fault = out(&sim, "ts_fault")?;
    let ts_error = out(&sim, "ts_error")?;
    let ts_residency = out(&sim, "ts_residency_error")?;
    let bad_op = out(&sim, "bad_op")?;
    let image_error = out(&sim, "image_error")?;
    let vertex_fault = out(&sim, "vertex_fault")?;
    let vertex_no_position = out(&sim, "vertex_no_position")?;
    let geom_error = out(&sim, "geom_error")?;
    let geom_overflow = out(&sim, "geom_overflow")?;
    let tex_error = sim.output("tex_error").ok();
    let mut report = RtlReport::default();
    let first = sim.cycle();
    let wall = std::time::Instant::now();
    let mut phase = Phase::Vertex;
    let mut vertex_issued = 0;
    let mut vertex_end = first;
    let mut geometry_end = first;
    let mut last_end = first;
    let mut last_counters = [0u64; 3];
    let mut taken = 0;
    let mut moved = (0u64, 0usize, (0u64, 0u64), 0u64, 0u64);
    let mut moved_at = first;
    let meshes = pass.meshes.len() as u64;
    let bar = opts.progress.then(|| {
        crate::progress::Progress::bar(&format!("rtl pass `{}`", pass.name), ntiles as u64, "tiles")
    });
    while taken < ntiles {
        if let Some(b) = bar.as_ref().filter(|_| sim.cycle() % 4096 == 0) {
            b.set(taken as u64);
        }
        vertex.drive(&mut sim);
        if phase != Phase::Vertex {
            mesh.drive(&mut sim);
            resolve.drive(&mut sim);
        }
        mem.drive(&mut sim);
        vertex.sample(&mut sim);
        if phase != Phase::Vertex {
            mesh.sample(&mut sim);
            resolve.sample(&mut sim);
        }
        mem.sample(&mut sim);
        let issued = sim.peek(issue);
        match phase {
            Phase::Vertex => vertex_issued += issued,
            _ => report.issued += issued,
        }
        let tile_done = sim.peek(list_taken) != 0;
        if phase == Phase::Geometry && sim.peek(list_offered) != 0 {
            // Every list and the primitive data are in memory: check them now (a wrong list
            // would otherwise show as a wrong image or a hang).
            phase = Phase::Tiles;
            geometry_end = sim.cycle();
            last_end = geometry_end;
            let v = vertex_report(pass, &vs, &ptv_bases, &mem, vertex_end - first);
            let g = geometry_report(&mut sim, pass, &mem, geometry_end - vertex_end)?;
            let at = Layout {
                lists: &model_lists,
                lists_base,
                bin_bytes,
                prim_base: shift(model.regions()[prim_region].base),
            };
            check_geometry(result, model, pass, &v, &g, &mem, &at)?;
            if !pass.meshes.is_empty() {
                report.vertex.push((
                    pass.name.clone(),
                    VertexReport {
                        issued: vertex_issued,
                        ..v
                    },
                ));
            }
            report.geometry.push((pass.name.clone(), g));
        }
        sim.step();
        if phase == Phase::Vertex && vertex.sent() == meshes {
            phase = Phase::Geometry;
            vertex_end = sim.cycle();
        }
        if tile_done {
            taken += 1;
            let now: Vec<u64> = counters.iter().map(|&c| sim.peek(c)).collect();
            let k = taken - 1;
            report.tiles.push(RtlTile {
                tile: (k as u32 % tiles_x, k as u32 / tiles_x),
                cycles: sim.cycle() - last_end,
                drain: now[0] - last_counters[0],
                tile_shader: now[1] - last_counters[1],
                writeout: now[2] - last_counters[2],
            });
            last_counters = [now[0], now[1], now[2]];
            last_end = sim.cycle();
        }
        for (what, port) in [("fragment shader", frag_fault), ("tile shader", ts_fault)] {
            let code = sim.peek(port);
            if code != 0 {
                let name = rendergen_shader_isa::WarpError::from_code(code as u32)
                    .map_or("?", |w| w.name());
                return Err(format!(
                    "--engine rtl: a {what} warp ended with error {code} ({name})"
                ));
            }
        }
        let code = sim.peek(vertex_fault);
        if code != 0 {
            let pc_port = out(&sim, "vertex_fault_pc")?;
            let at = sim.peek(pc_port);
            let slot = (at >> entry_log2) as usize;
            let k = slot
                .saturating_sub(vertex_slot)
                .min(pass.meshes.len().saturating_sub(1));
            let pc = at
                .saturating_sub((slot as u64) << entry_log2)
                .saturating_sub(vs.programs.get(k).map_or(0, |p| p.0.len() as u64));
            let name = rendergen_shader_isa::WarpError::from_code(code as u32)
                .map_or_else(|| format!("error {code}"), |w| format!("{w:?}"));
            return Err(format!(
                "--engine rtl: mesh `{}` vertex shader: {name} at pc {pc}",
                pass.meshes.get(k).map_or("?", |m| m.name.as_str())
            ));
        }
        if sim.peek(vertex_no_position) != 0 {
            let addr_port = out(&sim, "vertex_no_position_addr")?;
            let addr = sim.peek(addr_port);
            let k = ptv_bases.iter().rposition(|&b| b <= addr).unwrap_or(0);
            return Err(format!(
                "--engine rtl: mesh `{}`: the vertex shader does not write a vec4 position (vertex {})",
                pass.meshes.get(k).map_or("?", |m| m.name.as_str()),
                (addr - ptv_bases.get(k).copied().unwrap_or(addr)) / stride
            ));
        }
        if sim.peek(geom_error) != 0 {
            let mut peek = |n: &str| out(&sim, n).map(|p| sim.peek(p));
            let (state, tri, index) = (
                peek("geom_error_state")?,
                peek("geom_error_tri")?,
                peek("geom_error_index")?,
            );
            return Err(format!(
                "--engine rtl: the geometry front end met index {index} in triangle {tri} of mesh `{}`, not below its vertex count",
                pass.meshes.get(state as usize).map_or("?", |m| m.name.as_str())
            ));
        }
        if sim.peek(geom_overflow) != 0 {
            return Err(format!(
                "--engine rtl: a tile's command list did not fit its bin of {bin_words} words"
            ));
        }
        if sim.peek(ts_residency) != 0 {
            return Err("--engine rtl: a fragment or vertex warp finished while a RESOLVE's tile shader ran (spec A16: none may be resident then)".into());
        }
        if sim.peek(ts_error) != 0 {
            let at: Vec<u64> = (0..6)
                .map(|k| sim.output(&format!("ts_error_at_{k}")).map(|p| sim.peek(p)))
                .collect::<Result<_, _>>()
                .map_err(e)?;
            let mut peek = |n: &str| out(&sim, &format!("ts_error_{n}")).map(|p| sim.peek(p));
            let (t, xthreads) = (peek("thread")?, peek("xthreads")?.max(1));
            let thread = format!(
                "tile shader thread ({}, {}) of tile ({}, {})",
                t % xthreads,
                t / xthreads,
                peek("tile_x")?,
                peek("tile_y")?
            );
            return Err(format!(
                "--engine rtl: the {thread} (warp slot {}, lane {}) accessed binding {} at pixel ({}, {}) sample {}: outside its tile, or a plane or sample the tile buffer lacks",
                at[0], at[1], at[2], at[3], at[4], at[5]
            ));
        }
        if let Some(p) = tex_error {
            let code = sim.peek(p);
            if code != 0 {
                return Err(texture_error_message(&mut sim, pass, code));
            }
        }
        let image_code = sim.peek(image_error);
        if image_code != 0 {
            return Err(image_error_message(&mut sim, pass, image_code));
        }
        if sim.peek(bad_op) != 0 {
            return Err("--engine rtl: the command processor met an unknown opcode".into());
        }
        let now = (
            report.issued + vertex_issued,
            taken,
            mem.transactions(),
            vertex.sent(),
            mesh.sent(),
        );
        if now != moved {
            moved = now;
            moved_at = sim.cycle();
        }
        let why = if sim.cycle() - first > opts.max_cycles {
            Some(format!("not done after {} cycles", opts.max_cycles))
        } else if sim.cycle() - moved_at > opts.stall_cycles {
            Some(format!(
                "stuck in the {} phase: no list taken, no warp instruction issued and no memory transaction for {} cycles (cycle {})",
                phase.name(),
                opts.stall_cycles,
                sim.cycle() - first
            ))
        } else {
            None
        };
        if let Some(why) = why {
            let state = stuck_report(&mut sim);
            let _ = sim.finish_vcd();
            return Err(format!(
                "--engine rtl: {why}; {taken} of {ntiles} tiles done, {} memory transactions outstanding\n{state}",
                mem.outstanding()
            ));
        }
    }
    mem.check().map_err(t)?;
    mem.assert_no_stray_writes().map_err(t)?;
    report.cycles = sim.cycle() - geometry_end;
    report.simulated = (sim.cycle() - first, wall.elapsed().as_secs_f64());
    if cfg.texture.is_some() {
        let mut peek = |n: &str| sim.output(n).map(|p| sim.peek(p)).map_err(e);
        report.texture = Some(RtlTexture {
            requests: peek("tex_requests")?,
            footprints: peek("tex_counters_footprints")?,
            cache_hits: peek("tex_counters_cache_hits")?,
            line_fills: peek("tex_counters_cache_misses")?,
            switches: peek("tex_switches")?,
        });
    }
    sim.finish_vcd()
        .map_err(|e| format!("--engine rtl: writing the VCD: {e}"))?;
    if let Some(path) = &opts.stimulus {
        report.replay_params = catalog_params(&cfg)?;
        crate::bench::replay::Stimulus::from_trace(&sim.take_trace()).write(path)?;
    }
    finish(&design, &mut sim);
    for r in mem.regions() {
        report
            .regions
            .push((r.name.clone(), String::new(), r.read_bytes, r.written_bytes));
    }
    for (i, r) in report.regions.iter_mut().enumerate() {
        r.1 = match model.regions().get(i) {
            Some(m) => m.class.clone(),
            None if r.0 == LISTS_REGION => "command lists".to_owned(),
            None => "post-transform vertices".to_owned(),
        };
    }
    for &i in &surface_regions {
        let r = &model.regions()[i];
        report
            .surfaces
            .push((i, mem.bytes(shift(r.base), r.size() as usize).to_vec()));
    }
    for &(_, region) in &pass.buffers {
        let r = &model.regions()[region.0];
        if !report.buffers.iter().any(|b| b.0 == region.0) {
            report.buffers.push((
                region.0,
                mem.bytes(shift(r.base), r.size() as usize).to_vec(),
            ));
        }
    }
    Ok(report)
}

/// The agent region of the post-transform vertex buffer (behind the model's regions).
pub const PTV_REGION: &str = "RTL: post-transform vertices";
/// The agent region of the lists' bins (behind the post-transform buffer).
pub const LISTS_REGION: &str = "RTL: command lists";

/// The phase a run is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Vertex commands offered.
    Vertex,
    /// Meshes offered to the geometry front end; no list yet.
    Geometry,
    /// The tiles.
    Tiles,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Vertex => "vertex",
            Phase::Geometry => "geometry",
            Phase::Tiles => "tile",
        }
    }
}

/// The geometry phase of a run on the RTL's `tile_frontend`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtlGeometry {
    /// Cycles from the last vertex command's transfer to the first list offered to the
    /// back end (every list and the primitive data in memory).
    pub cycles: u64,
    /// Triangles assembled from the index buffers.
    pub triangles_in: u64,
    /// Triangles with no vertex in front of the near plane.
    pub near_clipped: u64,
    /// Triangles dropped for leaving the guard band.
    pub guard_band_rejects: u64,
    /// Triangles removed by face culling.
    pub culled: u64,
    /// Triangles kept (primitive ids given).
    pub triangles_out: u64,
    /// Bytes of command lists written ([`LISTS_REGION`]).
    pub list_bytes: u64,
    /// Bytes of primitive data written.
    pub prim_bytes: u64,
    /// Bytes of indices and post-transform vertices read.
    pub fetch_bytes: u64,
}

/// Each tile's list as the model left it in its `command lists` region (a table of offset
/// and length per tile, then the lists).
fn model_lists(model: &Memory, region: usize, tiles: usize) -> Result<Vec<Vec<u64>>, String> {
    let words: Vec<u64> = (model.regions()[region].bytes().chunks_exact(8))
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    (0..tiles)
        .map(|t| {
            let entry = words.get(t).copied().unwrap_or(0);
            let (at, len) = ((entry & 0xFFFF_FFFF) as usize, (entry >> 32) as usize);
            (words.get(at..at + len).map(<[u64]>::to_vec)).ok_or_else(|| {
                format!("--engine rtl: the model's list of tile {t} is not in its region")
            })
        })
        .collect()
}

/// The `mesh` records (`MeshDesc` fields in order: a frame-begin marker, each mesh with the
/// `RESOLVE` tokens after it, the frame-end marker) and the `resolve` records (`ResolveDesc`,
/// each rectangle clipped to the screen; an empty one is not sent, as the model places
/// nothing for it) of `pass`.
#[allow(clippy::type_complexity)]
fn geometry_items(
    pass: &Pass,
    model: &Memory,
    vs: &VertexSetup,
    ptv_bases: &[u64],
) -> Result<(Vec<Vec<u64>>, Vec<Vec<u64>>), String> {
    let shift = |a: u64| a - BASE + RTL_BASE;
    let marker = |kind: u64| vec![kind, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let mut items = vec![marker(KIND_BEGIN)];
    let mut resolves = Vec::new();
    let (w, h) = (pass.width, pass.height);
    let resolve_at = |after: usize, items: &mut Vec<Vec<u64>>, resolves: &mut Vec<Vec<u64>>| {
        for (ri, r) in pass.resolves.iter().enumerate() {
            let [x, y, rw, rh] = r.rect.unwrap_or([0, 0, w, h]);
            let (x1, y1) = (x.saturating_add(rw).min(w), y.saturating_add(rh).min(h));
            if r.after != after || rw == 0 || rh == 0 || x >= x1 || y >= y1 {
                continue;
            }
            items.push(marker(KIND_RESOLVE));
            resolves.push(vec![
                u64::from(x),
                u64::from(y),
                u64::from(x1 - x),
                u64::from(y1 - y),
                ri as u64,
                u64::from(r.threads.0),
                u64::from(r.threads.1),
            ]);
        }
    };
    resolve_at(0, &mut items, &mut resolves);
    let regions = vertex_regions(pass, model)?;
    for (k, m) in pass.meshes.iter().enumerate() {
        let attributes: u64 = m.attributes.iter().map(|a| 4 * a.data.len() as u64).sum();
        let s = &m.state;
        items.push(vec![
            KIND_TRIANGLE,
            shift(model.regions()[regions[k]].base) + attributes,
            (m.indices.len() / 3) as u64,
            ptv_bases[k],
            vs.counts[k],
            k as u64,
            match s.cull {
                CullMode::None => 0,
                CullMode::Front => 1,
                CullMode::Back => 2,
            },
            u64::from(s.front_face == FrontFace::Clockwise),
            s.depth_op as u64,
            u64::from(s.depth_write),
        ]);
        resolve_at(k + 1, &mut items, &mut resolves);
    }
    items.push(marker(KIND_END));
    Ok((items, resolves))
}

/// The vertex phase's report from the memory after it (instructions issued left 0).
fn vertex_report(
    pass: &Pass,
    vs: &VertexSetup,
    ptv_bases: &[u64],
    mem: &MemoryAgent,
    cycles: u64,
) -> VertexReport {
    let stride = 16 + 16 * u64::from(vs.slots);
    let names: Vec<String> = (pass.meshes.iter())
        .map(|m| format!("{}: vertex data {}", pass.name, m.name))
        .chain([PTV_REGION.to_owned()])
        .collect();
    VertexReport {
        cycles,
        issued: 0,
        prologue: (vs.programs.iter().zip(&vs.counts))
            .map(|(p, n)| n.div_ceil(4) * p.0.len() as u64)
            .sum(),
        warps: vs.counts.iter().map(|n| n.div_ceil(4)).sum(),
        slots: vs.slots,
        buffer: (vs.counts.iter().zip(ptv_bases))
            .map(|(&n, &b)| {
                (mem.bytes(b, (n * stride) as usize).chunks_exact(4))
                    .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect()
            })
            .collect(),
        regions: (mem.regions().iter())
            .filter(|r| names.contains(&r.name))
            .map(|r| (r.name.clone(), r.read_bytes, r.written_bytes))
            .collect(),
    }
}

/// The geometry phase's counters (the engine's `geom_*` outputs) and bytes.
fn geometry_report(
    sim: &mut Simulator,
    pass: &Pass,
    mem: &MemoryAgent,
    cycles: u64,
) -> Result<RtlGeometry, String> {
    let mut peek = |n: &str| {
        sim.output(&format!("geom_{n}"))
            .map(|p| sim.peek(p))
            .map_err(|e| e.to_string())
    };
    let region = |name: &str| mem.regions().iter().find(|r| r.name == name);
    let prim = region(&format!("{}: primitive data", pass.name));
    let fetch: u64 = (mem.regions().iter())
        .filter(|r| {
            r.name == PTV_REGION || r.name.starts_with(&format!("{}: vertex data ", pass.name))
        })
        .map(|r| r.read_bytes)
        .sum();
    Ok(RtlGeometry {
        cycles,
        triangles_in: peek("triangles_in")?,
        near_clipped: peek("near_clipped")?,
        guard_band_rejects: peek("guard_band_rejects")?,
        culled: peek("culled")?,
        triangles_out: peek("triangles_out")?,
        list_bytes: region(LISTS_REGION).map_or(0, |r| r.written_bytes),
        prim_bytes: prim.map_or(0, |r| r.written_bytes),
        fetch_bytes: fetch,
    })
}

/// Where the RTL put the geometry: the lists' bins and the primitive data.
struct Layout<'a> {
    /// The model's lists, per tile.
    lists: &'a [Vec<u64>],
    /// Byte address of tile 0's bin.
    lists_base: u64,
    /// Bytes per bin.
    bin_bytes: u64,
    /// Byte address of the primitive data.
    prim_base: u64,
}

/// The RTL's post-transform vertices, geometry counters, primitive data and lists against
/// the model's; an error names the first difference.
fn check_geometry(
    result: &PassResult,
    model: &Memory,
    pass: &Pass,
    v: &VertexReport,
    g: &RtlGeometry,
    mem: &MemoryAgent,
    at: &Layout,
) -> Result<(), String> {
    let fail = |what: &str, d: String| {
        Err(format!(
            "--engine rtl: the RTL's {what} differ from the model's in pass `{}`: {d}",
            pass.name
        ))
    };
    if !pass.meshes.is_empty() {
        if let Some(d) = compare_vertices(v, result) {
            return fail("post-transform vertices", d);
        }
    }
    for (name, rtl, want) in [
        ("triangles in", g.triangles_in, result.triangles_in),
        ("near-clipped", g.near_clipped, result.near_clipped),
        (
            "guard-band rejects",
            g.guard_band_rejects,
            result.guard_band_rejects,
        ),
        ("culled", g.culled, result.culled),
        ("triangles out", g.triangles_out, result.triangles_out),
    ] {
        if rtl != want {
            return fail(
                "geometry counters",
                format!("{name}: RTL {rtl}, model {want}"),
            );
        }
    }
    if result.triangles_out > 0 {
        let r = (model.regions().iter())
            .find(|r| r.name == format!("{}: primitive data", pass.name))
            .ok_or("--engine rtl: the pass has no primitive buffer")?;
        let got = mem.bytes(at.prim_base, r.bytes().len());
        if let Some(k) = (0..got.len()).find(|&k| got[k] != r.bytes()[k]) {
            let stride = 12 * (1 + 4 * v.slots as usize);
            return fail(
                "primitive data",
                format!(
                    "byte {k} (primitive {}): RTL {:#04x}, model {:#04x}",
                    k / stride,
                    got[k],
                    r.bytes()[k]
                ),
            );
        }
    }
    for (t, list) in at.lists.iter().enumerate() {
        let bytes = mem.bytes(at.lists_base + t as u64 * at.bin_bytes, 8 * list.len());
        for (k, want) in list.iter().enumerate() {
            let got = u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().expect("8 bytes"));
            if got != *want {
                return fail(
                    "command lists",
                    format!(
                        "tile {t} word {k} of {}: RTL {got:#018x}, model {want:#018x}",
                        list.len()
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The engine's texture configuration for `pass`: none when no mesh samples (the port tied
/// off, a smaller and faster design), else a descriptor table with an entry per draw state
/// (mesh) up to the last textured one.
fn texture_cfg(pass: &Pass) -> Result<Option<EngineTexCfg>, String> {
    let Some(last) = pass.meshes.iter().rposition(|m| m.texture.is_some()) else {
        return Ok(None);
    };
    if last as u64 >= *TEX_STATES.end() {
        return Err(format!(
            "--engine rtl: mesh {last} (`{}`) is textured; the engine's descriptor table has entries for draw states 0..{}",
            pass.meshes[last].name,
            TEX_STATES.end()
        ));
    }
    Ok(Some(EngineTexCfg {
        states: last as u32 + 1,
        ..EngineTexCfg::default()
    }))
}

/// Writes the descriptor table (`tex_desc_<k>_*`, `tex_linear`, `tex_enable`): draw state
/// `k`'s entry is mesh `k`'s texture, its base the word address of its region
/// (`<pass>: texture <name>`, loaded like every input region) in the agent's memory.
fn set_textures(
    sim: &mut Simulator,
    pass: &Pass,
    model: &Memory,
    shift: &dyn Fn(u64) -> u64,
) -> Result<(), String> {
    let e = |e: rendergen_sim::SimError| e.to_string();
    let mut regions = model.regions().iter().filter(|r| {
        r.class == "textures" && r.name.starts_with(&format!("{}: texture ", pass.name))
    });
    let (mut linear, mut enable) = (0u64, 0u64);
    for (k, m) in pass.meshes.iter().enumerate() {
        let Some(t) = &m.texture else { continue };
        let region = regions
            .next()
            .ok_or_else(|| format!("--engine rtl: mesh `{}`'s texture has no region", m.name))?;
        let d = &t.desc;
        if d.width != 1 << d.log2_w || d.height != 1 << d.log2_h {
            return Err(format!(
                "--engine rtl: mesh `{}`'s texture is {}×{}; the RTL texture unit takes power-of-two sides",
                m.name, d.width, d.height
            ));
        }
        let base = shift(region.base) / 4 + d.base as u64;
        for (field, v) in [
            ("base", base),
            ("log2_w", d.log2_w as u64),
            ("log2_h", d.log2_h as u64),
            ("mips", d.mips as u64),
            ("srgb", d.srgb as u64),
            ("tiled", d.tiled as u64),
            ("wrap_s", d.wrap[0] as u64),
            ("wrap_t", d.wrap[1] as u64),
            ("border", d.border as u64),
            ("min_lod", d.min_lod as u64 & 0xFFFF),
            ("max_lod", d.max_lod as u64 & 0xFFFF),
            ("base_level", d.base_level as u64),
        ] {
            sim.poke(sim.input(&format!("tex_desc_{k}_{field}")).map_err(e)?, v);
        }
        enable |= 1 << k;
        if t.filter == Filter::Linear {
            linear |= 1 << k;
        }
    }
    if enable != 0 {
        sim.poke(sim.input("tex_linear").map_err(e)?, linear);
        sim.poke(sim.input("tex_enable").map_err(e)?, enable);
    }
    Ok(())
}

/// The driver's report of the texture binder's sticky error (`rtl/tile/texture.rs`).
fn texture_error_message(sim: &mut Simulator, pass: &Pass, code: u64) -> String {
    let mut peek = |n: &str| sim.output(n).map_or(0, |p| sim.peek(p));
    let (slot, state) = (peek("tex_error_slot"), peek("tex_error_state"));
    let mesh = pass
        .meshes
        .get(state as usize)
        .map_or("?".to_owned(), |m| m.name.clone());
    match code {
        2 => format!("--engine rtl: a tile-shader warp (slot {slot}) sampled a texture; only fragment shaders of textured meshes may"),
        _ => format!("--engine rtl: a fragment warp (slot {slot}) of mesh {state} (`{mesh}`), which has no texture, sampled one"),
    }
}

/// The `NAME=VALUE` parameters of the catalogue's `tile_engine` (`rendergen bench
/// tile_engine -p …`) that build the engine `cfg` describes; checked by building it through
/// the catalogue. An error names what the catalogue's parameters cannot express.
pub fn catalog_params(cfg: &EngineCfg) -> Result<Vec<String>, String> {
    let code = |f: &RtFormat| {
        (0..4u64)
            .find(|&c| RtFormat::from_code(c) == Some(*f))
            .expect("every format has a code")
    };
    let formats: u64 = (cfg.frag.tile.formats.iter().enumerate())
        .map(|(i, f)| code(f) << (4 * i))
        .sum();
    let core = &cfg.frag.core;
    let mut params = vec![
        format!("samples={}", cfg.frag.tile.samples),
        format!("rts={}", cfg.frag.tile.formats.len()),
        format!("formats={formats:#x}"),
        format!("warps={}", core.warps),
        format!("regs={}", core.regs),
        format!("imem_depth={}", core.imem_depth),
        format!("entry_log2={}", cfg.frag.entry_log2),
        format!("uniform_bits={}", cfg.uniform_bits),
        format!(
            "tex_states={}",
            cfg.texture.as_ref().map_or(0, |t| t.states)
        ),
        format!("states={}", cfg.frag.states),
    ];
    if let Some(g) = &cfg.geometry {
        params.extend([
            "geometry=1".to_string(),
            format!("geom_slots={}", g.fetch.slots),
            format!("geom_tiles={}", g.geom.max_tiles),
            format!("bin_words={}", g.geom.bin_words),
        ]);
    }
    let spec = rendergen_rtl::catalog::find("tile_engine").map_err(|e| e.to_string())?;
    let design = spec
        .build(&params)
        .map_err(|e| format!("the catalogue's tile_engine with {}: {e}", params.join(" ")))?;
    if design.top().params != format!("{cfg:?}") {
        return Err(format!(
            "the engine's configuration is not one the catalogue's tile_engine parameters build (closest: {})",
            params.join(" ")
        ));
    }
    Ok(params)
}

/// The engine configuration of `pass`'s RTL run: `slots` program slots of `2^entry_log2`
/// instruction words, `regs` registers per lane, `uniforms` uniform words, the texture path;
/// an error naming `what` (the programs) when they do not fit the instruction memory.
pub(super) fn engine_cfg(
    pass: &Pass,
    (slots, entry_log2): (usize, u32),
    regs: u32,
    uniforms: usize,
    texture: Option<EngineTexCfg>,
    what: &str,
) -> Result<EngineCfg, String> {
    let imem_depth = ((slots.max(1) << entry_log2) as u32)
        .next_power_of_two()
        .max(16);
    if imem_depth > 65536 {
        return Err(format!("--engine rtl: the {what} need {imem_depth} instruction words; the core has at most 65536"));
    }
    let uniform_bits = (uniforms.max(16) as u64)
        .next_power_of_two()
        .trailing_zeros();
    Ok(EngineCfg {
        frag: FragCfg {
            tile: TileCfg {
                samples: pass.samples,
                formats: pass.targets.iter().map(|t| rt_format(t.format)).collect(),
            },
            core: ShaderCfg {
                quads: 1,
                warps: 8,
                regs,
                imem_depth,
                ..ShaderCfg::default()
            },
            entry_log2,
            states: (pass.meshes.len() as u32).clamp(1, MAX_STATES),
        },
        uniform_bits: uniform_bits.max(4),
        texture,
        geometry: None,
    })
}

/// The engine `cfg` and its simulator, recording from the first cycle and tracing a VCD as
/// `opts` asks.
pub(super) fn engine_sim(
    cfg: &EngineCfg,
    opts: &RtlOptions,
) -> Result<(rendergen_hdl::Design, Simulator), String> {
    let design = tile_engine_top(cfg).map_err(|e| e.to_string())?;
    let mut sim = Simulator::with_eval(&design, opts.eval).map_err(|e| e.to_string())?;
    if opts.record || opts.stimulus.is_some() {
        sim.start_recording();
    }
    if let Some(path) = &opts.vcd {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("--engine rtl: {}: {e}", path.display()))?;
        sim.trace_vcd(std::io::BufWriter::new(f))
            .map_err(|e| format!("--engine rtl: {}: {e}", path.display()))?;
    }
    Ok((design, sim))
}

/// The driver's report of the image-load unit's sticky error (the model's wording,
/// `sim/models/tile/frame/env.rs`).
fn image_error_message(sim: &mut Simulator, pass: &Pass, code: u64) -> String {
    let at: Vec<u64> = (0..4)
        .map(|k| {
            sim.output(&format!("image_error_at_{k}"))
                .map_or(0, |p| sim.peek(p))
        })
        .collect();
    let (b, x, y, s) = (at[0], at[1], at[2], at[3]);
    let what = match ImageError::from_code(code) {
        Some(ImageError::OutOfBounds) => {
            let size = (pass.images.iter().find(|i| i.0 as u64 == b))
                .map_or("?".to_owned(), |(_, sf)| {
                    format!("{}×{}×{}", sf.width, sf.height, sf.samples)
                });
            format!(
                "a fragment shader read image binding {b} at ({x}, {y}) sample {s}, outside the {size} surface"
            )
        }
        Some(ImageError::Unbound) => {
            format!("a fragment shader read image binding {b}, which the pass does not bind")
        }
        _ => format!(
            "a fragment shader used a special function other than an image load (binding {b}); only image loads of surfaces are allowed outside the tile shader"
        ),
    };
    format!("--engine rtl: {what} (the image-load unit's error)")
}

/// What a stuck engine is doing: every stream of the hierarchy with `valid` high and `ready`
/// low (a handshake that does not complete), every command processor's state and the
/// back end's outstanding quads.
fn stuck_report(sim: &mut Simulator) -> String {
    let paths: Vec<String> = sim.signal_paths().map(str::to_owned).collect();
    let mut lines = Vec::new();
    let mut waiting = Vec::new();
    // Ports carry `_i`/`_o` in the hierarchy's names, wires none.
    let suffixes = ["", "_i", "_o"];
    for p in &paths {
        let Some(stem) = suffixes
            .iter()
            .find_map(|s| p.strip_suffix(&format!("_valid{s}")))
        else {
            continue;
        };
        let Some(r) = suffixes
            .iter()
            .find_map(|s| sim.signal(&format!("{stem}_ready{s}")).ok())
        else {
            continue;
        };
        let Ok(v) = sim.signal(p) else { continue };
        if sim.peek_signal(v).to_u64() != 0 && sim.peek_signal(r).to_u64() == 0 {
            waiting.push(stem.to_owned());
        }
    }
    waiting.sort();
    waiting.dedup();
    lines.push(match waiting.is_empty() {
        true => "no stream has valid without ready".to_owned(),
        false => format!("valid without ready: {}", waiting.join(", ")),
    });
    for p in &paths {
        let name = p.rsplit('.').next().unwrap_or(p);
        let interesting = (name.starts_with("state") && p.contains("cmd"))
            || name.starts_with("outstanding")
            || name.starts_with("fence_seen")
            || name == "ts_active"
            || name == "ts_dones"
            || name == "launch_lock";
        if interesting {
            if let Ok(s) = sim.signal(p) {
                let v = sim.peek_signal(s).to_u64();
                let shown = match name.starts_with("state") {
                    true => {
                        let states = <CmdState as HwEnum>::VARIANTS;
                        format!("{v} ({})", states.get(v as usize).copied().unwrap_or("?"))
                    }
                    false => v.to_string(),
                };
                lines.push(format!("{p} = {shown}"));
            }
        }
    }
    lines.join("\n")
}

/// The first difference between the RTL's surfaces and storage buffers and the model's, or
/// `None` when every byte is equal (the model's memory `model` after the same pass).
pub fn compare(report: &RtlReport, model: &Memory) -> Option<String> {
    for (i, bytes) in report.surfaces.iter().chain(&report.buffers) {
        let r = &model.regions()[*i];
        if let Some(k) = (0..bytes.len()).find(|&k| bytes[k] != r.bytes()[k]) {
            return Some(format!(
                "region `{}` byte {k}: RTL {:#04x}, model {:#04x}",
                r.name,
                bytes[k],
                r.bytes()[k]
            ));
        }
    }
    None
}
