//! The model against independent f64 evaluations: coverage (edge functions and the top-left
//! rule evaluated in f64 from the vertices), depth (barycentric interpolation in f64), a mesh
//! of triangles sharing edges (every sample covered exactly once), blending (exact rational
//! arithmetic), barycentrics (f64 perspective correction).
use super::buffer::{blend_rgba8, div255, BlendOp, BlendState, Factor};
use super::raster::{barycentrics, depth_at, edge_f32, quad, rasterise};
use super::setup::{setup, CompareOp, CullMode, FrontFace, RasterState, Reject, Vertex};
use super::{lane_position, PIXEL, QUADS, TILE};
use crate::kit::Rng;

/// Random vertices around tile `tile` (offsets within 8, 24 or 400 pixels).
fn random_triangle(rng: &mut Rng, tile: (u32, u32)) -> [Vertex; 3] {
    super::setup::random_triangle(rng, tile, [8 * PIXEL, 24 * PIXEL, 400 * PIXEL])
}

/// Inside test in f64 straight from the vertices (no setup record): the orientation, the
/// edge functions and the top-left classification are recomputed here.
fn inside_f64(v: &[Vertex; 3], x: f64, y: f64) -> bool {
    let p: Vec<(f64, f64)> = v.iter().map(|p| (p.x as f64, p.y as f64)).collect();
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
    (0..3).all(|i| {
        let (s, e) = (p[(i + 1) % 3], p[(i + 2) % 3]);
        // Cross product of the edge direction with the point, oriented so the inside is positive.
        let w = ((e.0 - s.0) * (y - s.1) - (e.1 - s.1) * (x - s.0)) * area.signum();
        let (dx, dy) = ((e.0 - s.0) * area.signum(), (e.1 - s.1) * area.signum());
        // With the inside positive, a left edge runs upwards on screen (dy < 0) and a top
        // edge runs horizontally towards +x.
        let top_left = dy < 0.0 || (dy == 0.0 && dx > 0.0);
        w > 0.0 || (w == 0.0 && top_left)
    })
}

#[test]
fn coverage_and_depth_match_f64() {
    let mut rng = Rng::new(0x7117);
    let tile = (1, 2);
    let mut covered = 0;
    for n in 0..400 {
        let v = random_triangle(&mut rng, tile);
        let samples = [1, 4][n % 2];
        let state = RasterState::default();
        let Ok(t) = setup(&v, tile, &state, n as u32) else {
            continue;
        };
        for qy in 0..QUADS {
            for qx in 0..QUADS {
                let q = quad(&t, qx, qy, samples);
                for lane in 0..4 * samples {
                    let (x, y) = lane_position(qx, qy, lane, samples);
                    let (sx, sy) = ((x + 16 * PIXEL) as f64, (y + 32 * PIXEL) as f64);
                    let want = inside_f64(&v, sx, sy);
                    assert_eq!(
                        q.coverage >> lane & 1 == 1,
                        want,
                        "tri {n} {v:?} quad {qx},{qy} lane {lane}"
                    );
                    if want {
                        covered += 1;
                        let inb = [qx, qy] >= [t.bbox[0], t.bbox[1]]
                            && qx <= t.bbox[2]
                            && qy <= t.bbox[3];
                        assert!(inb, "covered sample outside the bounding box");
                        // f64 barycentric interpolation of depth.
                        let p: Vec<(f64, f64)> =
                            v.iter().map(|p| (p.x as f64, p.y as f64)).collect();
                        let e = |i: usize| {
                            let (s, f) = (p[(i + 1) % 3], p[(i + 2) % 3]);
                            (f.0 - s.0) * (sy - s.1) - (f.1 - s.1) * (sx - s.0)
                        };
                        let sum = e(0) + e(1) + e(2);
                        let z: f64 = (0..3).map(|i| e(i) / sum * v[i].z as f64).sum();
                        let got = depth_at(&t, x, y) as f64;
                        assert!((got - z).abs() <= 1.0, "depth {got} vs {z}");
                    }
                }
            }
        }
    }
    assert!(covered > 10_000, "only {covered} covered samples");
}

