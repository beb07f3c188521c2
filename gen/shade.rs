//! `rendergen shade eval`: one shading pipeline (issue 11 §2, §5) evaluated on every row of a
//! CSV file, through its RTL in cycle-accurate simulation (one request per clock), its
//! bit-exact binary32 model, or the f64 reference.
//!
//! * **Input:** a header naming the pipeline's inputs in stack order ([`ShadePipe::inputs`], as
//!   `rtl/isa/ISA.md` documents them: `nx,ny,nz,vx,vy,vz,lx,ly,lz,alpha` for `ggx`), then one
//!   row of decimal numbers per request. Each number becomes a Q16.16 word, rounded to nearest
//!   (ties away from zero); a number outside the Q16.16 range is an error.
//! * **Output:** a header naming the result words ([`ShadePipe::outputs`]), then one row per
//!   request: Q16.16 words printed exactly as decimals (`rtl`, `model`), or the f64 values
//!   (`f64`, Rust's shortest round-trip form).
//! * **Errors** name the line and column (1-based) and never leave a half-written output
//!   ([`crate::output::write_output`]).

use rendergen_hdl::{Bits, Design, ElabErrors};
use rendergen_rtl::pbru::pipes::{cel, ggx, oren_nayar, schlick, sheen, subsurface};
use rendergen_sim::kit::{StreamSink, StreamSource, TbError, Watchdog};
use rendergen_sim::models::pbru::shading::{self, CelTable};
use rendergen_sim::models::pbru::shading_ref;
use rendergen_sim::Simulator;

/// One shading pipeline as `shade eval` runs it.
pub struct ShadePipe {
    /// The opcode's name in lower case (`ggx_dir`).
    pub name: &'static str,
    /// The opcode byte (`rtl/isa/ISA.md`).
    pub opcode: u8,
    /// Input columns, in stack order (the first pushed first).
    pub inputs: &'static [&'static str],
    /// Output columns, result word 0 first.
    pub outputs: &'static [&'static str],
    /// The stand-alone pipe (catalogue `pipe_<kind>`).
    pub top: fn() -> Result<Design, ElabErrors>,
    /// The bit-exact binary32 model.
    pub model: fn(&[u32]) -> Vec<u32>,
    /// The f64 reference.
    pub reference: fn(&[u32]) -> Vec<f64>,
}

const NVL_ALPHA: &[&str] = &[
    "nx", "ny", "nz", "vx", "vy", "vz", "lx", "ly", "lz", "alpha",
];
const NVL_ROUGH: &[&str] = &[
    "nx", "ny", "nz", "vx", "vy", "vz", "lx", "ly", "lz", "rough",
];
const DIRECTION: &[&str] = &["lx", "ly", "lz", "pdf"];

fn cel_reference(a: &[u32]) -> Vec<f64> {
    let t = CelTable::default().0;
    vec![shading_ref::cel(
        a,
        [t[0], t[1], t[2]],
        [t[3], t[4], t[5], t[6]],
    )]
}

/// Every pipeline `shade eval` knows, by name.
pub const PIPES: &[ShadePipe] = &[
    ShadePipe {
        name: "ggx",
        opcode: 0x40,
        inputs: NVL_ALPHA,
        outputs: &["f"],
        top: ggx::pipe_ggx_top,
        model: |a| vec![shading::ggx(a)],
        reference: |a| vec![shading_ref::ggx(a)],
    },
    ShadePipe {
        name: "ggx_dir",
        opcode: 0x50,
        inputs: &["nx", "ny", "nz", "vx", "vy", "vz", "alpha", "xi1", "xi2"],
        outputs: DIRECTION,
        top: ggx::pipe_ggx_top,
        model: |a| shading::ggx_dir(a).to_vec(),
        reference: |a| shading_ref::ggx_dir(a).to_vec(),
    },
    ShadePipe {
        name: "oren_nayar",
        opcode: 0x41,
        inputs: NVL_ROUGH,
        outputs: &["f"],
        top: oren_nayar::pipe_oren_nayar_top,
        model: |a| vec![shading::oren_nayar(a)],
        reference: |a| vec![shading_ref::oren_nayar(a)],
    },
    ShadePipe {
        name: "oren_nayar_dir",
        opcode: 0x51,
        inputs: &["nx", "ny", "nz", "xi1", "xi2"],
        outputs: DIRECTION,
        top: oren_nayar::pipe_oren_nayar_top,
        model: |a| shading::oren_nayar_dir(a).to_vec(),
        reference: |a| shading_ref::oren_nayar_dir(a).to_vec(),
    },
    ShadePipe {
        name: "schlick",
        opcode: 0x42,
        inputs: &["f0r", "f0g", "f0b", "f90r", "f90g", "f90b", "cos"],
        outputs: &["fr", "fg", "fb"],
        top: schlick::pipe_schlick_top,
        model: |a| shading::schlick(a).to_vec(),
        reference: |a| shading_ref::schlick(a).to_vec(),
    },
    ShadePipe {
        name: "sheen",
        opcode: 0x43,
        inputs: NVL_ROUGH,
        outputs: &["f"],
        top: sheen::pipe_sheen_top,
        model: |a| vec![shading::sheen(a)],
        reference: |a| vec![shading_ref::sheen(a)],
    },
    ShadePipe {
        name: "subsurface",
        opcode: 0x44,
        inputs: NVL_ROUGH,
        outputs: &["f"],
        top: subsurface::pipe_subsurface_top,
        model: |a| vec![shading::subsurface(a)],
        reference: |a| vec![shading_ref::subsurface(a)],
    },
    ShadePipe {
        name: "cel",
        opcode: 0x45,
        inputs: &["nx", "ny", "nz", "lx", "ly", "lz"],
        outputs: &["c"],
        top: cel::pipe_cel_top,
        model: |a| vec![shading::cel(a, &CelTable::default())],
        reference: cel_reference,
    },
];

