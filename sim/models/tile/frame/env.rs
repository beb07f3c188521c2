//! The shader environment of a pass: storage buffers in external memory, uniforms, the tile
//! buffer or surfaces behind the special port ([`port`]), and running one warp.
use super::*;
use crate::models::texture::system::{lane_words, unit_request, Sampler};
use crate::models::texture::{sample, Mode};

/// The shader environment of every stage of a pass.
pub(super) struct PassEnv<'a> {
    pub(super) mem: &'a mut Memory,
    pub(super) buffers: &'a [(u32, RegionId)],
    pub(super) uniforms: &'a [u32],
    pub(super) images: &'a [(u32, Surface)],
    /// The mesh's texture and its region (fragment stage of a textured mesh).
    pub(super) texture: Option<(&'a Texture, RegionId)>,
    /// The tile buffer (tile-shader stage) or `None` (vertex and fragment stages).
    pub(super) tile: Option<&'a mut TileBuffer>,
    pub(super) formats: &'a [Format],
    pub(super) modes: Option<&'a mut Vec<WriteMode>>,
    /// Tile shader: tile and thread of each lane.
    pub(super) threads: &'a [(u32, u32)],
    pub(super) tile_xy: (u32, u32),
    pub(super) error: Option<FrameError>,
}

impl PassEnv<'_> {
    fn fail(&mut self, e: FrameError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    fn global(&mut self, addr: u32) -> Option<u64> {
        let binding = addr >> 24;
        match self.buffers.iter().find(|b| b.0 == binding) {
            Some(&(_, r)) => Some(self.mem.base(r) + (addr & 0xFF_FFFF) as u64),
            None => {
                self.fail(cfg(format!(
                    "a shader accessed storage binding {binding} (address 0x{addr:08x}), which \
                     the pass does not bind"
                )));
                None
            }
        }
    }

    fn plane_format(&self, plane: u32) -> Option<Option<Format>> {
        match plane {
            port::DEPTH_PLANE => Some(None),
            p => self.formats.get(p as usize).map(|f| Some(*f)),
        }
    }

    fn tile_port(&mut self, req: &SpecRequest) -> u32 {
        let (op, plane, ch) = port::decode(req.func);
        let thread = self.threads.get(req.lane).copied().unwrap_or((0, 0));
        if op == port::OP_WRITEOUT {
            let Some(mode) = WriteMode::from_code(req.b) else {
                self.fail(cfg(format!(
                    "tile shader thread {thread:?}: write-out mode {} of plane {} is not 0..=6",
                    req.b, req.a
                )));
                return 0;
            };
            let n = self.formats.len();
            let idx = if req.a == port::DEPTH_PLANE {
                Some(n)
            } else {
                (req.a < n as u32).then_some(req.a as usize)
            };
            match (idx, self.modes.as_deref_mut()) {
                (Some(i), Some(m)) => m[i] = mode,
                _ => self.fail(cfg(format!(
                    "tile shader thread {thread:?}: write-out control of plane {}, which the \
                     tile buffer does not have",
                    req.a
                ))),
            }
            return 0;
        }
        let (x, y, s) = port::split_address(req.a);
        let fmt = self.plane_format(plane);
        let index = match plane {
            port::DEPTH_PLANE => self.formats.len(),
            p => p as usize,
        };
        let tile = self.tile.as_deref_mut().expect("tile stage");
        let oob = FrameError::OutOfTile {
            tile: self.tile_xy,
            thread,
            plane,
            address: (x, y, s),
        };
        let Some(fmt) = fmt else {
            self.fail(oob);
            return 0;
        };
        let stored = match tile.ts_read(index, x, y, s) {
            Ok(v) => v,
            Err(_) => {
                self.fail(oob);
                return 0;
            }
        };
        match (op, fmt) {
            (port::OP_LOAD, Some(f)) => pack::load_channel(f, stored, ch as usize),
            (port::OP_LOAD, None) => match ch {
                0 => stored as u32,
                3 => 1,
                _ => 0,
            },
            (port::OP_STORE, f) => {
                let v = match f {
                    Some(f) => pack::store_channel(f, stored, ch as usize, req.b),
                    None if ch == 0 => (req.b & DEPTH_MAX) as u64,
                    None => stored,
                };
                let _ = tile.ts_write(index, x, y, s, v);
                0
            }
            _ => {
                self.fail(cfg(format!(
                    "tile shader: unknown special function 0x{:x}",
                    req.func
                )));
                0
            }
        }
    }

    fn surface_port(&mut self, req: &SpecRequest) -> u32 {
        let (op, plane, ch) = port::decode(req.func);
        if op != port::OP_LOAD {
            self.fail(cfg(format!(
                "a fragment or vertex shader used special function 0x{:x}; only image loads of \
                 surfaces are allowed outside the tile shader",
                req.func
            )));
            return 0;
        }
        let Some(&(_, surf)) = self.images.iter().find(|i| i.0 == plane) else {
            self.fail(cfg(format!(
                "a fragment shader read image binding {plane}, which the pass does not bind"
            )));
            return 0;
        };
        let (x, y, s) = port::split_address(req.a);
        if x >= surf.width || y >= surf.height || s >= surf.samples {
            self.fail(cfg(format!(
                "a fragment shader read image binding {plane} at ({x}, {y}) sample {s}, outside \
                 the {}×{}×{} surface",
                surf.width, surf.height, surf.samples
            )));
            return 0;
        }
        let n = pack::bytes_per_sample(surf.format);
        let addr = self.mem.base(surf.region) + surf.offset(x, y, s);
        let mut b = [0u8; 8];
        // An image load asks for channels 0..3 in turn: the channel-0 request fetches the
        // texel (counted), the others are served from the port's latch of it.
        let got = match ch {
            0 => self.mem.read(addr, &mut b[..n]),
            _ => self.mem.peek(addr, &mut b[..n]),
        };
        if let Err(e) = got {
            self.fail(e.into());
            return 0;
        }
        let stored = u64::from_le_bytes(b);
        match surf.format {
            Some(f) => pack::load_channel(f, stored, ch as usize),
            None => match ch {
                0 => stored as u32,
                3 => 1,
                _ => 0,
            },
        }
    }
}