#[test]
fn shared_edges_cover_every_sample_once() {
    // A 5×5 grid of jittered points over the tile (and beyond), split into triangles both ways.
    let mut rng = Rng::new(0x5eed);
    for samples in [1, 4] {
        for round in 0..20 {
            let n = 5;
            let step = 5 * PIXEL;
            let pts: Vec<Vec<(i64, i64)>> = (0..n)
                .map(|j| {
                    (0..n)
                        .map(|i| {
                            let edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
                            let jit = |r: &mut Rng| {
                                if edge {
                                    0
                                } else {
                                    r.below(2 * PIXEL as u64) as i64 - PIXEL
                                }
                            };
                            let snap = if round % 2 == 0 { !0 } else { !(PIXEL / 2 - 1) };
                            (
                                (i as i64 * step - 2 * PIXEL + jit(&mut rng)) & snap,
                                (j as i64 * step - 2 * PIXEL + jit(&mut rng)) & snap,
                            )
                        })
                        .collect()
                })
                .collect();
            let mut hits = vec![0u32; (TILE * TILE) as usize * samples as usize];
            let vert = |(x, y): (i64, i64)| Vertex {
                x,
                y,
                z: 0,
                rw: 1.0,
            };
            for j in 0..n - 1 {
                for i in 0..n - 1 {
                    let (a, b, c, d) = (pts[j][i], pts[j][i + 1], pts[j + 1][i], pts[j + 1][i + 1]);
                    let tris = match (i + j + round) % 2 {
                        0 => [[a, b, d], [a, d, c]],
                        _ => [[a, b, c], [b, d, c]],
                    };
                    for tri in tris {
                        let v = tri.map(vert);
                        let Ok(t) = setup(&v, (0, 0), &RasterState::default(), 0) else {
                            continue;
                        };
                        for q in rasterise(&t, samples) {
                            for lane in 0..4 * samples {
                                if q.coverage >> lane & 1 == 1 {
                                    let (x, y) = lane_position(q.qx, q.qy, lane, samples);
                                    let idx = ((y / PIXEL) * TILE + x / PIXEL) as usize
                                        * samples as usize
                                        + (lane % samples) as usize;
                                    hits[idx] += 1;
                                }
                            }
                        }
                    }
                }
            }
            // The grid spans −2..18 pixels, so it covers the whole tile.
            assert!(
                hits.iter().all(|&h| h == 1),
                "samples {samples} round {round}: {hits:?}"
            );
        }
    }
}

#[test]
fn setup_rejects_and_culls() {
    let v = |x: i64, y: i64| Vertex {
        x: x * PIXEL,
        y: y * PIXEL,
        z: 0,
        rw: 1.0,
    };
    let st = RasterState::default();
    assert_eq!(
        setup(&[v(0, 0), v(4, 4), v(8, 8)], (0, 0), &st, 0),
        Err(Reject::Degenerate)
    );
    assert_eq!(
        setup(&[v(40, 0), v(44, 4), v(40, 8)], (0, 0), &st, 0),
        Err(Reject::OffTile)
    );
    assert_eq!(
        setup(&[v(0, 0), v(9000, 4), v(0, 8)], (0, 0), &st, 0),
        Err(Reject::OutOfRange)
    );
    // (0,0) → (0,8) → (8,0) runs counter-clockwise as seen on a y-down screen: its shoelace
    // sum is negative, Vulkan's area −sum/2 positive, so it is front-facing for CCW.
    let ccw = [v(0, 0), v(0, 8), v(8, 0)];
    let cw = [v(0, 0), v(8, 0), v(0, 8)];
    let back = RasterState {
        cull: CullMode::Back,
        ..st
    };
    assert!(setup(&ccw, (0, 0), &back, 0).unwrap().front);
    assert_eq!(setup(&cw, (0, 0), &back, 0), Err(Reject::Culled));
    let cw_front = RasterState {
        front_face: FrontFace::Clockwise,
        ..back
    };
    assert!(setup(&cw, (0, 0), &cw_front, 0).is_ok());
    // Both windings cover the same samples when not culled.
    let (a, b) = (
        setup(&ccw, (0, 0), &st, 0).unwrap(),
        setup(&cw, (0, 0), &st, 0).unwrap(),
    );
    let cov = |t| {
        rasterise(&t, 4)
            .iter()
            .map(|q| (q.qx, q.qy, q.coverage))
            .collect::<Vec<_>>()
    };
    assert_eq!(cov(a), cov(b));
    for op in CompareOp::ALL {
        assert_eq!(
            op.test(3, 5),
            [false, true, false, true, false, true, false, true][op as usize]
        );
    }
}

