//! The scene file (JSON) and the "TTU model": camera rays and ray–object intersection in f64.
//!
//! ```json
//! {
//!   "width": 48, "height": 32,
//!   "camera": { "position": [0, 1, 4], "look_at": [0, 0.5, 0], "up": [0, 1, 0], "fov": 40 },
//!   "environment": [0.05, 0.06, 0.08],
//!   "materials": { "clay": "clay.mtlx" },
//!   "spheres": [ { "center": [0, 0.5, 0], "radius": 0.5, "material": "clay" } ],
//!   "planes": [ { "point": [0, 0, 0], "normal": [0, 1, 0], "material": "clay", "uv_scale": 1 } ],
//!   "lights": [
//!     { "type": "directional", "direction": [-1, -2, -1], "radiance": [2, 2, 2] },
//!     { "type": "point", "position": [2, 3, 2], "intensity": [10, 10, 10] }
//!   ]
//! }
//! ```
//! * `width`, `height`: image size in pixels (optional, default 48 × 32; the command line may
//!   override them).
//! * `camera`: pinhole; `fov` is the vertical field of view in degrees (0 < fov < 180).
//! * `environment`: the constant radiance seen by rays that leave the scene (optional, black).
//! * `materials`: name → `.mtlx` file, relative to the scene file.
//! * `spheres`, `planes`: `material` names an entry of `materials`. A plane is two-sided;
//!   `uv_scale` (optional, 1) scales its texture coordinates (position along two axes in the
//!   plane). A sphere's (u, v) are longitude / 2π and colatitude / π.
//! * `lights`: `directional` (`direction` the light travels in, `radiance` RGB: the light adds
//!   `BSDF·cos·radiance`), `point` (`position`, `intensity` RGB: adds
//!   `BSDF·cos·intensity/distance²`). Both cast hard shadows.

use super::math::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Pinhole camera.
#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    /// Eye position.
    pub position: V3,
    /// A point the camera looks at.
    pub look_at: V3,
    /// Up direction (need not be orthogonal to the view direction).
    pub up: V3,
    /// Vertical field of view, degrees.
    pub fov: f64,
}

/// A sphere.
#[derive(Clone, Debug, PartialEq)]
pub struct Sphere {
    /// Centre.
    pub center: V3,
    /// Radius (> 0).
    pub radius: f64,
    /// Index into [`Scene::materials`].
    pub material: usize,
}

/// An infinite two-sided plane.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    /// A point of the plane.
    pub point: V3,
    /// Its unit normal.
    pub normal: V3,
    /// Index into [`Scene::materials`].
    pub material: usize,
    /// Texture-coordinate scale.
    pub uv_scale: f64,
}

/// A light.
#[derive(Clone, Debug, PartialEq)]
pub enum Light {
    /// Parallel light travelling along `direction` (unit).
    Directional {
        /// Direction of travel (unit).
        direction: V3,
        /// RGB radiance.
        radiance: V3,
    },
    /// Point light.
    Point {
        /// Position.
        position: V3,
        /// RGB intensity.
        intensity: V3,
    },
}

/// A parsed scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Image width (pixels).
    pub width: u32,
    /// Image height (pixels).
    pub height: u32,
    /// The camera.
    pub camera: Camera,
    /// Constant environment radiance.
    pub environment: V3,
    /// Materials: name and resolved `.mtlx` path, sorted by name.
    pub materials: Vec<(String, PathBuf)>,
    /// Spheres.
    pub spheres: Vec<Sphere>,
    /// Planes.
    pub planes: Vec<Plane>,
    /// Lights.
    pub lights: Vec<Light>,
}

type Res<T> = Result<T, String>;

fn get<'a>(v: &'a Value, path: &str, key: &str) -> Res<&'a Value> {
    v.get(key)
        .ok_or_else(|| format!("{path}: missing field `{key}`"))
}

fn num(v: &Value, path: &str) -> Res<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{path}: expected a number, found {v}")),
    }
}

fn vec3(v: &Value, path: &str) -> Res<V3> {
    match v.as_array() {
        Some(a) if a.len() == 3 => Ok([
            num(&a[0], &format!("{path}[0]"))?,
            num(&a[1], &format!("{path}[1]"))?,
            num(&a[2], &format!("{path}[2]"))?,
        ]),
        _ => Err(format!(
            "{path}: expected an array of three numbers, found {v}"
        )),
    }
}

fn unit(v: &Value, path: &str) -> Res<V3> {
    let x = vec3(v, path)?;
    if length(x) < 1e-9 {
        return Err(format!("{path}: a direction must not be zero"));
    }
    Ok(normalize(x))
}

fn colour(v: &Value, path: &str) -> Res<V3> {
    let c = vec3(v, path)?;
    if c.iter().any(|&x| x < 0.0) {
        return Err(format!("{path}: colours must not be negative"));
    }
    Ok(c)
}

