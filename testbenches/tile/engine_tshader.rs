//! Tile-shader warps on the frame model and the RTL engine (`tile_engine`): a tile shader
//! whose threads exchange data through the tile buffer inside their warp of four (the
//! engine's warp, the model's [`TS_WARP`]) gives the same surfaces, bit for bit, on both —
//! each thread writes two channels of its pixel, then reads channels its warp neighbours
//! wrote (`x ^ 1`, `x ^ 2`) in the same RESOLVE. The model's warp order (warps of four in
//! launch order, each to its end) is pinned by a model test against a formula; an access
//! outside the tile stops the RTL run with an error naming the thread and tile as the model's
//! does; and the per-tile tile-shader cycles of the RTL are reported (`measure_*`, ignored).
use super::engine::{model, program, random_mesh};
use rendergen_gen::raster::rtl::{compare, run_pass_rtl, RtlOptions, RtlReport};
use rendergen_sim::kit::Rng;
use rendergen_sim::models::tile::buffer::Format;
use rendergen_sim::models::tile::frame::{
    run_pass, Mesh, Pass, PassResult, Resolve, Target, TS_WARP,
};
use rendergen_sim::models::tile::memory::Memory;
use rendergen_sim::models::tile::port::WriteMode;

/// Fragment shader: RT0 (RGBA8) = the varying colour, RT1 (R32F) = its red + 2·green.
const FRAGMENT: &str = "
fmuli r20, r9, 2.0
fadd r20, r20, r8
export 0, r8, 4
export 1, r20, 1
end
";

/// Tile shader, one thread per pixel (16 × 16): `v` = RT1 at its pixel; RT0.r = v / 2 and
/// RT0.g = v at its pixel (two merged stores of one sample, back to back); then RT1 at its
/// pixel = RT0.r of pixel `x ^ 1` + RT0.g of pixel `x ^ 2` (both written by other threads
/// of its warp in this RESOLVE) + its own RT0.g.
const NEIGHBOUR_TS: &str = "
shli r10, r1, 14
or r10, r10, r0
xori r20, r0, 1
shli r21, r1, 14
or r21, r21, r20
xori r22, r0, 2
shli r23, r1, 14
or r23, r23, r22
spec r11, r10, r0, 0x104
fmuli r12, r11, 0.5
spec r13, r10, r12, 0x200
spec r13, r10, r11, 0x201
spec r14, r21, r0, 0x100
spec r15, r23, r0, 0x101
spec r16, r10, r0, 0x101
fadd r17, r14, r15
fadd r17, r17, r16
spec r18, r10, r17, 0x204
end
";

/// `n` random triangles over the screen (w in 1..4), colours in 0..1.
fn mesh(seed: u64, n: usize) -> Mesh {
    random_mesh(&mut Rng::new(seed), "tris", n, FRAGMENT, false, 2)
}

/// A `size`-pixel square screen, RT0 RGBA8 and RT1 R32F (both written out), `meshes`, and
/// one RESOLVE of `ts` on 16 × 16 threads after them.
fn scene(size: u32, meshes: Vec<Mesh>, ts: &str) -> Pass {
    let target = |name: &str, format, clear| Target {
        name: name.into(),
        class: "output".into(),
        format,
        writeout: WriteMode::Average,
        clear,
    };
    Pass {
        name: "tshader".into(),
        width: size,
        height: size,
        samples: 1,
        targets: vec![
            target("colour", Format::Rgba8, 0x4080_20FF),
            target("value", Format::R32f, 0.25f32.to_bits() as u64),
        ],
        depth_writeout: WriteMode::Off,
        depth_clear: 0xFF_FFFF,
        resolves: vec![Resolve {
            after: meshes.len(),
            program: program(ts),
            threads: (16, 16),
            rect: None,
        }],
        meshes,
        buffers: vec![],
        images: vec![],
    }
}

/// The first `n` bytes of render target `rt`'s surface.
fn surface(mem: &Memory, r: &PassResult, rt: usize, n: usize) -> Vec<u8> {
    let s = r.surfaces[rt].as_ref().expect("written out");
    let mut bytes = vec![0; n];
    mem.peek(mem.base(s.region), &mut bytes)
        .unwrap_or_else(|e| panic!("{e:?}"));
    bytes
}

