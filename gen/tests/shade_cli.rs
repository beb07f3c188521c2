//! `rendergen shade eval` as a user runs it: the RTL equals the bit-exact model on a few
//! hundred rows, the f64 reference is within issue 11's bound of both, every input error is a
//! message with its place (exit 2) and no output file.

mod common;
use common::{rendergen, scratch_path, stderr, stdout};

use rendergen_sim::kit::Rng;
use rendergen_sim::models::pbru::shading_ref::within_bound;
use std::path::Path;
use std::process::Output;

fn scratch(name: &str) -> std::path::PathBuf {
    scratch_path("shade-cli", name)
}

/// A decimal of `[lo, hi]` with up to five fraction digits.
fn decimal(r: &mut Rng, lo: f64, hi: f64) -> String {
    let x = lo + (hi - lo) * (r.below(1 << 20) as f64 / (1 << 20) as f64);
    format!("{x:.5}")
}

/// A unit vector as three decimals.
fn unit(r: &mut Rng) -> Vec<String> {
    loop {
        let v: Vec<f64> = (0..3)
            .map(|_| r.below(2001) as f64 / 1000.0 - 1.0)
            .collect();
        let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (0.2..=1.0).contains(&len) {
            return v.iter().map(|x| format!("{:.6}", x / len)).collect();
        }
    }
}

/// `rows` GGX_DIR requests: in-domain points (N·V ≥ 0.01 not enforced: a share faces away).
fn ggx_dir_csv(seed: u64, rows: usize) -> String {
    let mut r = Rng::new(seed);
    let mut s = String::from("nx,ny,nz,vx,vy,vz,alpha,xi1,xi2\n");
    for _ in 0..rows {
        let (n, v) = (unit(&mut r), unit(&mut r));
        let rest = [
            decimal(&mut r, 0.02, 1.0),
            decimal(&mut r, 0.0, 0.99998),
            decimal(&mut r, 0.0, 0.99998),
        ];
        s += &([&n[..], &v, &rest].concat().join(",") + "\n");
    }
    s
}

fn run_engine(pipe: &str, input: &Path, engine: &str) -> Output {
    rendergen(&[
        "shade",
        "eval",
        pipe,
        "--inputs",
        input.to_str().unwrap(),
        "--engine",
        engine,
    ])
}

fn table(csv: &str) -> Vec<Vec<f64>> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect()
}