fn array<'a>(v: &'a Value, key: &str) -> Res<&'a [Value]> {
    match v.get(key) {
        None => Ok(&[]),
        Some(a) => a
            .as_array()
            .map(|a| a.as_slice())
            .ok_or_else(|| format!("{key}: expected an array")),
    }
}

fn known(v: &Value, path: &str, keys: &[&str]) -> Res<()> {
    if let Some(o) = v.as_object() {
        if let Some(k) = o.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(format!(
                "{path}: unknown field `{k}` (expected one of: {})",
                keys.join(", ")
            ));
        }
        Ok(())
    } else {
        Err(format!("{path}: expected an object"))
    }
}

fn size(v: &Value, key: &str, default: u32) -> Res<u32> {
    match v.get(key) {
        None => Ok(default),
        Some(x) => match x.as_u64() {
            Some(n) if (1..=4096).contains(&n) => Ok(n as u32),
            _ => Err(format!("{key}: expected an integer in 1..=4096, found {x}")),
        },
    }
}

impl Scene {
    /// Parses scene JSON; relative material paths resolve against `dir`.
    pub fn parse(text: &str, dir: &Path) -> Res<Scene> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        known(
            &v,
            "scene",
            &[
                "width",
                "height",
                "camera",
                "environment",
                "materials",
                "spheres",
                "planes",
                "lights",
            ],
        )?;
        let c = get(&v, "scene", "camera")?;
        known(c, "camera", &["position", "look_at", "up", "fov"])?;
        let camera = Camera {
            position: vec3(get(c, "camera", "position")?, "camera.position")?,
            look_at: vec3(get(c, "camera", "look_at")?, "camera.look_at")?,
            up: unit(get(c, "camera", "up")?, "camera.up")?,
            fov: num(get(c, "camera", "fov")?, "camera.fov")?,
        };
        if !(camera.fov > 0.0 && camera.fov < 180.0) {
            return Err(format!(
                "camera.fov: {} is outside (0, 180) degrees",
                camera.fov
            ));
        }
        let fwd = sub(camera.look_at, camera.position);
        if length(fwd) < 1e-9 || length(cross(normalize(fwd), camera.up)) < 1e-6 {
            return Err(
                "camera: look_at must differ from position and not lie along up".to_string(),
            );
        }
        let mats = get(&v, "scene", "materials")?
            .as_object()
            .ok_or("materials: expected an object of name → .mtlx path")?;
        let mut materials = Vec::new();
        for (name, p) in mats {
            let p = p
                .as_str()
                .ok_or_else(|| format!("materials.{name}: expected a file name"))?;
            materials.push((name.clone(), dir.join(p)));
        }
        let material = |o: &Value, path: &str| -> Res<usize> {
            let m = get(o, path, "material")?;
            let name = m
                .as_str()
                .ok_or_else(|| format!("{path}.material: expected a name"))?;
            materials
                .iter()
                .position(|(n, _)| n == name)
                .ok_or_else(|| format!("{path}.material: no material `{name}` in `materials`"))
        };
        let mut spheres = Vec::new();
        for (i, s) in array(&v, "spheres")?.iter().enumerate() {
            let p = format!("spheres[{i}]");
            known(s, &p, &["center", "radius", "material"])?;
            let radius = num(get(s, &p, "radius")?, &format!("{p}.radius"))?;
            if radius <= 0.0 {
                return Err(format!("{p}.radius: must be positive, found {radius}"));
            }
            spheres.push(Sphere {
                center: vec3(get(s, &p, "center")?, &format!("{p}.center"))?,
                radius,
                material: material(s, &p)?,
            });
        }
        let mut planes = Vec::new();
        for (i, s) in array(&v, "planes")?.iter().enumerate() {
            let p = format!("planes[{i}]");
            known(s, &p, &["point", "normal", "material", "uv_scale"])?;
            planes.push(Plane {
                point: vec3(get(s, &p, "point")?, &format!("{p}.point"))?,
                normal: unit(get(s, &p, "normal")?, &format!("{p}.normal"))?,
                material: material(s, &p)?,
                uv_scale: match s.get("uv_scale") {
                    Some(x) => num(x, &format!("{p}.uv_scale"))?,
                    None => 1.0,
                },
            });
        }
        let mut lights = Vec::new();
        for (i, l) in array(&v, "lights")?.iter().enumerate() {
            let p = format!("lights[{i}]");
            let kind = get(l, &p, "type")?.as_str().unwrap_or("");
            lights.push(match kind {
                "directional" => {
                    known(l, &p, &["type", "direction", "radiance"])?;
                    Light::Directional {
                        direction: unit(get(l, &p, "direction")?, &format!("{p}.direction"))?,
                        radiance: colour(get(l, &p, "radiance")?, &format!("{p}.radiance"))?,
                    }
                }
                "point" => {
                    known(l, &p, &["type", "position", "intensity"])?;
                    Light::Point {
                        position: vec3(get(l, &p, "position")?, &format!("{p}.position"))?,
                        intensity: colour(get(l, &p, "intensity")?, &format!("{p}.intensity"))?,
                    }
                }
                other => {
                    return Err(format!(
                        "{p}.type: `{other}` is not a light type (directional, point)"
                    ))
                }
            });
        }
        Ok(Scene {
            width: size(&v, "width", 48)?,
            height: size(&v, "height", 32)?,
            camera,
            environment: match v.get("environment") {
                Some(e) => colour(e, "environment")?,
                None => [0.0; 3],
            },
            materials,
            spheres,
            planes,
            lights,
        })
    }

    /// Reads and parses the scene file at `path`; every error names the file.
    pub fn load(path: &Path) -> Res<Scene> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Scene::parse(&text, dir).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The materials used by an object, by index, with how many objects use each.
    pub fn material_uses(&self) -> BTreeMap<usize, usize> {
        let mut m = BTreeMap::new();
        for i in
            (self.spheres.iter().map(|s| s.material)).chain(self.planes.iter().map(|p| p.material))
        {
            *m.entry(i).or_insert(0) += 1;
        }
        m
    }

    /// The camera ray through image position (`x`, `y`) (pixels; row 0 at the top): origin
    /// and unit direction.
    pub fn camera_ray(&self, x: f64, y: f64) -> (V3, V3) {
        let c = &self.camera;
        let fwd = normalize(sub(c.look_at, c.position));
        let right = normalize(cross(fwd, c.up));
        let up = cross(right, fwd);
        let h = (c.fov.to_radians() / 2.0).tan();
        let aspect = f64::from(self.width) / f64::from(self.height);
        let sx = (2.0 * x / f64::from(self.width) - 1.0) * h * aspect;
        let sy = (1.0 - 2.0 * y / f64::from(self.height)) * h;
        (
            c.position,
            normalize(add(fwd, add(scale(right, sx), scale(up, sy)))),
        )
    }

    /// The nearest hit of the ray (`o`, unit `d`) with `t` in (`t_min`, `t_max`).
    pub fn intersect(&self, o: V3, d: V3, t_min: f64, t_max: f64) -> Option<Hit> {
        let mut best: Option<Hit> = None;
        let mut t_best = t_max;
        for s in &self.spheres {
            let oc = sub(o, s.center);
            let b = dot(oc, d);
            let disc = b * b - (dot(oc, oc) - s.radius * s.radius);
            if disc < 0.0 {
                continue;
            }
            let r = disc.sqrt();
            for t in [-b - r, -b + r] {
                if t > t_min && t < t_best {
                    let p = add(o, scale(d, t));
                    let n = scale(sub(p, s.center), 1.0 / s.radius);
                    let u = 0.5 + n[2].atan2(n[0]) / (2.0 * std::f64::consts::PI);
                    let v = n[1].clamp(-1.0, 1.0).acos() / std::f64::consts::PI;
                    t_best = t;
                    best = Some(Hit::new(t, p, n, d, [u, v], s.material));
                    break;
                }
            }
        }
        for pl in &self.planes {
            let den = dot(pl.normal, d);
            if den.abs() < 1e-12 {
                continue;
            }
            let t = dot(sub(pl.point, o), pl.normal) / den;
            if t > t_min && t < t_best {
                let p = add(o, scale(d, t));
                let (ta, bi) = frame(pl.normal);
                let rel = sub(p, pl.point);
                let uv = [dot(rel, ta) * pl.uv_scale, dot(rel, bi) * pl.uv_scale];
                t_best = t;
                best = Some(Hit::new(t, p, pl.normal, d, uv, pl.material));
            }
        }
        best
    }

    /// True if something lies on the segment from `o` along unit `d` before `dist`.
    pub fn occluded(&self, o: V3, d: V3, dist: f64) -> bool {
        self.intersect(o, d, 0.0, dist).is_some()
    }
}

