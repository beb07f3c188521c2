//! Near-plane clipping in clip space (Sutherland–Hodgman against `z ≥ 0`, Vulkan's z range).

/// A clip-space vertex with its varying slots.
#[derive(Clone, Debug)]
pub struct ClipVertex {
    /// Clip-space position x, y, z, w.
    pub pos: [f32; 4],
    /// Varying words (binary32 bits), interpolated as `f32` when clipped.
    pub vary: Vec<u32>,
}

/// `a + (b − a)·t` per position component and varying (two roundings each, as `f32`).
pub fn lerp_vertex(a: &ClipVertex, b: &ClipVertex, t: f32) -> ClipVertex {
    let l = |x: f32, y: f32| x + (y - x) * t;
    ClipVertex {
        pos: std::array::from_fn(|i| l(a.pos[i], b.pos[i])),
        vary: a
            .vary
            .iter()
            .zip(&b.vary)
            .map(|(&x, &y)| l(f32::from_bits(x), f32::from_bits(y)).to_bits())
            .collect(),
    }
}

/// Clips a triangle against `z ≥ 0`; returns a fan of 0, 1 or 2 triangles.
pub fn clip_near(t: [ClipVertex; 3]) -> Vec<[ClipVertex; 3]> {
    if t.iter().all(|v| v.pos[2] >= 0.0) {
        return vec![t];
    }
    let mut poly = Vec::new();
    for i in 0..3 {
        let (a, b) = (&t[i], &t[(i + 1) % 3]);
        let (da, db) = (a.pos[2], b.pos[2]);
        if da >= 0.0 {
            poly.push(a.clone());
        }
        if (da >= 0.0) != (db >= 0.0) {
            poly.push(lerp_vertex(a, b, da / (da - db)));
        }
    }
    (1..poly.len().saturating_sub(1))
        .map(|i| [poly[0].clone(), poly[i].clone(), poly[i + 1].clone()])
        .collect()
}
