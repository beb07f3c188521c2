//! The PBRU top level (`pbru.md` §1.2–1.4, §9.2 `pbru_top`): the core scheduler with its pipes
//! and caches, and the processing cores.
//!
//! Ports of [`pbru_top`] (and of [`pbru_shell_top`], which adds the core-facing ports):
//! `sm_ray_in`, `ttu_ray_in` ([`RayIn`](crate::pbru::ports::RayIn)), `sm_ray_out`, `ttu_ray_out` ([`RayOut`]), `l1_req`
//! ([`L1Req`], out), `l1_resp` ([`L1Resp`], in), `sm{k}_req` ([`SmReq`], in) and `sm{k}_resp`
//! ([`SmResp`], out) for `k < sm_ports`, and `perf_<kind><i>_{sm_grants,core_grants,busy}`
//! (32-bit outputs, e.g. `perf_astc_a0_sm_grants`).

use super::cache::l0_cache;
use super::core::pbru_core;
use super::pipes::pbru_pipe;
use super::ports::isa::PipeKind;
use super::ports::{
    CoreReq, FromCore, L1Req, L1Resp, PbruCfg, PipeInst, PipeOut, RayOut, SmReq, SmResp, ToCore,
};
use super::scheduler::{core_scheduler, CacheAnswers, SchedIn, SchedOut};
use rendergen_hdl::{name_lets, Design, ElabErrors, IoPlug, Module};

/// Declares the outside ports, and composes the scheduler with its siblings: one pipe per
/// pipeline instance and the two L0 caches (each its own module); the cores' side is `cores`
/// (what they give the scheduler); returns what the scheduler gives each core.
#[name_lets]
fn compose(m: &mut Module, cfg: &PbruCfg, cores: Vec<FromCore>) -> Vec<super::ports::ToCore> {
    let mut pipe_plugs: Vec<IoPlug<PipeOut>> = Vec::new();
    let mut pipes = Vec::new();
    let names = cfg.pipe_names();
    for name in &names {
        let (p, plug) = m.io_loop::<PipeOut>(&format!("pipe_out_{name}"), &PipeOut::shape());
        pipes.push(p);
        pipe_plugs.push(plug);
    }
    let (caches, cache_plug) = m.io_loop::<CacheAnswers>("cache", &CacheAnswers::shape());
    let input = SchedIn {
        sm_ray_in: m.input_stream("sm_ray_in", &cfg.ray_in_shape()),
        ttu_ray_in: m.input_stream("ttu_ray_in", &cfg.ray_in_shape()),
        l1_resp: m.input_stream("l1_resp", &L1Resp::SHAPE),
        sm_req: (0..cfg.sm_ports)
            .map(|k| m.input_stream(&format!("sm{k}_req"), &SmReq::SHAPE))
            .collect(),
        cores,
        slots: pipes,
        caches,
    };
    let out: SchedOut = m.child("scheduler", cfg, input, core_scheduler);
    for (((req, plug), inst), name) in out
        .pipe_req
        .into_iter()
        .zip(pipe_plugs)
        .zip(&cfg.pipes)
        .zip(&names)
    {
        plug.connect(pbru_pipe(m, &format!("pipe_{name}"), inst, req));
    }
    let icache = m.child("icache", &cfg.icache_cfg(), out.icache, l0_cache);
    let tcache = m.child("tcache", &cfg.tcache_cfg(), out.tcache, l0_cache);
    let to_array = |v: Vec<_>| -> [_; 2] { v.try_into().expect("two lookup ports per cache") };
    cache_plug.connect(CacheAnswers {
        icache: to_array(icache),
        tcache: to_array(tcache),
    });
    m.output_stream("sm_ray_out", out.sm_ray_out);
    m.output_stream("ttu_ray_out", out.ttu_ray_out);
    m.output_stream::<L1Req>("l1_req", out.l1_req);
    for (k, s) in out.sm_resp.into_iter().enumerate() {
        m.output_stream::<SmResp>(&format!("sm{k}_resp"), s);
    }
    for (p, name) in out.perf.into_iter().zip(&names) {
        m.output(&format!("perf_{name}_sm_grants"), p.sm_grants);
        m.output(&format!("perf_{name}_core_grants"), p.core_grants);
        m.output(&format!("perf_{name}_busy"), p.busy);
    }
    out.cores
}

/// The PBRU without its cores: the scheduler, pipes and caches, with each core's side of the
/// interface as ports `core{c}_assign` (out), `core{c}_busy` and `core{c}_open` (in), `core{c}_creq` (in),
/// `core{c}_crsp` (out), `core{c}_stop_valid`, `core{c}_stop_slot`, `core{c}_stop_epoch` (out),
/// `core{c}_done` (in).
/// Testbenches play the cores; see [`pbru_with`] for the timing and protocol.
#[name_lets]
pub fn pbru_shell(m: &mut Module, cfg: &PbruCfg) {
    if !cfg.check(m) {
        return;
    }
    let cores: Vec<_> = (0..cfg.cores)
        .map(|c| FromCore {
            busy: m.input(&format!("core{c}_busy"), cfg.slots),
            open: m.input(&format!("core{c}_open"), 1),
            creq: m.input_stream::<CoreReq>(&format!("core{c}_creq"), &cfg.core_req_shape()),
            done: m.input_stream::<RayOut>(&format!("core{c}_done"), &cfg.ray_out_shape()),
        })
        .collect();
    let to = compose(m, cfg, cores);
    for (c, t) in to.into_iter().enumerate() {
        m.output_stream(&format!("core{c}_assign"), t.assign);
        m.output_stream(&format!("core{c}_crsp"), t.crsp);
        m.output(&format!("core{c}_stop_valid"), t.stop.valid);
        m.output(&format!("core{c}_stop_slot"), t.stop.slot);
        m.output(&format!("core{c}_stop_epoch"), t.stop.epoch);
    }
}

