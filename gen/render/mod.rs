//! `rendergen render`: images rendered through the PBRU (issue 11 §4).
//!
//! The SM side is Rust: camera rays, intersection (the "TTU model", [`scene`]) and shadow rays.
//! At every hit the PBRU runs the material's compiled programs (`compiler/mtlx/ABI.md`): the
//! shading program once per unshadowed light (direct light = `BSDF·cos × light`), and, while
//! the path may still bounce (`depth`), the importance-sampling program for the next direction
//! and its path weight. Rays leaving the scene add the environment. The renderer is a
//! wavefront: each bounce's PBRU rays of every path go to the engine together.
//!
//! Engines ([`EngineKind`]): `rtl` (the cycle-accurate `pbru_top`, every ray checked against
//! the interpreter), `model` (the interpreter), `f64` (an independent reference that evaluates
//! the MaterialX documents in f64, [`material`]). All three see the same random numbers:
//! pixel positions, ξ of every sampling ray (multiples of 2⁻¹⁶, exact in Q16.16), and the ray
//! ids that seed the engine's lobe choice, which the reference reproduces.

pub mod engine;
pub mod material;
pub mod math;
pub mod scene;

use engine::{Engine, Job, JobKind, JobResult};
pub use engine::{EngineKind, EngineStats};
use math::*;
pub use scene::Scene;

/// How to render.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Samples per pixel (≥ 1; 1 samples each pixel at its centre, more are jittered).
    pub spp: u32,
    /// Bounces (≥ 1; 1 is direct light only, each further one an importance-sampled bounce).
    pub depth: u32,
    /// The engine.
    pub engine: EngineKind,
    /// Seed of every random number.
    pub seed: u64,
    /// PBRU cores (`rtl`; 1..=8, default 4).
    pub cores: u32,
    /// Ray slots per core (`rtl`; 1..=8, default 2).
    pub slots: u32,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            spp: 1,
            depth: 1,
            engine: EngineKind::Model,
            seed: 1,
            cores: 4,
            slots: 2,
        }
    }
}

/// A rendered image and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Linear RGB radiance, row-major, row 0 at the top.
    pub pixels: Vec<V3>,
    /// Camera rays.
    pub camera_rays: u64,
    /// Shadow rays.
    pub shadow_rays: u64,
    /// The engine's statistics.
    pub engine: EngineStats,
    /// Wall-clock seconds.
    pub seconds: f64,
}

struct PathState {
    pixel: usize,
    id: u64,
    o: V3,
    d: V3,
    throughput: V3,
}

/// Ray-id offset of bounce `b` (odd, so consecutive bounces seed the lobe choice differently).
fn id_offset(b: u32) -> u64 {
    u64::from(b) * 40503
}