/// The pipeline called `name`, or an error listing the valid names.
pub fn find(name: &str) -> Result<&'static ShadePipe, String> {
    PIPES.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PIPES.iter().map(|p| p.name).collect();
        format!("unknown pipeline `{name}`; valid: {}", names.join(", "))
    })
}

/// The Q16.16 word nearest `x` (ties away from zero), or `None` outside the Q16.16 range.
pub fn to_q16(x: f64) -> Option<u32> {
    let units = (x * 65536.0).round();
    (units.is_finite() && units >= i32::MIN as f64 && units <= i32::MAX as f64)
        .then_some(units as i32 as u32)
}

/// A Q16.16 word as its exact decimal (`-1.5`, `0.0000152587890625`, `3`).
pub fn q16_decimal(w: u32) -> String {
    let v = w as i32 as i64;
    let (sign, mag) = if v < 0 { ("-", -v) } else { ("", v) };
    let (int, frac) = (mag >> 16, mag & 0xFFFF);
    if frac == 0 {
        return format!("{sign}{int}");
    }
    // 2^-16 = 152587890625 · 10^-16 exactly.
    let digits = format!("{:016}", frac * 152_587_890_625);
    format!("{sign}{int}.{}", digits.trim_end_matches('0'))
}

/// Parses the CSV `text` for `pipe`: the rows of Q16.16 words. `file` names the input in
/// errors.
pub fn parse_inputs(pipe: &ShadePipe, file: &str, text: &str) -> Result<Vec<Vec<u32>>, String> {
    let mut lines = text.lines().enumerate();
    let want = pipe.inputs.join(",");
    let header = lines.next().map(|(_, l)| l).unwrap_or("");
    let got: Vec<&str> = header.split(',').map(str::trim).collect();
    if got != pipe.inputs {
        return Err(format!(
            "{file}:1: the header of `{}` is `{want}` (its inputs in stack order, rtl/isa/ISA.md); found `{}`",
            pipe.name,
            header.trim()
        ));
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != pipe.inputs.len() {
            return Err(format!(
                "{file}:{}: {} values expected ({want}), found {}",
                i + 1,
                pipe.inputs.len(),
                fields.len()
            ));
        }
        let row = (fields.iter().enumerate())
            .map(|(c, f)| {
                let at = format!("{file}:{}: column {} ({})", i + 1, c + 1, pipe.inputs[c]);
                let x: f64 = f
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite())
                    .ok_or_else(|| format!("{at}: `{f}` is not a decimal number"))?;
                to_q16(x).ok_or_else(|| {
                    format!("{at}: {f} is outside the Q16.16 range [-32768, 32767.9999847]")
                })
            })
            .collect::<Result<Vec<u32>, String>>()?;
        rows.push(row);
    }
    Ok(rows)
}

/// The output CSV of Q16.16 results.
pub fn format_words(pipe: &ShadePipe, results: &[Vec<u32>]) -> String {
    let mut s = pipe.outputs.join(",") + "\n";
    for r in results {
        let cols: Vec<String> = r.iter().map(|w| q16_decimal(*w)).collect();
        s += &(cols.join(",") + "\n");
    }
    s
}

/// The output CSV of f64 results.
pub fn format_f64(pipe: &ShadePipe, results: &[Vec<f64>]) -> String {
    let mut s = pipe.outputs.join(",") + "\n";
    for r in results {
        let cols: Vec<String> = r.iter().map(|x| format!("{x}")).collect();
        s += &(cols.join(",") + "\n");
    }
    s
}