/// The model and the RTL on `pass`: the surfaces equal byte for byte; the RTL's report.
fn check(pass: &Pass, opts: &RtlOptions) -> RtlReport {
    let (mem, res) = model(pass);
    let report = run_pass_rtl(pass, &mem, &res, opts).unwrap_or_else(|e| panic!("{e}"));
    if let Some(d) = compare(&report, &mem) {
        panic!("RTL and model differ (seed {:#x}): {d}", opts.seed);
    }
    let ts: Vec<u64> = report.tiles.iter().map(|t| t.tile_shader).collect();
    eprintln!(
        "tile_engine `{}`: {} cycles, tile shader per tile {ts:?} (model cost {:?})",
        pass.name,
        report.cycles,
        res.tiles
            .iter()
            .map(|t| t.cycles_tile_shader)
            .collect::<Vec<_>>()
    );
    report
}

/// The model's RT1 after [`NEIGHBOUR_TS`] at pixel `(x, y)`, from the G-buffer's RT1 `g`,
/// by the formula (binary32 arithmetic as the core's; RGBA8 stores by `pack`).
fn neighbour_formula(g: &dyn Fn(u32, u32) -> f32, x: u32, y: u32) -> f32 {
    use rendergen_sim::models::tile::pack::{load_channel, store_channel};
    // RT0 of pixel p after the stores: r = unorm8(v/2), g = unorm8(v), read back as f32.
    let r_of = |px: u32| {
        let v = g(px, y) * 0.5;
        f32::from_bits(load_channel(
            Format::Rgba8,
            store_channel(Format::Rgba8, 0, 0, v.to_bits()),
            0,
        ))
    };
    let g_of = |px: u32| {
        let v = g(px, y);
        f32::from_bits(load_channel(
            Format::Rgba8,
            store_channel(Format::Rgba8, 0, 1, v.to_bits()),
            1,
        ))
    };
    r_of(x ^ 1) + g_of(x ^ 2) + g_of(x)
}

/// Neighbour exchange inside warps of four: the model against a formula on its own G-buffer,
/// then the RTL against the model, bit for bit (32 × 32: four tiles).
#[test]
fn warp_neighbours_agree_between_model_and_engine() {
    let pass = scene(32, vec![mesh(21, 6)], NEIGHBOUR_TS);
    // The formula needs the G-buffer: the same pass without the RESOLVE.
    let mut gpass = pass.clone();
    gpass.resolves.clear();
    let (gmem, gres) = model(&gpass);
    let (mem, res) = model(&pass);
    let surf = |mem: &Memory, r: &PassResult, rt: usize| -> Vec<u32> {
        surface(mem, r, rt, 32 * 32 * 4)
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let g1 = surf(&gmem, &gres, 1);
    let out = surf(&mem, &res, 1);
    let g = |x: u32, y: u32| f32::from_bits(g1[(y * 32 + x) as usize]);
    for y in 0..32 {
        for x in 0..32 {
            let want = neighbour_formula(&g, x, y);
            assert_eq!(
                out[(y * 32 + x) as usize],
                want.to_bits(),
                "model RT1 at ({x}, {y}): {} against the formula's {want}",
                f32::from_bits(out[(y * 32 + x) as usize])
            );
        }
    }
    check(&pass, &RtlOptions::default());
}

/// The same under memory latency, stalls and gaps (the engine's schedule changes; the result
/// of a warp-local exchange does not).
#[test]
fn warp_neighbours_agree_under_memory_back_pressure() {
    let pass = scene(32, vec![mesh(22, 5)], NEIGHBOUR_TS);
    let opts = super::engine::back_pressure(0x75c1);
    check(&pass, &opts);
}

/// The model runs warps of [`TS_WARP`] = 4 threads in launch order, each to its end: a thread
/// that reads the pixel of the thread four to its right (the next warp, which has not run)
/// sees the G-buffer's value, one that reads a pixel of an earlier warp sees that warp's
/// store. (Across warps the engine's order is not defined, so this is the model's rule only;
/// with the former 64-thread warps the first case saw the store.)
#[test]
fn model_runs_tile_shader_warps_of_four_in_launch_order() {
    assert_eq!(TS_WARP, 4);
    // RT1(own) = t as f32; then RT0.r(own) = RT1 of pixel ((x + 4) mod 16, y) / 256.
    let ts = "
shli r10, r1, 14
or r10, r10, r0
u2f r11, r6
spec r12, r10, r11, 0x204
iaddi r20, r3, 4
andi r20, r20, 15
shli r21, r1, 14
or r21, r21, r20
spec r13, r21, r0, 0x104
fmuli r13, r13, 0.00390625
spec r14, r10, r13, 0x200
end
";
    let pass = scene(16, vec![], ts);
    let (mem, res) = model(&pass);
    let bytes = surface(&mem, &res, 0, 16 * 16 * 4);
    for y in 0..16u32 {
        for x in 0..16u32 {
            let t = y * 16 + x;
            let px = (x + 4) % 16;
            let tp = y * 16 + px;
            // Written before this thread's load when its warp ran earlier (or is this one).
            let v = match tp / 4 <= t / 4 {
                true => tp as f32,
                false => 0.25, // RT1's clear value
            } * 0.00390625;
            let want =
                rendergen_sim::models::tile::pack::store_channel(Format::Rgba8, 0, 0, v.to_bits())
                    as u8;
            let got = bytes[((y * 16 + x) * 4) as usize];
            assert_eq!(got, want, "thread ({x}, {y}): RT0.r {got}, expected {want}");
        }
    }
}

/// Tile-shader cycles per tile of the RTL on this file's scene and on the `tile::engine`
/// scene's shape (not asserted).
/// `cargo test -p rendergen-testbenches --test testbenches tile::engine_tshader::measure -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_tile_shader_phase() {
    let pass = scene(32, vec![mesh(21, 6)], NEIGHBOUR_TS);
    let r = check(&pass, &RtlOptions::default());
    let ts: u64 = r.tiles.iter().map(|t| t.tile_shader).sum();
    eprintln!(
        "neighbour scene: {} cycles, tile shader {ts} cycles over {} tiles",
        r.cycles,
        r.tiles.len()
    );
}