#[test]
fn rtl_equals_the_model_and_the_f64_reference_is_within_the_bound() {
    let input = scratch("ggx_dir.csv");
    std::fs::write(&input, ggx_dir_csv(1, 300)).unwrap();
    let rtl = run_engine("ggx_dir", &input, "rtl");
    assert!(rtl.status.success(), "{}", stderr(&rtl));
    assert!(
        stderr(&rtl).contains("300 rows of ggx_dir"),
        "{}",
        stderr(&rtl)
    );
    let model = run_engine("ggx_dir", &input, "model");
    assert!(model.status.success(), "{}", stderr(&model));
    assert_eq!(stdout(&rtl), stdout(&model), "rtl and model differ");
    assert!(stdout(&rtl).starts_with("lx,ly,lz,pdf\n"));
    let f64_out = run_engine("ggx_dir", &input, "f64");
    assert!(f64_out.status.success(), "{}", stderr(&f64_out));
    let (got, want) = (table(&stdout(&model)), table(&stdout(&f64_out)));
    assert_eq!(got.len(), 300);
    let nv_ok = |row: &str| {
        let x: Vec<f64> = row.split(',').map(|x| x.parse().unwrap()).collect();
        x[0] * x[3] + x[1] * x[4] + x[2] * x[5] >= 0.011
    };
    let text = std::fs::read_to_string(&input).unwrap();
    let mut checked = 0;
    for ((g, w), row) in got.iter().zip(&want).zip(text.lines().skip(1)) {
        if !nv_ok(row) {
            continue;
        }
        for (a, b) in g.iter().zip(w) {
            assert!(within_bound(*a, *b), "{row}: {g:?} vs f64 {w:?}");
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn every_pipe_runs_on_every_engine() {
    // One row per pipeline, in its header; rtl = model on each.
    let rows = [
        ("ggx", "0,0,1,0.6,0,0.8,0,0.6,0.8,0.3"),
        ("oren_nayar", "0,0,1,0.6,0,0.8,0,0.6,0.8,0.5"),
        ("oren_nayar_dir", "0,0,1,0.25,0.125"),
        ("schlick", "0.04,0.04,0.04,1,1,1,0.5"),
        ("sheen", "0,0,1,0.6,0,0.8,0,0.6,0.8,0.5"),
        ("subsurface", "0,0,1,0.6,0,0.8,0,0.6,0.8,0.5"),
        ("cel", "0,0,1,0,0.6,0.8"),
    ];
    for (pipe, row) in rows {
        let o = rendergen(&["shade", "eval", pipe, "--help"]);
        let help = stdout(&o);
        let header = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{pipe} ")))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .unwrap_or_else(|| panic!("{pipe} in --help: {help}"));
        let input = scratch(&format!("{pipe}.csv"));
        std::fs::write(&input, format!("{header}\n{row}\n")).unwrap();
        let rtl = run_engine(pipe, &input, "rtl");
        let model = run_engine(pipe, &input, "model");
        let f = run_engine(pipe, &input, "f64");
        for o in [&rtl, &model, &f] {
            assert!(o.status.success(), "{pipe}: {}", stderr(o));
        }
        assert_eq!(stdout(&rtl), stdout(&model), "{pipe}");
        assert_eq!(table(&stdout(&f)).len(), 1, "{pipe}");
    }
    // Cel with the reset table: N·L = 0.8 is in band 3 (value 1.0).
    let input = scratch("cel.csv");
    let o = run_engine("cel", &input, "model");
    assert_eq!(stdout(&o), "c\n1\n");
}

#[test]
fn output_file_is_written_whole() {
    let input = scratch("out_in.csv");
    std::fs::write(&input, "nx,ny,nz,xi1,xi2\n0,0,1,0,0\n0,0,1,0.5,0.25\n").unwrap();
    let out = scratch("out.csv");
    let o = rendergen(&[
        "shade",
        "eval",
        "oren_nayar_dir",
        "--inputs",
        input.to_str().unwrap(),
        "--engine",
        "model",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    // ξ1 = 0: L = N, pdf = 1/π (20861 units).
    assert_eq!(
        text.lines().nth(1).unwrap(),
        format!("0,0,1,{}", 20861.0 / 65536.0)
    );
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn input_errors_name_their_place_and_write_nothing() {
    let out = scratch("never.csv");
    let eval = |pipe: &str, input: &str, text: Option<&str>| {
        let path = scratch(input);
        if let Some(t) = text {
            std::fs::write(&path, t).unwrap();
        }
        rendergen(&[
            "shade",
            "eval",
            pipe,
            "--inputs",
            path.to_str().unwrap(),
            "--engine",
            "model",
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let cases: [(&str, &str, Option<&str>, &[&str]); 6] = [
        (
            "ggx",
            "header.csv",
            Some("nx,ny,nz,vx,vy,vz,lx,ly,lz,rough\n0,0,1,0,0,1,0,0,1,0.5\n"),
            &[
                ":1:",
                "nx,ny,nz,vx,vy,vz,lx,ly,lz,alpha",
                "found `nx,ny,nz,vx,vy,vz,lx,ly,lz,rough`",
            ],
        ),
        (
            "cel",
            "number.csv",
            Some("nx,ny,nz,lx,ly,lz\n0,0,1,0,0,1\n0,0,1,0,zero,1\n"),
            &[":3: column 5 (ly)", "`zero` is not a decimal number"],
        ),
        (
            "cel",
            "range.csv",
            Some("nx,ny,nz,lx,ly,lz\n0,0,1,0,0,40000\n"),
            &[":2: column 6 (lz)", "outside the Q16.16 range"],
        ),
        (
            "cel",
            "count.csv",
            Some("nx,ny,nz,lx,ly,lz\n0,0,1,0,0\n"),
            &[":2:", "6 values expected", "found 5"],
        ),
        (
            "ggx_direction",
            "unknown.csv",
            Some("x\n"),
            &[
                "unknown pipeline `ggx_direction`",
                "valid: ggx, ggx_dir, oren_nayar",
            ],
        ),
        ("ggx", "missing.csv", None, &["cannot read", "missing.csv"]),
    ];
    for (pipe, file, text, needles) in cases {
        let o = eval(pipe, file, text);
        assert_eq!(o.status.code(), Some(2), "{file}: {}", stderr(&o));
        for n in needles {
            assert!(
                stderr(&o).contains(n),
                "{file}: `{n}` not in {}",
                stderr(&o)
            );
        }
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        assert!(!out.exists(), "{file}: output written");
    }
}
