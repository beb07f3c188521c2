//! What the compiler hands on: assembly that round-trips through `rendergen_isa::asm`, the
//! `OUT.bin` container, the cel table's set-up requests and texture bindings.

mod common;
use common::*;
use rendergen_isa::{asm::assemble, disasm::disassemble};
use rendergen_mtlx_compiler::{compile, Container, Options};
use rendergen_sim::models::pbru::shading::{cel, cel_request, CelTable};

const EXAMPLES: [&str; 8] = [
    "rough_diffuse.mtlx",
    "glossy.mtlx",
    "sheen_cloth.mtlx",
    "subsurface.mtlx",
    "cel.mtlx",
    "textured.mtlx",
    "nodegraph.mtlx",
    "mix_add.mtlx",
];

#[test]
fn assembly_round_trips() {
    for name in EXAMPLES {
        let c = compile_example(name);
        for p in [&c.shading, &c.sampling] {
            assert_eq!(assemble(&p.asm).unwrap(), p.code, "{name}");
            let again = assemble(&disassemble(&p.code, 0)).unwrap();
            assert_eq!(again, p.code, "{name}: the disassembly assembles back");
        }
        // The listing (both programs) is valid assembly too.
        assert!(assemble(&c.listing()).is_ok(), "{name}");
    }
}

#[test]
fn container_round_trips() {
    for name in EXAMPLES {
        let c = compile_example(name);
        let bytes = c.container().to_bytes();
        assert_eq!(&bytes[0..4], b"RGMX");
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1);
        let back = Container::from_bytes(&bytes).unwrap();
        assert_eq!(back, c.container(), "{name}");
        assert_eq!(back.shading_inputs as usize, 12 + c.textures.len());
        assert_eq!(back.sampling_inputs as usize, 11 + c.textures.len());
        assert_eq!(back.lobes as usize, c.lobes.len());
    }
    assert!(Container::from_bytes(b"nope").is_err());
    let mut b = compile_example("cel.mtlx").container().to_bytes();
    b.truncate(b.len() - 12);
    assert!(Container::from_bytes(&b).is_err());
}

#[test]
fn textures_are_bound_with_their_blocks() {
    let c = compile_example("textured.mtlx");
    let t = &c.container().textures[0];
    assert_eq!(
        (t.width, t.height, t.format, t.profile),
        (16, 16, 4 | 4 << 4 | 1 << 8, 0)
    );
    let file = std::fs::read(example("checker.astc")).unwrap();
    let blocks: Vec<u8> = t.blocks.iter().flatten().copied().collect();
    assert_eq!(blocks, file[16..]);
    // A .png goes through astcenc first (4x4 blocks).
    let png = std::fs::read_to_string(example("textured.mtlx"))
        .unwrap()
        .replace("checker.astc", "checker.png");
    let opts = Options {
        dir: example(""),
        ..Options::default()
    };
    let c = compile(&png, &opts).unwrap();
    assert_eq!((c.textures[0].width, c.textures[0].blocks.len()), (16, 16));
}

#[test]
fn cel_table_is_seven_sm_writes() {
    let c = compile_example("cel.mtlx");
    let reset = [0, 0x4CCD, 0xB333, 0, 0x4CCD, 0xB333, 0x1_0000];
    assert_eq!(c.setup.len(), 7);
    for (e, r) in c.setup.iter().enumerate() {
        assert_eq!((r.opcode, r.imm, r.arg), (0x45, 0x80 | e as u8, reset[e]));
    }
    assert!(compile_example("glossy.mtlx").setup.is_empty());
    // A custom table, written through the cel pipeline's model of the SM request, gives the
    // bands the f64 table gives.
    let text = doc(
        r#"<cel_bsdf name="toon" type="BSDF">
<input name="threshold1" type="float" value="0.1"/>
<input name="threshold2" type="float" value="0.5"/>
<input name="threshold3" type="float" value="0.8"/>
<input name="value0" type="float" value="0.05"/>
<input name="value1" type="float" value="0.4"/>
<input name="value2" type="float" value="0.6"/>
<input name="value3" type="float" value="0.95"/>
</cel_bsdf>"#,
        "toon",
    );
    let c = compile(&text, &Options::default()).unwrap();
    let mut table = CelTable::default();
    for r in &c.setup {
        assert_eq!(cel_request(u32::from(r.imm), &[r.arg], &mut table), r.arg);
    }
    let mut rng = Rng(31);
    for _ in 0..500 {
        let (n, _, l, w) = geometry(&mut rng);
        let nl = dot(n, l);
        if [0.1, 0.5, 0.8].iter().any(|t| (nl - t).abs() < 1e-4) {
            continue;
        }
        let band = [0.1, 0.5, 0.8].iter().filter(|&&t| t <= nl).count();
        let want = [0.05, 0.4, 0.6, 0.95][band];
        let args = [w[0], w[1], w[2], w[6], w[7], w[8]];
        assert_eq!(cel(&args, &table), q(want), "N·L {nl}");
    }
}

#[test]
fn warnings_name_what_is_ignored() {
    let text = doc(
        r#"<oren_nayar_diffuse_bsdf name="d" type="BSDF">
<input name="energy_compensation" type="boolean" value="true"/>
</oren_nayar_diffuse_bsdf>"#,
        "d",
    );
    let c = compile(&text, &Options::default()).unwrap();
    assert_eq!(c.warnings, ["line 3: energy_compensation ignored"]);
}

#[test]
fn nodegraph_interface_gives_an_image_its_file() {
    let text = format!(
        r#"<?xml version="1.0"?>
<materialx version="1.39">
<nodegraph name="NG">
<input name="file" type="filename" value="{}"/>
<input name="tiling" type="vector2" value="3, 3"/>
<image name="img" type="color3">
<input name="file" type="filename" interfacename="file"/>
<input name="uv_scale" type="vector2" interfacename="tiling"/>
</image>
<output name="base" type="color3" nodename="img"/>
</nodegraph>
<sheen_bsdf name="s" type="BSDF"><input name="color" type="color3" nodegraph="NG" output="base"/></sheen_bsdf>
<surface name="surface" type="surfaceshader"><input name="bsdf" type="BSDF" nodename="s"/></surface>
<surfacematerial name="M" type="material"><input name="surfaceshader" type="surfaceshader" nodename="surface"/></surfacematerial>
</materialx>"#,
        example("checker.astc").display()
    );
    let c = compile(&text, &Options::default()).unwrap();
    assert_eq!(c.textures.len(), 1);
    assert!(
        c.shading.asm.contains("PUSH 196608"),
        "uv_scale 3 from the interface"
    );
    let missing = text.replace("interfacename=\"file\"", "interfacename=\"nofile\"");
    let e = compile(&missing, &Options::default()).unwrap_err();
    assert_eq!(e.line, 7, "{e}");
    assert!(e.message.contains("interface input `nofile`"), "{e}");
}