#[test]
fn div255_is_exact_and_blending_matches_rationals() {
    for x in 0..=255 * 255 {
        assert_eq!(div255(x), (2 * x + 255) / 510, "{x}");
    }
    let mut rng = Rng::new(0xb1e4d);
    for _ in 0..20_000 {
        let pick = |r: &mut Rng| Factor::ALL[r.below(11) as usize];
        let op = |r: &mut Rng| {
            [
                BlendOp::Add,
                BlendOp::Subtract,
                BlendOp::ReverseSubtract,
                BlendOp::Min,
                BlendOp::Max,
            ][r.below(5) as usize]
        };
        let st = BlendState {
            enable: true,
            colour_op: op(&mut rng),
            src_colour: pick(&mut rng),
            dst_colour: pick(&mut rng),
            alpha_op: op(&mut rng),
            src_alpha: pick(&mut rng),
            dst_alpha: pick(&mut rng),
        };
        let (src, dst) = (rng.next_u64() as u32, rng.next_u64() as u32);
        let got = blend_rgba8(src, dst, &st);
        let ch = |v: u32, c: usize| ((v >> (8 * c)) & 0xFF) as f64 / 255.0;
        for c in 0..4 {
            let (s, d, sa, da) = (ch(src, c), ch(dst, c), ch(src, 3), ch(dst, 3));
            let f = |f: Factor| match f {
                Factor::Zero => 0.0,
                Factor::One => 1.0,
                Factor::SrcColor => s,
                Factor::OneMinusSrcColor => 1.0 - s,
                Factor::DstColor => d,
                Factor::OneMinusDstColor => 1.0 - d,
                Factor::SrcAlpha => sa,
                Factor::OneMinusSrcAlpha => 1.0 - sa,
                Factor::DstAlpha => da,
                Factor::OneMinusDstAlpha => 1.0 - da,
                Factor::SrcAlphaSaturate if c == 3 => 1.0,
                Factor::SrcAlphaSaturate => sa.min(1.0 - da),
            };
            let (op, fs, fd) = if c == 3 {
                (st.alpha_op, st.src_alpha, st.dst_alpha)
            } else {
                (st.colour_op, st.src_colour, st.dst_colour)
            };
            let r = match op {
                BlendOp::Add => s * f(fs) + d * f(fd),
                BlendOp::Subtract => s * f(fs) - d * f(fd),
                BlendOp::ReverseSubtract => d * f(fd) - s * f(fs),
                BlendOp::Min => s.min(d),
                BlendOp::Max => s.max(d),
            };
            let want = (r.clamp(0.0, 1.0) * 255.0).round();
            assert_eq!(
                ch(got, c) * 255.0,
                want,
                "channel {c} of {src:#x} over {dst:#x} with {st:?}"
            );
        }
    }
}

#[test]
fn barycentrics_are_perspective_correct() {
    let mut rng = Rng::new(0xba7);
    let mut worst = 0f64;
    for n in 0..300 {
        let v = random_triangle(&mut rng, (0, 0));
        let Ok(t) = setup(&v, (0, 0), &RasterState::default(), n) else {
            continue;
        };
        for q in rasterise(&t, 1) {
            for p in 0..4 {
                if q.coverage >> p & 1 == 0 {
                    continue;
                }
                let e = q.edge[p];
                assert_eq!(e[0] + e[1] + e[2], t.area2);
                let b = barycentrics(e.map(edge_f32), t.rw).map(f32::from_bits);
                let w: Vec<f64> = (0..3).map(|i| e[i] as f64 * t.rw[i] as f64).collect();
                let sum: f64 = w.iter().sum();
                for i in 0..3 {
                    let err = (b[i] as f64 - w[i] / sum).abs();
                    worst = worst.max(err);
                }
                assert!((b.iter().map(|&x| x as f64).sum::<f64>() - 1.0).abs() < 1e-5);
            }
        }
    }
    assert!(worst < 2e-6, "worst barycentric error {worst}");
}
