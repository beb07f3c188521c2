//! `rendergen conv` as a user runs it: both modes and engines give the same PNG, `--json`
//! reports the figures, bad input fails cleanly (exit 2, the file or field named, no output).

mod common;
use common::{rendergen, scratch_path, stderr, stdout};

const IMG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/conv/examples/landscape50x38.png"
);

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(stdout(o).trim()).expect("JSON on stdout")
}

#[test]
fn modes_and_engines_write_the_same_image() {
    let mut images = Vec::new();
    for (mode, engine) in [
        ("baseline", "model"),
        ("collective", "model"),
        ("collective", "rtl"),
    ] {
        let out = scratch_path("conv", &format!("{mode}-{engine}.png"));
        let o = rendergen(&[
            "conv",
            IMG,
            "-o",
            out.to_str().unwrap(),
            "--kernel",
            "sobel-y",
            "--border",
            "mirror",
            "--mode",
            mode,
            "--engine",
            engine,
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let j = json(&o);
        assert_eq!(j["width"], 50);
        assert_eq!(j["mac_operations"], 50 * 38 * 6 * 4);
        // 25 × 19 = 475 groups in warps of 4 quads: 476 quads run (the last one of helper
        // lanes only, which fetch like any lane and export nothing).
        let quads = 476;
        match mode {
            "baseline" => {
                assert_eq!(j["requests"], quads * 6);
                assert_eq!(j["filter_active_cycles"], quads * 6 * 4);
            }
            _ => {
                assert_eq!(j["requests"], quads * 4);
                assert_eq!(j["texel_reads"], quads * 16);
                assert_eq!(j["register_writes"], quads * 64);
                assert_eq!(j["filter_active_cycles"], 0);
            }
        }
        assert_eq!(j["cycles"].is_null(), engine == "model");
        images.push(std::fs::read(&out).unwrap());
    }
    assert!(images.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_kernel_file_is_read() {
    let k = scratch_path("conv", "k.json");
    std::fs::write(
        &k,
        r#"{"width":1,"height":7,"weights":[1,1,1,1,1,1,1],"divisor":7}"#,
    )
    .unwrap();
    let out = scratch_path("conv", "k.png");
    let o = rendergen(&[
        "conv",
        IMG,
        "-o",
        out.to_str().unwrap(),
        "--kernel",
        k.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["kernel"], "1x7");
}

/// T9 from the command line: a 19×1 kernel file, fetched as the three overlapping
/// sub-operations of §A.7, gives the baseline's image in the broadcast modes all / selective /
/// shared, and `--json` reports per quad 11 requests, 44 texel reads, 160 / 76 / 40 register
/// writes and 16 / 8 / 4 duplicates dropped (the frame model's `broadcast`).
#[test]
fn a_19x1_kernel_drops_duplicates_in_every_broadcast_mode() {
    let k = scratch_path("conv", "k19.json");
    std::fs::write(
        &k,
        r#"{"width":19,"height":1,"weights":[1,1,2,2,3,3,4,4,5,6,5,4,4,3,3,2,2,1,1],"divisor":56}"#,
    )
    .unwrap();
    let quads = 476;
    let mut images = Vec::new();
    for (mode, broadcast, writes, dup) in [
        ("baseline", "all", 0, 0),
        ("collective", "all", 160, 16),
        ("collective", "selective", 76, 8),
        ("collective", "shared", 40, 4),
    ] {
        let out = scratch_path("conv", &format!("k19-{mode}-{broadcast}.png"));
        let o = rendergen(&[
            "conv",
            IMG,
            "-o",
            out.to_str().unwrap(),
            "--kernel",
            k.to_str().unwrap(),
            "--border",
            "repeat",
            "--mode",
            mode,
            "--broadcast",
            broadcast,
            "--engine",
            "model",
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let j = json(&o);
        assert_eq!(j["kernel"], "19x1");
        if mode == "collective" {
            assert_eq!(j["requests"], quads * 11, "{broadcast}");
            assert_eq!(j["texel_reads"], quads * 44, "{broadcast}");
            assert_eq!(j["register_writes"], quads * writes, "{broadcast}");
            assert_eq!(j["duplicates_dropped"], quads * dup, "{broadcast}");
        } else {
            assert_eq!(j["requests"], quads * 19);
            assert_eq!(j["duplicates_dropped"], 0);
        }
        images.push(std::fs::read(&out).unwrap());
    }
    assert!(images.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn bad_input_fails_cleanly() {
    let out = scratch_path("conv", "never.png");
    let bad_kernel = scratch_path("conv", "bad.json");
    std::fs::write(&bad_kernel, r#"{"width":3,"height":3,"weights":[1,2]}"#).unwrap();
    let not_png = scratch_path("conv", "not.png");
    std::fs::write(&not_png, "hello").unwrap();
    let o = out.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["conv", IMG, "-o", o, "--kernel", "blur9"],
            "not a preset",
        ),
        (
            vec![
                "conv",
                IMG,
                "-o",
                o,
                "--kernel",
                bad_kernel.to_str().unwrap(),
            ],
            "weights",
        ),
        (
            vec![
                "conv",
                not_png.to_str().unwrap(),
                "-o",
                o,
                "--kernel",
                "box3",
            ],
            "not a PNG",
        ),
        (
            vec!["conv", "/nonexistent.png", "-o", o, "--kernel", "box3"],
            "/nonexistent.png",
        ),
        (
            vec![
                "conv",
                IMG,
                "-o",
                o,
                "--kernel",
                "box3",
                "--cache-lines",
                "48",
            ],
            "--cache-lines",
        ),
        (
            vec!["conv", IMG, "-o", o, "--kernel", "box3", "--border", "wrap"],
            "--border",
        ),
    ] {
        let r = rendergen(&args);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {}", stderr(&r));
        assert!(stderr(&r).contains(needle), "{args:?}: {}", stderr(&r));
        assert!(!out.exists(), "{args:?} wrote an output");
    }
}
