//! HDR colour endpoint modes 2, 3, 7, 11, 14 and 15 (spec C.2.15).
//! Results are 12-bit pseudo-logarithmic values; 0x780 is 1.0.

use super::endpoints::Endpoints;

const ONE: i32 = 0x780;

fn hdr_rgb(e0: [i32; 3], e1: [i32; 3]) -> Endpoints {
    Endpoints {
        e0: [e0[0], e0[1], e0[2], ONE],
        e1: [e1[0], e1[1], e1[2], ONE],
        hdr: [true; 4],
    }
}

/// Decodes HDR endpoint mode `cem` (2, 3, 7, 11, 14, 15) from unquantised values `v`.
pub fn decode(cem: u32, v: &[i32]) -> Endpoints {
    match cem {
        2 => {
            let (y0, y1) = if v[1] >= v[0] {
                (v[0] << 4, v[1] << 4)
            } else {
                ((v[1] << 4) + 8, (v[0] << 4) - 8)
            };
            hdr_rgb([y0; 3], [y1; 3])
        }
        3 => {
            let (y0, d) = if v[0] & 0x80 != 0 {
                (
                    ((v[1] & 0xE0) << 4) | ((v[0] & 0x7F) << 2),
                    (v[1] & 0x1F) << 2,
                )
            } else {
                (
                    ((v[1] & 0xF0) << 4) | ((v[0] & 0x7F) << 1),
                    (v[1] & 0x0F) << 1,
                )
            };
            let y1 = (y0 + d).min(0xFFF);
            hdr_rgb([y0; 3], [y1; 3])
        }
        7 => mode7(v),
        11 => mode11(v),
        14 => {
            let mut e = mode11(v);
            e.e0[3] = v[6];
            e.e1[3] = v[7];
            e.hdr[3] = false;
            e
        }
        15 => {
            let mut e = mode11(v);
            let (a0, a1) = alpha15(v[6], v[7]);
            e.e0[3] = a0;
            e.e1[3] = a1;
            e
        }
        _ => unreachable!("not an HDR endpoint mode: {cem}"),
    }
}

fn mode7(v: &[i32]) -> Endpoints {
    let modeval = ((v[0] & 0xC0) >> 6) | ((v[1] & 0x80) >> 5) | ((v[2] & 0x80) >> 4);
    let (majcomp, mode) = if modeval & 0xC != 0xC {
        (modeval >> 2, modeval & 3)
    } else if modeval != 0xF {
        (modeval & 3, 4)
    } else {
        (0, 5)
    };
    let mut red = v[0] & 0x3F;
    let mut green = v[1] & 0x1F;
    let mut blue = v[2] & 0x1F;
    let mut scale = v[3] & 0x1F;
    let x = |val: i32, b: i32| (val >> b) & 1;
    let (x0, x1, x2, x3) = (x(v[1], 6), x(v[1], 5), x(v[2], 6), x(v[2], 5));
    let (x4, x5, x6) = (x(v[3], 7), x(v[3], 6), x(v[3], 5));
    let ohm = 1 << mode;
    let on = |mask: i32| ohm & mask != 0;
    if on(0x30) {
        green |= x0 << 6;
        blue |= x2 << 6;
    }
    if on(0x3A) {
        green |= x1 << 5;
        blue |= x3 << 5;
    }
    if on(0x3D) {
        scale |= x6 << 5;
    }
    if on(0x2D) {
        scale |= x5 << 6;
    }
    if on(0x04) {
        scale |= x4 << 7;
        red |= x3 << 6;
    }
    if on(0x3B) {
        red |= x4 << 6;
    }
    if on(0x10) {
        red |= x5 << 7;
    }
    if on(0x0F) {
        red |= x2 << 7;
    }
    if on(0x05) {
        red |= (x1 << 8) | (x0 << 9);
    }
    if on(0x0A) {
        red |= x0 << 8;
    }
    if on(0x02) {
        red |= (x6 << 9) | (x5 << 10);
    }
    if on(0x01) {
        red |= x3 << 10;
    }
    let shamt = [1, 1, 2, 3, 4, 5][mode as usize];
    red <<= shamt;
    green <<= shamt;
    blue <<= shamt;
    scale <<= shamt;
    if mode != 5 {
        green = red - green;
        blue = red - blue;
    }
    let mut c = [red, green, blue];
    if majcomp == 1 {
        c.swap(0, 1);
    } else if majcomp == 2 {
        c.swap(0, 2);
    }
    let e1 = c.map(|x| x.clamp(0, 0xFFF));
    let e0 = c.map(|x| (x - scale).clamp(0, 0xFFF));
    hdr_rgb(e0, e1)
}

