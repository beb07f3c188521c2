//! A small glTF 2.0 reader for `rendergen raster`: the first primitive of the first mesh
//! (mode 4, triangles), its `POSITION` (VEC3 float), optional `NORMAL` (VEC3 float) and
//! `TEXCOORD_0` (VEC2 float), and its indices (unsigned byte, short or int; none = 0..n).
//! Buffers are files beside the `.gltf` or base64 `data:` URIs; `.glb` is not read.
//! Every problem is an error naming the glTF field.
use serde_json::Value;
use std::path::Path;

type Res<T> = Result<T, String>;

fn base64(s: &str) -> Res<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return Err(format!("bad base64 character `{}`", c as char)),
        } as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}

fn idx(v: &Value, k: &str, path: &str) -> Res<usize> {
    v.get(k)
        .and_then(Value::as_u64)
        .map(|x| x as usize)
        .ok_or_else(|| format!("{path}.{k}: missing or not an index"))
}

/// A loaded primitive: positions, normals, uvs (flattened; empty when absent) and indices.
pub type Geometry = (Vec<f32>, Vec<f32>, Vec<f32>, Vec<u32>);

/// Loads the first primitive of the first mesh.
pub fn load(path: &Path) -> Res<Geometry> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: malformed JSON: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let at = |k: &str| -> Res<&Vec<Value>> {
        doc.get(k)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{}: `{k}` missing", path.display()))
    };
    let buffers: Vec<Vec<u8>> = at("buffers")?
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let uri = b
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("buffers[{i}].uri: missing"))?;
            match uri.strip_prefix("data:") {
                Some(rest) => {
                    let data = rest
                        .split_once(";base64,")
                        .ok_or_else(|| format!("buffers[{i}].uri: only base64 data URIs"))?
                        .1;
                    base64(data).map_err(|e| format!("buffers[{i}].uri: {e}"))
                }
                None => std::fs::read(dir.join(uri))
                    .map_err(|e| format!("buffers[{i}].uri `{uri}`: {e}")),
            }
        })
        .collect::<Res<_>>()?;
    let views = at("bufferViews")?;
    let accessors = at("accessors")?;
    // (component type, count, type) → raw words of each element as f32 or u32.
    let read = |a: usize, want: &[&str], path_: &str| -> Res<(Vec<f32>, Vec<u32>)> {
        let acc = accessors
            .get(a)
            .ok_or_else(|| format!("{path_}: accessor {a} does not exist"))?;
        let p = format!("accessors[{a}]");
        let ty = acc.get("type").and_then(Value::as_str).unwrap_or("");
        if !want.contains(&ty) {
            return Err(format!("{p}.type: `{ty}` (expected {})", want.join(" or ")));
        }
        let comps = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        let ct = idx(acc, "componentType", &p)?;
        let count = idx(acc, "count", &p)?;
        let vi = idx(acc, "bufferView", &p)?;
        let view = views
            .get(vi)
            .ok_or_else(|| format!("{p}.bufferView: {vi} does not exist"))?;
        let vp = format!("bufferViews[{vi}]");
        let buf = &buffers
            .get(idx(view, "buffer", &vp)?)
            .ok_or_else(|| format!("{vp}.buffer: does not exist"))?;
        let size = match ct {
            5121 => 1,
            5123 => 2,
            5125 | 5126 => 4,
            _ => return Err(format!("{p}.componentType: {ct} is not supported")),
        };
        let stride = view
            .get("byteStride")
            .and_then(Value::as_u64)
            .map_or(size * comps, |s| s as usize);
        let start = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize
            + acc.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let (mut f, mut u) = (Vec::new(), Vec::new());
        for e in 0..count {
            for c in 0..comps {
                let o = start + e * stride + c * size;
                let b = buf
                    .get(o..o + size)
                    .ok_or_else(|| format!("{p}: element {e} lies outside its buffer"))?;
                match ct {
                    5126 => f.push(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                    5125 => u.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                    5123 => u.push(u16::from_le_bytes([b[0], b[1]]) as u32),
                    _ => u.push(b[0] as u32),
                }
            }
        }
        Ok((f, u))
    };
    let prim = doc
        .pointer("/meshes/0/primitives/0")
        .ok_or("meshes[0].primitives[0]: missing")?;
    if prim.get("mode").and_then(Value::as_u64).unwrap_or(4) != 4 {
        return Err("meshes[0].primitives[0].mode: only triangle lists (4)".into());
    }
    let attr = |k: &str| {
        prim.pointer(&format!("/attributes/{k}"))
            .and_then(Value::as_u64)
    };
    let pos_a = attr("POSITION").ok_or("meshes[0].primitives[0].attributes.POSITION: missing")?;
    let floats = |a: u64, t: &str, name: &str| -> Res<Vec<f32>> {
        let (f, _) = read(a as usize, &[t], name)?;
        if f.is_empty() {
            return Err(format!("{name}: expected float components"));
        }
        Ok(f)
    };
    let positions = floats(pos_a, "VEC3", "POSITION")?;
    let normals = attr("NORMAL").map_or(Ok(vec![]), |a| floats(a, "VEC3", "NORMAL"))?;
    let uvs = attr("TEXCOORD_0").map_or(Ok(vec![]), |a| floats(a, "VEC2", "TEXCOORD_0"))?;
    let indices = match prim.get("indices").and_then(Value::as_u64) {
        Some(a) => read(a as usize, &["SCALAR"], "indices")?.1,
        None => (0..positions.len() as u32 / 3).collect(),
    };
    Ok((positions, normals, uvs, indices))
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes() {
        assert_eq!(super::base64("AQID/w==").unwrap(), [1, 2, 3, 255]);
        assert!(super::base64("A*").is_err());
    }
}
