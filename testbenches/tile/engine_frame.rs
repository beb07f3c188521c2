//! One `tile_engine` simulation from vertices to pixels (issue 13): the engine with its
//! geometry front end (`EngineCfg::geometry`, `tile_frontend` as a child) runs a pass's vertex
//! phase, then the front end on its own post-transform buffer, then every tile from its own
//! lists and primitive data. Golden model: the frame model (`render`'s `run_pass`): the driver
//! (`gen/raster/rtl.rs`) checks the post-transform vertices, the front end's counters, the
//! primitive data and every list word against the model's when the first list is handed to
//! the tiles, and `render_rtl` every surface byte; these tests add scoreboards of their own
//! (the image, the counters, the list and primitive bytes moved, from the model's lists), on
//! `lit_model` in forward and tile-shader mode with random memory latency, stalls and gaps, and
//! on inline meshes with a triangle across the near plane, one wholly behind it and a culled
//! one. Co-simulation of the engine with the front end on that tiny frame; lint.
use super::buffer::assert_lint_clean;
use rendergen_gen::raster::rtl::{
    run_pass_rtl_with, RtlOptions, RtlReport, LISTS_REGION, PTV_REGION,
};
use rendergen_gen::raster::{render, render_rtl, Frame, Mode, RasterScene};
use rendergen_rtl::shader::ShaderCfg;
use rendergen_rtl::tile::engine::{tile_engine_top, EngineCfg};
use rendergen_rtl::tile::frag::FragCfg;
use rendergen_rtl::tile::geometry::fetch::FetchCfg;
use rendergen_rtl::tile::geometry::frontend::FrontCfg;
use rendergen_rtl::tile::geometry::GeomCfg;
use rendergen_rtl::tile::{RtFormat, TileCfg};
use rendergen_sim::models::tile::memory::Memory;

fn scenes() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../gen/raster/scenes")
}

/// `lit_model.json` at 32×16 (two tiles).
fn lit_model_small() -> RasterScene {
    let text = std::fs::read_to_string(scenes().join("lit_model.json")).expect("lit_model.json");
    assert!(text.contains("\"width\": 96,") && text.contains("\"height\": 64,"));
    let text = (text.replace("\"width\": 96,", "\"width\": 32,"))
        .replace("\"height\": 64,", "\"height\": 16,");
    RasterScene::parse(&text, &scenes()).unwrap_or_else(|e| panic!("{e}"))
}

/// `lit_model`'s camera, targets and shaders at 32×16 with inline meshes: a triangle across
/// the near plane (one vertex behind the camera), one wholly behind it, a pair with opposite
/// windings under back-face culling (one culled), and the floor.
fn inline_scene() -> RasterScene {
    let mut sc = lit_model_small();
    let floor = sc.meshes[0].clone();
    let mesh = |name: &str, positions: Vec<f32>, indices: Vec<u32>, cull: &str| {
        let mut m = floor.clone();
        m.name = name.into();
        m.normals = (0..positions.len() / 3)
            .flat_map(|_| [0.0f32, 0.0, 1.0])
            .collect();
        m.uvs.clear();
        m.positions = positions;
        m.indices = indices;
        m.cull = cull.into();
        m.model = std::array::from_fn(|k| if k % 5 == 0 { 1.0 } else { 0.0 });
        m
    };
    // The camera sits at z = 4.2 looking towards −z: z = 6 is behind it.
    sc.meshes = vec![
        floor.clone(),
        mesh(
            "across",
            vec![-1.5, 0.0, 0.0, 1.5, 0.2, 0.0, 0.0, 2.2, 6.0],
            vec![0, 1, 2],
            "none",
        ),
        mesh(
            "behind",
            vec![-1.0, 2.0, 6.0, 1.0, 2.0, 6.0, 0.0, 3.0, 6.0],
            vec![0, 1, 2],
            "none",
        ),
        mesh(
            "culled",
            vec![-0.6, 0.4, 1.0, 0.6, 0.4, 1.0, 0.0, 1.3, 1.0],
            vec![0, 1, 2, 0, 2, 1],
            "back",
        ),
    ];
    sc
}

