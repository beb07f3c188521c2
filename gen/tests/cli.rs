//! The `rendergen` binary as a user runs it: exit codes, bounds on input, progress, faults.

mod common;
use common::{rendergen, scratch_path, stderr};

use std::process::Command;

fn scratch(name: &str) -> std::path::PathBuf {
    scratch_path("cli", name)
}

/// `bench --cycles 2^64-1` used to run silently for ever: the count is bounded, the message
/// names the range.
#[test]
fn bench_cycles_are_bounded() {
    let o = rendergen(&["bench", "fifo", "--cycles", "18446744073709551615"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("1..=1000000000000"), "{}", stderr(&o));
    let o = rendergen(&["bench", "fifo", "--cycles", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Progress is off on a pipe by default and on with `--progress always` (plain lines).
#[test]
fn progress_is_shown_when_asked() {
    let quiet = rendergen(&["bench", "fifo", "--cycles", "100000"]);
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "");
    let o = rendergen(&[
        "--progress",
        "always",
        "bench",
        "fifo",
        "--cycles",
        "100000",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("simulating: started") && e.contains("simulating: done in"),
        "{e}"
    );
    let o = rendergen(&["--progress", "sometimes", "list"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A faulting program: a warning and exit 0 by default, exit 1 with `--fail-on-fault`, and the
/// JSON counts the fault by kind.
#[test]
fn faults_reach_the_exit_code_when_asked() {
    let program = scratch("randsel0.asm");
    std::fs::write(&program, "RANDSEL 0\nRAYSTOP\n").unwrap();
    let p = program.to_str().unwrap();
    let o = rendergen(&["sim", "pbru", "--rays", "4", "--program", p, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: rays ended by a fault: 4 (bad_control 4)"));
    let json = String::from_utf8_lossy(&o.stdout);
    assert!(json.contains("\"faults\":{\"total\":4,"), "{json}");
    let o = rendergen(&[
        "sim",
        "pbru",
        "--rays",
        "4",
        "--program",
        p,
        "--fail-on-fault",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--fail-on-fault"), "{}", stderr(&o));
}

/// 200,000 bad lines: 50 errors printed, the rest counted.
#[test]
fn assembler_errors_are_capped() {
    let src = scratch("bad.asm");
    std::fs::write(&src, "BOGUS 1\n".repeat(200_000)).unwrap();
    let out = scratch("bad.bin");
    let o = rendergen(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.lines().count() <= 53, "{} lines", e.lines().count());
    assert!(
        e.contains("… and 199950 more errors"),
        "{}",
        &e[e.len() - 100..]
    );
    assert!(!out.exists());
}

/// `--sm-target` with an unknown name lists the valid ones (exit 2).
#[test]
fn sm_target_lists_the_valid_pipelines() {
    let o = rendergen(&["sim", "pbru", "--sm-target", "phong"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("valid: astc_a, astc_dp, ggx"),
        "{}",
        stderr(&o)
    );
}

/// `list --long` and `list TOP` show each parameter with its default, range and meaning.
#[test]
fn list_long_shows_parameter_ranges() {
    let o = rendergen(&["list", "pbru"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("pbru — "), "{out}");
    assert!(
        out.contains("-p cores=4") && out.contains("an integer in 1..=8"),
        "{out}"
    );
    let o = rendergen(&["list", "--long"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("fifo — ") && out.contains("-p depth=16"),
        "{out}"
    );
    let o = rendergen(&["list", "nosuch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("fifo"), "{}", stderr(&o));
}

/// The iCE40 flow on both targets: a bitstream and a timing report; a top with more port bits
/// than the UP5K package has pins is refused with the numbers and a way out (`--wrap`), and a
/// design that does not fit is refused before place and route.
#[test]
fn fpga_flow_on_both_ice40_targets() {
    let dir = scratch("fpga");
    let out = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let hx = out("hx8k");
    let o = rendergen(&[
        "fpga",
        "fifo",
        "--target",
        "ice40-hx8k",
        "-o",
        &hx,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["clocks"][0]["fmax_mhz"].as_f64().unwrap() > 12.0, "{v}");
    assert!(v["logic_cells"]["used"].as_u64().unwrap() > 20, "{v}");
    assert_eq!(v["logic_cells"]["available"], 7680);
    assert!(std::fs::metadata(dir.join("hx8k/fifo.bin")).unwrap().len() > 1000);

    let up = out("up5k");
    // The default fifo has more port bits than the UP5K package has pins: wrapped, with a note;
    // with --wrap never it is refused with the numbers.
    let o = rendergen(&["fpga", "fifo", "--target", "ice40-up5k", "-o", &up]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("note: fifo has 77 I/O bits"), "{text}");
    let never = [
        "fpga",
        "fifo",
        "--target",
        "ice40-up5k",
        "-o",
        &up,
        "--wrap",
        "never",
    ];
    let o = rendergen(&never);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("77 I/O bits") && e.contains("39 user I/O pins") && e.contains("--wrap"),
        "{e}"
    );
    let o = rendergen(&[
        "fpga",
        "fifo",
        "--target",
        "ice40-up5k",
        "-o",
        &up,
        "--wrap",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("fifo_serial on iCE40UP5K-SG48")
            && text.contains("I/O pins            5 / 39"),
        "{text}"
    );
    assert!(dir.join("up5k/fifo_serial.bin").exists());

    let big = out("big");
    let o = rendergen(&[
        "fpga",
        "fifo",
        "-p",
        "width=64",
        "-p",
        "depth=16384",
        "--target",
        "ice40-up5k",
        "--wrap",
        "-o",
        &big,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("256 block RAMs of 30"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("big/fifo_serial.asc").exists(), "nothing placed");
    let o = rendergen(&["fpga", "fifo", "--target", "ice40-hx8k", "--freq", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `--vcd-scope` and `--vcd-window` cut a PBRU waveform down to one core and a few hundred
/// cycles; `--vcd` with an engine that cannot trace is refused.
#[test]
fn waveform_scope_and_window() {
    let full = scratch("full.vcd");
    let part = scratch("part.vcd");
    let o = rendergen(&[
        "sim",
        "pbru",
        "--rays",
        "32",
        "--vcd",
        full.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = part.to_str().unwrap();
    let args = [
        "sim",
        "pbru",
        "--rays",
        "32",
        "--vcd",
        p,
        "--vcd-scope",
        "core_0",
        "--vcd-window",
        "100:300",
    ];
    let o = rendergen(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&part).unwrap();
    assert!(text.contains("$scope module core_0 $end"), "core_0 kept");
    assert!(
        !text.contains("$scope module core_1 $end"),
        "core_1 left out"
    );
    let times: Vec<u64> = (text.lines().filter_map(|l| l.strip_prefix('#')))
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!((times[0], *times.last().unwrap()), (1000, 3005));
    let full_len = std::fs::metadata(&full).unwrap().len();
    assert!(
        full_len > 10 * text.len() as u64,
        "{full_len} vs {}",
        text.len()
    );
    // FST through vcd2fst: a much smaller file, which the converter reads back.
    let fst = scratch("part.fst");
    let f = fst.to_str().unwrap();
    let args = [
        "sim",
        "pbru",
        "--rays",
        "32",
        "--vcd",
        f,
        "--vcd-scope",
        "core_0",
    ];
    let o = rendergen(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&fst).unwrap();
    assert!(
        !bytes.is_empty() && !bytes.starts_with(b"$"),
        "an FST, not VCD text"
    );
    let back = scratch("back.vcd");
    let ok = Command::new("fst2vcd")
        .arg(&fst)
        .arg("-o")
        .arg(&back)
        .status()
        .unwrap();
    assert!(ok.success());
    assert!(std::fs::read_to_string(&back).unwrap().contains("core_0"));
    let o = rendergen(&["sim", "pbru", "--vcd", "x.txt"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = rendergen(&["bench", "fifo", "--engine", "verilator", "--vcd", p]);
    assert_eq!(o.status.code(), Some(2));
    let o = rendergen(&["sim", "pbru", "--vcd", p, "--vcd-window", "9:3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("after the last"), "{}", stderr(&o));
}

/// Usage errors exit 2 and name the valid range; failures of a command that ran exit 1.
#[test]
fn exit_codes_separate_usage_from_failure() {
    for args in [
        &["sim", "pbru", "--rays", "70000"][..],
        &["sim", "pbru", "--cores", "9"],
        &["sim", "pbru", "--sm-load", "2"],
        &["verilog", "fifo", "-p", "depth=3000000"],
        &["nosuch"],
    ] {
        let o = rendergen(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let o = rendergen(&["sim", "pbru", "--rays", "70000"]);
    assert!(stderr(&o).contains("1..=65536"), "{}", stderr(&o));
    let o = rendergen(&["astc", "decode", "/nonexistent.astc", "-o", "x.png"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// `synth --target ice40 --fmax` adds nextpnr's Fmax; `--fmax` needs the iCE40 target.
#[test]
fn synth_reports_fmax_on_ice40() {
    let o = rendergen(&["synth", "fifo", "--target", "ice40", "--fmax", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["fmax_mhz"].as_f64().unwrap() > 20.0, "{v}");
    assert!(v["ram_bits"].as_u64().unwrap() >= 4096, "{v}");
    let o = rendergen(&["synth", "fifo", "--fmax"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `shader asm` / `shader disasm`: the ISA.md example assembles, disassembles and reassembles
/// to the same words; errors name the line; a register beyond `--regs` is refused.
#[test]
fn shader_assembly_round_trips() {
    let src = scratch("ex.sasm");
    std::fs::write(
        &src,
        "movi r0, 0.5\nlane r1\ni2f r1, r1\nflt r2, r1, r0\nif r2\nfmuli r3, r1, 2.0\nelse\n\
         fadd r3, r1, r0\nendif\nexport 0, r3, 1\nend\n",
    )
    .unwrap();
    let bin = scratch("ex.bin");
    let o = rendergen(&[
        "shader",
        "asm",
        src.to_str().unwrap(),
        "-o",
        bin.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::metadata(&bin).unwrap().len(), 11 * 8);
    let o = rendergen(&["shader", "disasm", bin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = scratch("back.sasm");
    std::fs::write(&text, &o.stdout).unwrap();
    let bin2 = scratch("back.bin");
    let o = rendergen(&[
        "shader",
        "asm",
        text.to_str().unwrap(),
        "-o",
        bin2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&bin).unwrap(), std::fs::read(&bin2).unwrap());
    std::fs::write(&src, "movi r0, 1\nfadd r70, r0, r0\n").unwrap();
    let o = rendergen(&[
        "shader",
        "asm",
        src.to_str().unwrap(),
        "-o",
        bin2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
}

/// A recorded `sim pbru` stimulus replays on the interpreter in both evaluation modes and on
/// Verilator with one output hash (the engines agree on a real workload); a file that is not a
/// stimulus, or one recorded on another configuration, is refused naming the problem.
#[test]
fn recorded_stimulus_replays_on_every_engine() {
    let stim = scratch("tex.stim");
    let s = stim.to_str().unwrap();
    let rec = rendergen(&[
        "sim",
        "pbru",
        "--rays",
        "64",
        "--progress",
        "never",
        "--record-stimulus",
        s,
    ]);
    assert!(rec.status.success(), "{}", stderr(&rec));
    assert!(
        stderr(&rec).contains("Active evaluation"),
        "{}",
        stderr(&rec)
    );
    let hash = |engine: &str| {
        let o = rendergen(&[
            "bench", "pbru", "-p", "cores=1", "-p", "slots=1", "--replay", s, "--engine", engine,
            "--json",
        ]);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let h = out.split("\"output_hash\": \"").nth(1).unwrap()[..18].to_string();
        h
    };
    let full = hash("rust");
    assert_eq!(hash("rust-active"), full);
    assert_eq!(hash("verilator"), full);
    // Another configuration has other ports.
    let other = rendergen(&[
        "bench",
        "pbru",
        "-p",
        "cores=1",
        "-p",
        "slots=1",
        "-p",
        "sm_ports=2",
        "--replay",
        s,
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("words per cycle"),
        "{}",
        stderr(&other)
    );
    // Not a stimulus file.
    let bad = scratch("bad.stim");
    std::fs::write(&bad, b"hello").unwrap();
    let o = rendergen(&["bench", "pbru", "--replay", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a stimulus file"), "{}", stderr(&o));
}
