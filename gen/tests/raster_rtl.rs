//! `rendergen raster --engine rtl --json` runs each pass in one `tile_engine` simulation from
//! vertices to pixels (vertex phase, the RTL geometry front end, the tiles) and reports the
//! geometry phase: its cycles and counters beside the frame model's; `--record-stimulus`.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn scenes() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("raster/scenes")
}

/// `lit_model` at 32×16 (two tiles), forward, on the RTL: the JSON's `rtl_geometry` has the
/// front end's counters equal to the model's pass (the run itself checks lists and primitive
/// data word for word), non-zero list and primitive bytes, and the three phases' cycles.
#[test]
fn cli_rtl_json_reports_the_geometry_phase() {
    let dir = scratch_path("raster_rtl", "lit");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in [
        "gbuffer.vert",
        "gbuffer.frag",
        "lighting.comp",
        "lighting.frag",
        "forward.frag",
        "model.gltf",
        "model.bin",
    ] {
        std::fs::copy(scenes().join(f), dir.join(f)).unwrap();
    }
    let text = std::fs::read_to_string(scenes().join("lit_model.json")).unwrap();
    assert!(text.contains("\"width\": 96,") && text.contains("\"height\": 64,"));
    let text = (text.replace("\"width\": 96,", "\"width\": 32,"))
        .replace("\"height\": 64,", "\"height\": 16,");
    let scene = dir.join("lit32.json");
    std::fs::write(&scene, text).unwrap();
    let out = dir.join("lit.png");
    let stim = dir.join("lit.stim");
    let (scene, out, stim) = (
        scene.to_str().unwrap(),
        out.to_str().unwrap(),
        stim.to_str().unwrap(),
    );
    let raster_rtl = |mode: &str, json: &[&str]| {
        let mut args = vec![
            "raster", scene, "-o", out, "--mode", mode, "--engine", "rtl",
        ];
        args.extend(json);
        args.extend(["--record-stimulus", stim]);
        rendergen(&args)
    };
    // A stimulus needs a one-pass mode: two-pass is refused before anything runs.
    let o = raster_rtl("two-pass", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("one-pass mode"), "{}", stderr(&o));
    assert!(!Path::new(out).exists() && !Path::new(stim).exists());
    let o = raster_rtl("forward", &["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let g = &v["rtl_geometry"];
    let pass = &g["passes"][0];
    let model = &v["passes"][0];
    for k in [
        "triangles_in",
        "triangles_out",
        "culled",
        "near_clipped",
        "guard_band_rejects",
    ] {
        assert_eq!(pass[k], model[k], "{k}: {g}");
    }
    let n = |j: &serde_json::Value| j.as_u64().unwrap_or(0);
    assert!(
        n(&model["triangles_out"]) > 0 && n(&model["culled"]) > 0,
        "{model}"
    );
    // Primitive data: 3 vertices × (1/w + 4·S words) × 4 bytes per kept triangle.
    let slots = n(&v["rtl_vertex"]["passes"][0]["slots"]);
    assert_eq!(
        n(&pass["primitive_bytes"]),
        n(&model["triangles_out"]) * 12 * (1 + 4 * slots)
    );
    assert!(n(&pass["list_bytes"]) >= 2 * 8 * 2, "{g}");
    assert!(n(&pass["fetch_read_bytes"]) > 0, "{g}");
    assert!(n(&g["cycles"]) > 0 && n(&g["vertex_cycles"]) > 0 && n(&g["tile_cycles"]) > 0);
    assert_eq!(
        n(&g["frame_cycles"]),
        n(&g["cycles"]) + n(&g["vertex_cycles"]) + n(&g["tile_cycles"])
    );
    assert_eq!(n(&g["tile_cycles"]), n(&v["rtl"]["cycles"]));
    assert!(std::fs::read(out).unwrap().starts_with(b"\x89PNG"));
    // The stimulus and the parameters that rebuild the engine for `rendergen bench`.
    let params = v["rtl"]["replay_params"].as_array().expect("replay_params");
    assert!(params.iter().any(|p| p == "geometry=1"), "{params:?}");
    assert!(
        stderr(&o).contains("replay: rendergen bench tile_engine -p samples=1"),
        "{}",
        stderr(&o)
    );
    assert!(std::fs::read(stim).unwrap().starts_with(b"RGSTIM01"));
}
