//! Small vector helpers on `[f64; 3]` and the seeded random numbers every engine shares.

/// A vector or an RGB colour.
pub type V3 = [f64; 3];

/// `a + b`.
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a · s`.
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// Component-wise product.
pub fn mul(a: V3, b: V3) -> V3 {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}

/// Dot product.
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Cross product.
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Length.
pub fn length(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `a / |a|`.
pub fn normalize(a: V3) -> V3 {
    scale(a, 1.0 / length(a))
}

/// Mean of the three components.
pub fn mean(a: V3) -> f64 {
    (a[0] + a[1] + a[2]) / 3.0
}

/// splitmix64's output function: a 64-bit hash.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random numbers of one (pixel, sample, bounce, purpose): two numbers in [0, 1) that are
/// multiples of 2⁻¹⁶, so the Q16.16 words the engine receives hold them exactly and every
/// engine (RTL, interpreter, f64) uses the very same values.
pub fn xi_pair(seed: u64, path: u64, bounce: u32, purpose: u32) -> [f64; 2] {
    let h = mix64(seed ^ mix64(path ^ mix64(u64::from(bounce) << 8 | u64::from(purpose))));
    [
        (h >> 48) as f64 / 65536.0,
        ((h >> 32) & 0xFFFF) as f64 / 65536.0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xi_are_exact_q16_in_unit_interval_and_vary() {
        let mut seen = std::collections::HashSet::new();
        for p in 0..1000 {
            let [a, b] = xi_pair(7, p, 1, 2);
            for x in [a, b] {
                assert!((0.0..1.0).contains(&x));
                assert_eq!((x * 65536.0).fract(), 0.0);
            }
            seen.insert((a * 65536.0) as u32);
        }
        assert!(seen.len() > 950, "{}", seen.len());
        assert_ne!(xi_pair(7, 3, 1, 2), xi_pair(7, 3, 2, 2));
    }
}