/// The model's lists' words of `pass` (its `command lists` region: a table, then the lists).
fn model_list_words(mem: &Memory, pass: &str, tiles: usize) -> u64 {
    let r = (mem.regions().iter())
        .find(|r| r.name == format!("{pass}: command lists"))
        .expect("command lists");
    (r.bytes().chunks_exact(8).take(tiles))
        .map(|b| u64::from_le_bytes(b.try_into().expect("8")) >> 32)
        .sum()
}

/// `sc` in `mode` on the model, then on the RTL in one simulation per pass: the image equals
/// the model's bit for bit; per pass the front end's counters equal the model's, its lists
/// were written and read exactly once (8 bytes per word of the model's lists), its
/// primitive data written once (the model's bytes), the model's own list region untouched.
fn frame_on_rtl(sc: &RasterScene, mode: Mode, opts: &RtlOptions) -> (Frame, RtlReport) {
    let mut f = render(sc, mode, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
    let model_pixels = f.pixels.clone();
    let r = render_rtl(&mut f, opts).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        f.pixels, model_pixels,
        "{mode:?}: the RTL's image = the model's"
    );
    let with_meshes = f.descs.iter().filter(|p| !p.meshes.is_empty()).count();
    assert_eq!(r.geometry.len(), f.descs.len(), "a geometry phase per pass");
    assert_eq!(
        r.vertex.len(),
        with_meshes,
        "a vertex phase per pass with meshes"
    );
    let mut list_bytes = 0;
    for (name, g) in &r.geometry {
        let (_, m) = f.passes.iter().find(|p| &p.0 == name).expect("the pass");
        let counts = [
            g.triangles_in,
            g.near_clipped,
            g.guard_band_rejects,
            g.culled,
            g.triangles_out,
        ];
        let want = [
            m.triangles_in,
            m.near_clipped,
            m.guard_band_rejects,
            m.culled,
            m.triangles_out,
        ];
        assert_eq!(
            counts, want,
            "pass `{name}`: counters (in, near, guard, culled, out)"
        );
        let desc = f.descs.iter().find(|p| &p.name == name).expect("desc");
        let tiles = (desc.width.div_ceil(16) * desc.height.div_ceil(16)) as usize;
        let words = model_list_words(&f.memory, name, tiles);
        assert_eq!(g.list_bytes, 8 * words, "pass `{name}`: list bytes written");
        list_bytes += 8 * words;
        let prim = (f.memory.regions().iter())
            .find(|r| r.name == format!("{name}: primitive data"))
            .expect("primitive data");
        let want_prim = match m.triangles_out {
            0 => 0,
            _ => prim.size(),
        };
        assert_eq!(
            g.prim_bytes, want_prim,
            "pass `{name}`: primitive bytes written"
        );
        assert!(g.cycles > 0, "pass `{name}`: geometry cycles");
    }
    for (k, reg) in f.memory.regions().iter().enumerate() {
        if reg.class == "command lists" {
            let (_, _, rd, wr) = &r.regions[k];
            assert_eq!(
                (*rd, *wr),
                (0, 0),
                "the model's `{}` is not the RTL's",
                reg.name
            );
        }
    }
    let bins = (r.regions.iter())
        .find(|g| g.0 == LISTS_REGION)
        .expect("the RTL's list region");
    assert_eq!(
        (bins.2, bins.3),
        (list_bytes, list_bytes),
        "every list word written and read once"
    );
    assert!(r.regions.iter().any(|g| g.0 == PTV_REGION));
    (f, r)
}

#[test]
fn lit_model_forward_from_vertices_to_pixels_under_memory_back_pressure() {
    let opts = RtlOptions {
        seed: 0xF0A,
        latency: (1, 24),
        stall: 0.25,
        gap: 0.25,
        ..RtlOptions::default()
    };
    let (f, r) = frame_on_rtl(&lit_model_small(), Mode::Forward, &opts);
    let m = &f.passes[0].1;
    assert!(
        m.culled > 0 && m.triangles_out > 0,
        "back faces culled, triangles kept"
    );
    eprintln!(
        "lit_model 32×16 forward, one simulation: vertex {} geometry {} tiles {} cycles",
        r.vertex[0].1.cycles, r.geometry[0].1.cycles, r.cycles
    );
}