/// Stand-alone [`pbru_shell`].
pub fn pbru_shell_top(cfg: &PbruCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("pbru_shell", &format!("{cfg:?}"), |m| pbru_shell(m, cfg))
}

/// A core generator for [`pbru_with`]: core `index`, its inputs from the scheduler → its
/// outputs.
pub type CoreGen<'a> = dyn FnMut(&mut Module, u32, ToCore) -> FromCore + 'a;

/// The PBRU with the cores built by `core` (one call per core).
///
/// * **Protocol:** every port keeps the rendergen stream rules; nothing is dropped; results are
///   routed by tag; see [`core_scheduler`] for the SM priority and the dispatch order.
/// * **Timing:** see [`core_scheduler`]; the cores add their own.
/// * **Parameters:** [`PbruCfg`].
/// * **Cost:** the scheduler's plus the cores'.
/// * **Errors:** elaboration errors of the parts, with their lines.
#[name_lets]
pub fn pbru_with(m: &mut Module, cfg: &PbruCfg, core: &mut CoreGen<'_>) {
    if !cfg.check(m) {
        return;
    }
    let mut plugs = Vec::new();
    let mut from = Vec::new();
    for c in 0..cfg.cores {
        let (f, plug) = m.io_loop::<FromCore>(&format!("core{c}"), &cfg.from_core_shape());
        from.push(f);
        plugs.push(plug);
    }
    let to = compose(m, cfg, from);
    for (c, (t, plug)) in to.into_iter().zip(plugs).enumerate() {
        plug.connect(core(m, c as u32, t));
    }
}

/// Stand-alone PBRU with the cores built by `core`, under the name `pbru`.
#[name_lets]
pub fn pbru_top_with(cfg: &PbruCfg, core: &mut CoreGen<'_>) -> Result<Design, ElabErrors> {
    Design::build_with_params("pbru", &format!("{cfg:?}"), |m| pbru_with(m, cfg, core))
}

/// The PBRU 335, composed of child modules: the [`core_scheduler`] (`scheduler`), one pipe per
/// pipeline instance (`pipe_<kind><i>`: [`pbru_pipe`]), the L0 instruction and texture caches
/// (`icache`, `tcache`: [`l0_cache`]) and `cfg.cores` processing cores (`core_<c>`:
/// [`pbru_core`]). Ports: see the module documentation.
///
/// * **Protocol:** every port keeps the rendergen stream rules; nothing is dropped; SM priority
///   per instance, round-robin among cores, results by tag (see [`core_scheduler`]).
/// * **Timing:** the scheduler's (see [`core_scheduler`]) and the core's (see [`pbru_core`]).
/// * **Parameters:** [`PbruCfg`] (defaults D3).
/// * **Cost:** the scheduler's plus `cores` × the core's.
/// * **Errors:** parameters out of range (elaboration or the core's checks).
///
/// ```
/// use rendergen_rtl::pbru::{ports::PbruCfg, top::pbru_top};
/// let mut cfg = PbruCfg { cores: 1, slots: 1, stack_depth: 4, ..PbruCfg::default() };
/// for p in &mut cfg.pipes {
///     p.test_latency = Some(2);
/// }
/// let design = pbru_top(&cfg).unwrap();
/// assert!(design.top().outputs.iter().any(|p| p.name == "perf_ggx0_core_grants"));
/// assert!(design.top().insts.iter().any(|i| i.name == "core_0"));
/// ```
pub fn pbru(m: &mut Module, cfg: &PbruCfg) {
    pbru_with(m, cfg, &mut |m, c, t: ToCore| {
        m.child(&format!("core[{c}]"), cfg, t, pbru_core)
    })
}

/// Stand-alone [`pbru`] under the name `pbru`.
pub fn pbru_top(cfg: &PbruCfg) -> Result<Design, ElabErrors> {
    Design::build_with_params("pbru", &format!("{cfg:?}"), |m| pbru(m, cfg))
}

/// The configuration from the catalogue's values: cores, slots, stack_depth, icache_chunks,
/// tcache_blocks, sm_ports, sm_block_cycles, miss_thresh, then the instance count of each
/// [`PipeKind`] in [`PipeKind::ALL`] order, the test latency, and `real_astc` (1: the real
/// units, ASTC and shading; 0: test pipelines — the name predates the shading units).
#[name_lets]
pub fn catalog_cfg(v: &[u64]) -> PbruCfg {
    let mut pipes = Vec::new();
    for (i, kind) in PipeKind::ALL.iter().enumerate() {
        for _ in 0..v[8 + i] {
            let real = v[17] == 1;
            pipes.push(PipeInst {
                kind: *kind,
                test_latency: (!real).then_some(v[16] as u32),
            });
        }
    }
    PbruCfg {
        cores: v[0] as u32,
        slots: v[1] as u32,
        stack_depth: v[2] as u32,
        icache_chunks: v[3] as u32,
        tcache_blocks: v[4] as u32,
        sm_ports: v[5] as u32,
        sm_block_cycles: v[6] as u32,
        miss_thresh: v[7] as u32,
        pipes,
    }
}