/// Two unit vectors completing `n` to an orthonormal frame (Duff et al. 2017).
pub fn frame(n: V3) -> (V3, V3) {
    let s = if n[2] >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (s + n[2]);
    let b = n[0] * n[1] * a;
    (
        [1.0 + s * n[0] * n[0] * a, s * b, -s * n[0]],
        [b, s + n[1] * n[1] * a, -n[1]],
    )
}

/// A ray's nearest surface point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Distance along the ray.
    pub t: f64,
    /// Position.
    pub p: V3,
    /// Unit shading normal, turned towards the viewer.
    pub n: V3,
    /// Unit direction towards the viewer (the negated ray direction).
    pub v: V3,
    /// Texture coordinates.
    pub uv: [f64; 2],
    /// Material index.
    pub material: usize,
}

impl Hit {
    fn new(t: f64, p: V3, n: V3, d: V3, uv: [f64; 2], material: usize) -> Hit {
        let v = scale(d, -1.0);
        let n = if dot(n, v) < 0.0 { scale(n, -1.0) } else { n };
        Hit {
            t,
            p,
            n,
            v,
            uv,
            material,
        }
    }

    /// A ray origin just off the surface on the side of `n`.
    pub fn origin(&self) -> V3 {
        add(self.p, scale(self.n, 1e-4))
    }
}
