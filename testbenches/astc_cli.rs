//! `rendergen astc decode` end to end: an astcenc-compressed image decoded through the ASTC_DP
//! RTL (cycle-accurate) and through the reference model, written as PNG (LDR) or KTX (HDR), and
//! compared byte for byte with the file `astcenc -dl` / `-ds` / `-dh` writes.

use crate::astc_model::astcenc::{self, Scratch};
use crate::astc_model::images;
use rendergen_gen::astc::{decode_model, decode_rtl, read_png, write_ktx, write_png};
use rendergen_sim::models::astc::{Footprint, Profile};
use rendergen_sim::models::ktx;

const FOOTPRINTS: [&str; 4] = ["4x4", "6x6", "10x5", "12x12"];

fn check(profile: Profile) {
    let scratch = Scratch::new(&format!("cli-{profile}"));
    let source = images::source(profile);
    for fp in FOOTPRINTS {
        let footprint = Footprint::parse(fp).unwrap();
        let file = astcenc::compress(&scratch, fp, &source, footprint, profile, "-medium");
        let input = scratch.path(&format!("{fp}.astc"));
        file.write(&input).unwrap();
        let rtl = decode_rtl(&file, profile, &mut |_, _| {}).unwrap();
        let model = decode_model(&file, profile, &mut |_, _| {});
        assert_eq!(rtl.texels.len(), model.texels.len());
        if let Some(i) = (0..rtl.texels.len()).find(|i| rtl.texels[*i] != model.texels[*i]) {
            let (x, y) = (i as u32 % file.width, i as u32 / file.width);
            panic!(
                "{fp} {profile}: texel ({x},{y}) RTL {:?} model {:?}",
                rtl.texels[i], model.texels[i]
            );
        }
        let cycles = rtl.cycles.unwrap();
        assert!(
            cycles < rtl.texels.len() as u64 + 20,
            "{fp}: {cycles} cycles for {} texels",
            rtl.texels.len()
        );

        let (ours, theirs) = if profile == Profile::Hdr {
            (
                scratch.path(&format!("{fp}-ours.ktx")),
                scratch.path(&format!("{fp}-astcenc.ktx")),
            )
        } else {
            (
                scratch.path(&format!("{fp}-ours.png")),
                scratch.path(&format!("{fp}-astcenc.png")),
            )
        };
        astcenc::run(&[
            profile.astcenc_decode_flag().as_ref(),
            input.as_os_str(),
            theirs.as_os_str(),
        ]);
        if profile == Profile::Hdr {
            write_ktx(&ours, file.width, file.height, &rtl.texels).unwrap();
            let a = ktx::read(&std::fs::read(&ours).unwrap()).unwrap();
            let b = ktx::read(&std::fs::read(&theirs).unwrap()).unwrap();
            assert!(a.half && b.half, "{fp}: both KTX files hold half-floats");
            if let Some(i) = (0..a.data.len()).find(|i| a.data[*i] != b.data[*i]) {
                panic!(
                    "{fp} hdr: channel {} of texel {}: ours {:#06x}, astcenc {:#06x}",
                    i % 4,
                    i / 4,
                    a.data[i],
                    b.data[i]
                );
            }
        } else {
            write_png(&ours, file.width, file.height, &rtl.texels).unwrap();
            let (wa, ha, a) = read_png(&ours).unwrap();
            let (wb, hb, b) = read_png(&theirs).unwrap();
            assert_eq!((wa, ha), (wb, hb), "{fp}: image size");
            if let Some(i) = (0..a.len()).find(|i| a[*i] != b[*i]) {
                let t = i as u32 / 4;
                panic!(
                    "{fp} {profile}: pixel ({},{}) channel {}: ours {}, astcenc {}",
                    t % wa,
                    t / wa,
                    i % 4,
                    a[i],
                    b[i]
                );
            }
        }
    }
}

#[test]
fn decode_ldr_linear_png_equals_astcenc() {
    check(Profile::LdrLinear);
}

#[test]
fn decode_ldr_srgb_png_equals_astcenc() {
    check(Profile::LdrSrgb);
}

#[test]
fn decode_hdr_ktx_equals_astcenc() {
    check(Profile::Hdr);
}

/// `-o x.ktx` with an LDR profile writes an RGBA8 KTX (it used to write a PNG under that name)
/// equal in texels to what `astcenc -dl` writes to a `.ktx`; the format follows the extension,
/// and what cannot hold the result is refused before decoding.
#[test]
fn output_format_follows_the_extension() {
    use rendergen_gen::astc::{decode_into, decode_model_rows, ImageFormat};
    let scratch = Scratch::new("cli-ktx8");
    let fp = Footprint::parse("6x6").unwrap();
    let file = astcenc::compress(
        &scratch,
        "k",
        &images::source(Profile::LdrLinear),
        fp,
        Profile::LdrLinear,
        "-fast",
    );
    let ours = scratch.path("ours.ktx");
    let format = ImageFormat::for_path(&ours, Profile::LdrLinear).unwrap();
    assert_eq!(format, ImageFormat::Ktx8);
    decode_into(&ours, (file.width, file.height), format, |sink| {
        decode_model_rows(&file, Profile::LdrLinear, sink)
    })
    .unwrap();
    let a = ktx::read(&std::fs::read(&ours).unwrap()).unwrap();
    let b = astcenc::decompress(&scratch, "k", &file, Profile::LdrLinear);
    assert!(!a.half && !b.half, "both 8-bit");
    assert_eq!((a.width, a.height), (b.width, b.height));
    assert_eq!(a.data, b.data, "texels differ from astcenc -dl");

    let png = std::path::Path::new("x.png");
    assert_eq!(
        ImageFormat::for_path(png, Profile::LdrSrgb),
        Ok(ImageFormat::Png)
    );
    let e = ImageFormat::for_path(png, Profile::Hdr).unwrap_err();
    assert!(e.contains("write a .ktx"), "{e}");
    let e = ImageFormat::for_path(std::path::Path::new("x.bmp"), Profile::LdrLinear).unwrap_err();
    assert!(e.contains(".png") && e.contains(".ktx"), "{e}");
    // KTX 1.0 cannot hold a 65536x65536 half-float image: refused before anything is written.
    let big = scratch.path("big.ktx");
    let e = decode_into(&big, (65536, 65536), ImageFormat::Ktx16, |_| Ok(())).unwrap_err();
    assert!(e.contains("32 bits"), "{e}");
    assert!(!big.exists());
}