fn mode11(v: &[i32]) -> Endpoints {
    let majcomp = ((v[4] & 0x80) >> 7) | ((v[5] & 0x80) >> 6);
    if majcomp == 3 {
        return hdr_rgb(
            [v[0] << 4, v[2] << 4, (v[4] & 0x7F) << 5],
            [v[1] << 4, v[3] << 4, (v[5] & 0x7F) << 5],
        );
    }
    let mode = ((v[1] & 0x80) >> 7) | ((v[2] & 0x80) >> 6) | ((v[3] & 0x80) >> 5);
    let mut va = v[0] | ((v[1] & 0x40) << 2);
    let mut vb0 = v[2] & 0x3F;
    let mut vb1 = v[3] & 0x3F;
    let mut vc = v[1] & 0x3F;
    let dbits = [7, 6, 7, 6, 5, 6, 5, 6][mode as usize];
    let sext = |x: i32| {
        let x = x & ((1 << dbits) - 1);
        if x & (1 << (dbits - 1)) != 0 {
            x - (1 << dbits)
        } else {
            x
        }
    };
    let mut vd0 = sext(v[4] & 0x7F);
    let mut vd1 = sext(v[5] & 0x7F);
    let x = |val: i32, b: i32| (val >> b) & 1;
    let (x0, x1, x2, x3, x4, x5) = (
        x(v[2], 6),
        x(v[3], 6),
        x(v[4], 6),
        x(v[5], 6),
        x(v[4], 5),
        x(v[5], 5),
    );
    let ohm = 1 << mode;
    let on = |mask: i32| ohm & mask != 0;
    if on(0xA4) {
        va |= x0 << 9;
    }
    if on(0x08) {
        va |= x2 << 9;
    }
    if on(0x50) {
        va |= (x4 << 9) | (x5 << 10);
    }
    if on(0xA0) {
        va |= x1 << 10;
    }
    if on(0xC0) {
        va |= x2 << 11;
    }
    if on(0x04) {
        vc |= x1 << 6;
    }
    if on(0xE8) {
        vc |= x3 << 6;
    }
    if on(0x20) {
        vc |= x2 << 7;
    }
    if on(0x5B) {
        vb0 |= x0 << 6;
        vb1 |= x1 << 6;
    }
    if on(0x12) {
        vb0 |= x2 << 7;
        vb1 |= x3 << 7;
    }
    let shamt = (mode >> 1) ^ 3;
    va <<= shamt;
    vb0 <<= shamt;
    vb1 <<= shamt;
    vc <<= shamt;
    vd0 <<= shamt;
    vd1 <<= shamt;
    let mut e1 = [va, va - vb0, va - vb1].map(|x| x.clamp(0, 0xFFF));
    let mut e0 = [va - vc, va - vb0 - vc - vd0, va - vb1 - vc - vd1].map(|x| x.clamp(0, 0xFFF));
    if majcomp == 1 {
        e0.swap(0, 1);
        e1.swap(0, 1);
    } else if majcomp == 2 {
        e0.swap(0, 2);
        e1.swap(0, 2);
    }
    hdr_rgb(e0, e1)
}

fn alpha15(v6: i32, v7: i32) -> (i32, i32) {
    let mode = ((v6 >> 7) & 1) | ((v7 >> 6) & 2);
    let (mut a, mut b) = (v6 & 0x7F, v7 & 0x7F);
    if mode == 3 {
        return (a << 5, b << 5);
    }
    a |= (b << (mode + 1)) & 0x780;
    b &= 0x3F >> mode;
    b ^= 0x20 >> mode;
    b -= 0x20 >> mode;
    a <<= 4 - mode;
    b <<= 4 - mode;
    b = (b + a).clamp(0, 0xFFF);
    (a, b)
}