/// A 4 × 4-thread tile shader reading RT0 at pixel `(16·tile_x + 4·x, 16·tile_y + y)`; with
/// `bad`, `4·tile_x` more, so thread (3, y) of tile (1, 0) reads pixel (32, y), outside its
/// tile (tile 0 stays inside).
fn grid_ts(bad: bool) -> String {
    let extra = if bad {
        "shli r11, r7, 2\niadd r10, r10, r11\n"
    } else {
        ""
    };
    format!(
        "
shli r10, r3, 2
shli r11, r7, 4
iadd r10, r10, r11
{extra}shli r12, r8, 4
iadd r12, r12, r4
shli r13, r12, 14
or r13, r13, r10
spec r14, r13, r0, 0x100
end
"
    )
}

/// An access outside the tile on the RTL names the thread as the model does: with a 4 × 4
/// grid the thread is lane 3 of the warp whose first thread is `4·y`, found through the
/// engine's per-slot table of first threads (`ts_error_thread`) and the RESOLVE's grid width
/// and tile (`ts_error_xthreads`, `ts_error_tile_*`), under memory back-pressure. The RTL
/// runs the bad tile shader against the model's run of the good one (same lists: the same
/// geometry and grid).
#[test]
fn out_of_tile_error_names_the_thread() {
    let mut pass = scene(32, vec![mesh(0x0071, 6)], &grid_ts(false));
    pass.resolves[0].threads = (4, 4);
    let (mem, res) = model(&pass);
    let mut bad = pass.clone();
    bad.resolves[0].program = program(&grid_ts(true));
    let e = run_pass(&bad, &mut Memory::new())
        .expect_err("the model refuses it")
        .to_string();
    assert!(
        e.contains("tile shader thread (3, 0) of tile (1, 0)") && e.contains("outside its tile"),
        "{e}"
    );
    let opts = RtlOptions {
        seed: 0x7E11,
        latency: (1, 16),
        stall: 0.2,
        gap: 0.2,
        ..RtlOptions::default()
    };
    let e = run_pass_rtl(&bad, &mem, &res, &opts).expect_err("the RTL stops");
    eprintln!("{e}");
    let y = (e.split("tile shader thread (3, ").nth(1))
        .and_then(|t| t.split(')').next())
        .unwrap_or_else(|| panic!("no thread (3, y) in: {e}"));
    assert!(
        e.contains(&format!("thread (3, {y}) of tile (1, 0)"))
            && e.contains(&format!(
                "lane 3) accessed binding 0 at pixel (32, {y}) sample 0"
            )),
        "{e}"
    );
    // The good one runs on the RTL and equals the model.
    check(&pass, &opts);
}