impl Env for PassEnv<'_> {
    fn load(&mut self, _lane: usize, addr: u32) -> u32 {
        match self.global(addr) {
            Some(a) => self.mem.read_u32(a).unwrap_or_else(|e| {
                self.fail(e.into());
                0
            }),
            None => 0,
        }
    }
    fn store(&mut self, _lane: usize, addr: u32, value: u32) {
        if let Some(a) = self.global(addr) {
            if let Err(e) = self.mem.write_u32(a, value) {
                self.fail(e.into());
            }
        }
    }
    fn uniform(&mut self, index: u32) -> u32 {
        self.uniforms.get(index as usize).copied().unwrap_or(0)
    }
    fn texture(&mut self, req: &TexRequest) -> [[u32; 4]; 4] {
        let Some((t, region)) = self.texture else {
            self.fail(cfg(
                "a shader sampled a texture, but its mesh has none (a `texture` of the mesh; \
                 only fragment shaders of textured meshes may sample)"
                    .into(),
            ));
            return [[0; 4]; 4];
        };
        // The binding's sampler filter replaces the word's for normalised coordinates.
        let mut s = Sampler::decode(req.sampler);
        if s.mode == Mode::Filtered as u32 && !s.int_coords {
            s.linear = t.filter == Filter::Linear;
        }
        let r = TexRequest {
            sampler: s.encode(),
            ..*req
        };
        let (answer, _, reads) = sample(&t.desc, &t.texels, &unit_request(0, &r));
        // Every texel the unit reads is a counted read of the texture's region.
        let base = self.mem.base(region);
        let mut b = [0u8; 4];
        for texel in reads.iter().filter(|x| !x.border) {
            if let Err(e) = self.mem.read(base + 4 * texel.addr as u64, &mut b) {
                self.fail(e.into());
                break;
            }
        }
        lane_words(r.sampler, &answer)
    }
    fn special(&mut self, req: &SpecRequest) -> u32 {
        if req.helper {
            return 0;
        }
        match self.tile.is_some() {
            true => self.tile_port(req),
            false => self.surface_port(req),
        }
    }
}

/// One lane's exports by location.
pub(super) type Exports = std::collections::BTreeMap<u32, Vec<u32>>;

/// Runs one warp; returns its exports and the instructions executed.
pub(super) fn run_warp(
    prog: &Program,
    launch: &Launch,
    env: &mut PassEnv,
    what: &str,
) -> Result<(Vec<Exports>, u64), FrameError> {
    let out = shader::run(&prog.words, &shader::Config::default(), launch, env);
    if let Some(e) = env.error.take() {
        return Err(e);
    }
    if let Some(f) = out.error {
        return Err(FrameError::Shader {
            program: what.to_string(),
            fault: format!("{:?} at pc {}", f.error, f.pc),
        });
    }
    Ok((out.exports, out.executed))
}

/// Helper-lane mask of a warp of `lanes` lanes whose first `n` are real.
pub(super) fn tail_helpers(n: usize, lanes: usize) -> u64 {
    (n..lanes).fold(0, |m, l| m | 1 << l)
}