/// Every row through the bit-exact model.
pub fn eval_model(pipe: &ShadePipe, rows: &[Vec<u32>]) -> Vec<Vec<u32>> {
    rows.iter().map(|a| (pipe.model)(a)).collect()
}

/// Every row through the f64 reference.
pub fn eval_f64(pipe: &ShadePipe, rows: &[Vec<u32>]) -> Vec<Vec<f64>> {
    rows.iter().map(|a| (pipe.reference)(a)).collect()
}

/// Packs argument words (word 0 in bits 31..0) into `width` bits.
fn pack(words: &[u32], width: u32) -> Bits {
    let w64: Vec<u64> = (words.chunks(2))
        .map(|p| p[0] as u64 | (p.get(1).copied().unwrap_or(0) as u64) << 32)
        .collect();
    Bits::from_words(&w64, width)
}

/// Every row through the pipe's RTL in cycle-accurate simulation, one request offered per
/// clock and the result always taken: the results (the pipe's first `outputs.len()` words,
/// in request order, checked by tag) and the cycles from reset to the last result.
pub fn eval_rtl(pipe: &ShadePipe, rows: &[Vec<u32>]) -> Result<(Vec<Vec<u32>>, u64), String> {
    let design = (pipe.top)().map_err(|e| e.to_string())?;
    let mut sim = Simulator::new(&design).map_err(|e| e.to_string())?;
    drive(pipe, &mut sim, rows).map_err(|e| format!("{} simulation: {e}", design.top().name))
}

fn drive(
    pipe: &ShadePipe,
    sim: &mut Simulator,
    rows: &[Vec<u32>],
) -> Result<(Vec<Vec<u32>>, u64), TbError> {
    let mut src = StreamSource::new(sim, "req", 1)?;
    let mut sink = StreamSink::new(sim, "resp", 2)?;
    let fields: Vec<String> = src.fields().iter().map(|s| s.to_string()).collect();
    let tag_width = 24;
    for (i, a) in rows.iter().enumerate() {
        let item = (fields.iter())
            .map(|f| match f.as_str() {
                "req_op" => Bits::from_u64(pipe.opcode as u64, 8),
                "req_imm" => Bits::from_u64(0, 8),
                "req_args" => pack(a, 320),
                _ => Bits::from_u64(i as u64 & ((1 << tag_width) - 1), tag_width),
            })
            .collect();
        src.send_bits(item)?;
    }
    let data_at = (sink.fields().iter())
        .position(|f| *f == "resp_data")
        .ok_or_else(|| TbError::new("the pipe has no resp_data port"))?;
    sim.reset(1);
    let dog = Watchdog::new(rows.len() as u64 + 1_000, 1);
    let cycles = dog.run_until(sim, "every result at `resp`", |sim| {
        src.drive(sim);
        sink.drive(sim);
        src.sample(sim);
        sink.sample(sim);
        sink.protocol_result()?;
        Ok(src.is_idle() && sink.items().len() == rows.len())
    })?;
    let results = (sink.items().iter().enumerate())
        .map(|(i, item)| {
            let tag = item[1 - data_at].to_u64();
            if tag != i as u64 & ((1 << tag_width) - 1) {
                return Err(TbError::new(format!(
                    "result {i} carries tag {tag}: out of order"
                )));
            }
            let data = item[data_at].words();
            Ok((0..pipe.outputs.len())
                .map(|k| (data[k / 2] >> (32 * (k % 2))) as u32)
                .collect())
        })
        .collect::<Result<Vec<Vec<u32>>, TbError>>()?;
    Ok((results, cycles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q16_decimals_are_exact() {
        assert_eq!(q16_decimal(0), "0");
        assert_eq!(q16_decimal(0x1_8000), "1.5");
        assert_eq!(q16_decimal((-0x1_8000i32) as u32), "-1.5");
        assert_eq!(q16_decimal(1), "0.0000152587890625");
        assert_eq!(q16_decimal(i32::MIN as u32), "-32768");
        assert_eq!(q16_decimal(i32::MAX as u32), "32767.9999847412109375");
        for w in [1u32, 20861, 0xFFFF_FFFF, 0x8000_0001, 12345678] {
            let back = to_q16(q16_decimal(w).parse().unwrap()).unwrap();
            assert_eq!(back, w);
        }
    }

    #[test]
    fn every_pipe_has_its_isa_arity() {
        for p in PIPES {
            let op = rendergen_isa::Opcode::from_byte(p.opcode).expect("an opcode");
            assert_eq!(op.pops() as usize, p.inputs.len(), "{}", p.name);
            assert_eq!(op.pushes() as usize, p.outputs.len(), "{}", p.name);
            assert_eq!(format!("{op:?}").to_lowercase(), p.name.replace('_', ""));
        }
    }
}