#[test]
fn lit_model_tile_shader_from_vertices_to_pixels() {
    let opts = RtlOptions {
        seed: 0x75A,
        latency: (2, 12),
        stall: 0.1,
        gap: 0.1,
        ..RtlOptions::default()
    };
    let (f, _) = frame_on_rtl(&lit_model_small(), Mode::TileShader, &opts);
    assert!(
        f.descs[0].resolves.len() == 1,
        "the lighting RESOLVE placed by the front end"
    );
}

/// Inline meshes with a near-plane crossing, a triangle wholly behind the near plane and a
/// culled one, in both single-pass modes with back-pressure.
#[test]
fn inline_meshes_clipped_and_culled_on_the_rtl() {
    let sc = inline_scene();
    for (k, mode) in [Mode::Forward, Mode::TileShader].into_iter().enumerate() {
        let opts = RtlOptions {
            seed: 0x11 + k as u64,
            latency: (1, 16),
            stall: 0.3,
            gap: 0.3,
            ..RtlOptions::default()
        };
        let (f, _) = frame_on_rtl(&sc, mode, &opts);
        let m = &f.passes[0].1;
        assert_eq!(m.near_clipped, 1, "{mode:?}: one triangle wholly behind");
        assert_eq!(m.culled, 1, "{mode:?}: one back face");
        // The crossing triangle became two (a quadrilateral in front of the plane).
        assert_eq!(m.triangles_in, 2 + 1 + 1 + 2, "{mode:?}");
        assert_eq!(
            m.triangles_out,
            2 + 2 + 1,
            "{mode:?}: floor, two halves, one front face"
        );
    }
}

/// The engine with the front end, co-simulated (iverilog and Verilator against the Rust
/// simulation) over the inline frame's program load, vertex phase and geometry start.
#[test]
fn engine_with_front_end_cosimulates() {
    let sc = inline_scene();
    let f =
        render(&sc, Mode::Forward, 1, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}", e.message));
    let opts = RtlOptions {
        record: true,
        tiles: Some(1),
        ..RtlOptions::default()
    };
    let mut cycles = 0;
    let r = run_pass_rtl_with(
        &f.descs[0],
        &f.memory,
        &f.passes[0].1,
        &opts,
        &mut |d, sim| {
            let mut trace = sim.take_trace();
            cycles = trace.cycles.len();
            trace.cycles.truncate(6_000);
            if let Err(e) = rendergen_gen::cosim::cosim_both(d, &trace) {
                panic!("co-simulation of tile_engine with its front end failed: {e}");
            }
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "recorded {cycles} cycles: vertex {} geometry {} first tile {}",
        r.vertex[0].1.cycles, r.geometry[0].1.cycles, r.cycles
    );
}

#[test]
fn engine_with_front_end_lint_clean() {
    let cfg = EngineCfg {
        frag: FragCfg {
            tile: TileCfg {
                samples: 1,
                formats: vec![RtFormat::Rgba8],
            },
            core: ShaderCfg {
                warps: 2,
                regs: 16,
                imem_depth: 16,
                ..ShaderCfg::default()
            },
            entry_log2: 3,
            states: 1,
        },
        uniform_bits: 4,
        texture: None,
        geometry: Some(FrontCfg {
            fetch: FetchCfg {
                slots: 1,
                outstanding: 4,
            },
            geom: GeomCfg {
                planes: 2,
                bin_words: 32,
                max_tiles: 4,
                div_steps: 4,
            },
        }),
    };
    assert_lint_clean(&tile_engine_top(&cfg).unwrap_or_else(|e| panic!("{e}")));
}

/// A front end whose planes are not the tile's render targets + depth: an elaboration error
/// naming the parameter, never a panic.
#[test]
fn front_end_planes_must_match_the_targets() {
    let cfg = EngineCfg {
        geometry: Some(FrontCfg::default()),
        ..EngineCfg::default()
    };
    let planes = cfg.frag.tile.formats.len() + 1;
    let cfg = EngineCfg {
        geometry: Some(FrontCfg {
            geom: GeomCfg {
                planes: planes as u32 + 1,
                ..GeomCfg::default()
            },
            ..FrontCfg::default()
        }),
        ..cfg
    };
    let e = tile_engine_top(&cfg).unwrap_err().to_string();
    assert!(e.contains("geometry.geom.planes"), "{e}");
}