/// Renders `scene`.
pub fn render(scene: &Scene, opts: &RenderOptions) -> Result<Rendered, String> {
    if opts.spp == 0 || opts.spp > 1024 {
        return Err(format!("--spp {}: expected 1..=1024", opts.spp));
    }
    if opts.depth == 0 || opts.depth > 16 {
        return Err(format!("--depth {}: expected 1..=16", opts.depth));
    }
    let start = std::time::Instant::now();
    let mut engine = Engine::new(opts.engine, &scene.materials, opts.cores, opts.slots)?;
    let (w, h) = (scene.width as usize, scene.height as usize);
    let mut pixels = vec![[0.0; 3]; w * h];
    let spp = u64::from(opts.spp);
    let mut paths: Vec<PathState> = Vec::with_capacity(w * h * opts.spp as usize);
    for pixel in 0..w * h {
        for s in 0..spp {
            let id = pixel as u64 * spp + s;
            let [dx, dy] = if spp == 1 {
                [0.5, 0.5]
            } else {
                xi_pair(opts.seed, id, 0, 0)
            };
            let (x, y) = ((pixel % w) as f64 + dx, (pixel / w) as f64 + dy);
            let (o, d) = scene.camera_ray(x, y);
            paths.push(PathState {
                pixel,
                id,
                o,
                d,
                throughput: [1.0; 3],
            });
        }
    }
    let total_paths = paths.len() as u64;
    let camera_rays = total_paths;
    let mut shadow_rays = 0;
    let progress = crate::progress::Progress::bar("rendering", u64::from(opts.depth), "bounces");
    for bounce in 0..opts.depth {
        progress.set(u64::from(bounce));
        let mut jobs = Vec::new();
        // (job index, path index, light contribution) for shading; path index for sampling.
        let mut shade_of = Vec::new();
        let mut sample_of = Vec::new();
        let mut shading_slot = total_paths;
        let id = |t: u64| ((id_offset(bounce) + t) & 0xFFFF) as u32;
        for (pi, p) in paths.iter().enumerate() {
            let Some(hit) = scene.intersect(p.o, p.d, 0.0, f64::INFINITY) else {
                pixels[p.pixel] = add(pixels[p.pixel], mul(p.throughput, scene.environment));
                continue;
            };
            for light in &scene.lights {
                let (l, dist, rgb) = match *light {
                    scene::Light::Directional {
                        direction,
                        radiance,
                    } => (scale(direction, -1.0), f64::INFINITY, radiance),
                    scene::Light::Point {
                        position,
                        intensity,
                    } => {
                        let to = sub(position, hit.p);
                        let d = length(to);
                        (scale(to, 1.0 / d), d, scale(intensity, 1.0 / (d * d)))
                    }
                };
                if dot(l, hit.n) <= 0.0 {
                    continue;
                }
                shadow_rays += 1;
                if scene.occluded(hit.origin(), l, dist) {
                    continue;
                }
                shade_of.push((jobs.len(), pi, mul(p.throughput, rgb)));
                jobs.push(Job {
                    kind: JobKind::Shade { l },
                    n: hit.n,
                    v: hit.v,
                    uv: hit.uv,
                    material: hit.material,
                    ray_id: id(shading_slot),
                    group: (shading_slot >> 16) as u32,
                });
                shading_slot += 1;
            }
            if bounce + 1 < opts.depth {
                sample_of.push((jobs.len(), pi, hit.origin()));
                jobs.push(Job {
                    kind: JobKind::Sample {
                        xi: xi_pair(opts.seed, p.id, bounce + 1, 1),
                    },
                    n: hit.n,
                    v: hit.v,
                    uv: hit.uv,
                    material: hit.material,
                    ray_id: id(p.id),
                    group: (p.id >> 16) as u32,
                });
            }
        }
        let results = engine.run(&jobs)?;
        for (j, pi, light) in shade_of {
            if let JobResult::Shaded(rgb) = results[j] {
                let px = paths[pi].pixel;
                pixels[px] = add(pixels[px], mul(light, rgb));
            }
        }
        let mut next = Vec::with_capacity(sample_of.len());
        for (j, pi, origin) in sample_of {
            if let JobResult::Sampled(Some((d, weight))) = results[j] {
                let p = &paths[pi];
                next.push(PathState {
                    pixel: p.pixel,
                    id: p.id,
                    o: origin,
                    d: normalize(d),
                    throughput: mul(p.throughput, weight),
                });
            }
        }
        paths = next;
    }
    let inv = 1.0 / spp as f64;
    Ok(Rendered {
        width: scene.width,
        height: scene.height,
        pixels: pixels.into_iter().map(|p| scale(p, inv)).collect(),
        camera_rays,
        shadow_rays,
        engine: engine.stats,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The sRGB transfer function of a linear value clamped to [0, 1].
pub fn srgb(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    if x <= 0.003_130_8 {
        12.92 * x
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    }
}

impl Rendered {
    /// The image as 8-bit sRGB PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
            let mut wr = enc.write_header().map_err(|e| e.to_string())?;
            let data: Vec<u8> = (self.pixels.iter())
                .flat_map(|p| p.map(|c| (srgb(c) * 255.0).round() as u8))
                .collect();
            wr.write_image_data(&data).map_err(|e| e.to_string())?;
        }
        Ok(out)
    }

    /// The linear values as a little-endian PFM (rows bottom to top, as the format says).
    pub fn pfm(&self) -> Vec<u8> {
        let mut out = format!("PF\n{} {}\n-1.0\n", self.width, self.height).into_bytes();
        for row in (0..self.height as usize).rev() {
            let w = self.width as usize;
            for p in &self.pixels[row * w..(row + 1) * w] {
                for c in p {
                    out.extend((*c as f32).to_le_bytes());
                }
            }
        }
        out
    }

    /// PSNR in dB against `reference` over the displayed values (sRGB-encoded, clamped to
    /// [0, 1], not quantised), peak 1; infinite for identical images.
    pub fn psnr(&self, reference: &Rendered) -> f64 {
        let n = (self.pixels.len() * 3) as f64;
        let mse: f64 = (self.pixels.iter().zip(&reference.pixels))
            .flat_map(|(a, b)| (0..3).map(move |c| (srgb(a[c]) - srgb(b[c])).powi(2)))
            .sum::<f64>()
            / n;
        -10.0 * mse.log10()
    }

    /// Total PBRU rays.
    pub fn pbru_rays(&self) -> u64 {
        self.engine.shading_rays + self.engine.sampling_rays
    }
}
