use super::*;

fn sample() -> AstcFile {
    let fp = Footprint::parse("6x5").unwrap();
    let blocks = (0..6).map(|i| [i as u8; 16]).collect();
    AstcFile::new(fp, 13, 9, blocks)
}

#[test]
fn round_trip() {
    let f = sample();
    assert_eq!((f.blocks_x(), f.blocks_y()), (3, 2));
    let parsed = AstcFile::parse(&f.to_bytes()).unwrap();
    assert_eq!(parsed, f);
    assert_eq!(parsed.block(2, 1), &[5u8; 16]);
}

#[test]
fn errors_name_the_problem() {
    let good = sample().to_bytes();
    let err = |bytes: &[u8]| AstcFile::parse(bytes).unwrap_err().to_string();

    assert!(err(&good[..10]).contains("10 bytes"));
    let mut b = good.clone();
    b[0] = 0x12;
    assert!(err(&b).contains("0x5CA1AB12"), "{}", err(&b));
    let e = err(&good[..good.len() - 1]);
    assert!(e.contains("expected 112") && e.contains("found 111"), "{e}");
    let mut b = good.clone();
    b.push(0);
    assert!(err(&b).contains("trailing"));
    // As astcenc does, the lenient reading ignores them and says how many there were.
    b.extend_from_slice(&[1, 2]);
    let (file, extra) = AstcFile::parse_lenient(&b).unwrap();
    assert_eq!((file, extra), (sample(), 3));
    assert_eq!(AstcFile::parse_lenient(&good).unwrap().1, 0);
    assert!(AstcFile::parse_lenient(&good[..good.len() - 1]).is_err());
    let mut b = good.clone();
    b[6] = 4;
    assert!(err(&b).contains("3D block footprint 6x5x4"));
    let mut b = good.clone();
    b[4] = 7;
    assert!(err(&b).contains("2D block footprint 7x5"));
    let mut b = good.clone();
    b[7..10].copy_from_slice(&[0, 0, 0]);
    assert!(err(&b).contains("zero"));
    let mut b = good.clone();
    b[7..10].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    assert!(err(&b).contains("unsupported image size 16777215x9x1"));
    let mut b = good;
    b[13] = 2;
    assert!(err(&b).contains("unsupported image size"));
}

#[test]
fn footprints_parse() {
    assert_eq!(Footprint::ALL.len(), 14);
    for fp in Footprint::ALL {
        assert_eq!(Footprint::parse(&fp.to_string()), Some(fp));
    }
    assert_eq!(Footprint::parse("7x7"), None);
    assert_eq!(Footprint::parse("4x4x4"), None);
}
