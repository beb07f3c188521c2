"""Generates model.gltf + model.bin: a torus (24 × 12 segments) with normals, for the
lit-model example scene. Run: python3 make_model.py (the outputs are committed)."""
import json, math, struct

R, r, NU, NV = 0.7, 0.3, 24, 12
pos, nrm, idx = [], [], []
for i in range(NU):
    u = 2 * math.pi * i / NU
    for j in range(NV):
        v = 2 * math.pi * j / NV
        cx, cz = math.cos(u), math.sin(u)
        n = (math.cos(v) * cx, math.sin(v), math.cos(v) * cz)
        pos.append(((R + r * math.cos(v)) * cx, r * math.sin(v), (R + r * math.cos(v)) * cz))
        nrm.append(n)
for i in range(NU):
    for j in range(NV):
        a = i * NV + j
        b = ((i + 1) % NU) * NV + j
        c = ((i + 1) % NU) * NV + (j + 1) % NV
        d = i * NV + (j + 1) % NV
        idx += [a, d, b, b, d, c]
blob = b"".join(struct.pack("<3f", *p) for p in pos)
blob += b"".join(struct.pack("<3f", *n) for n in nrm)
blob += b"".join(struct.pack("<H", k) for k in idx)
nv = len(pos)
mins = [min(p[k] for p in pos) for k in range(3)]
maxs = [max(p[k] for p in pos) for k in range(3)]
doc = {
    "asset": {"version": "2.0", "generator": "rendergen make_model.py"},
    "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2, "mode": 4}]}],
    "buffers": [{"uri": "model.bin", "byteLength": len(blob)}],
    "bufferViews": [
        {"buffer": 0, "byteOffset": 0, "byteLength": 12 * nv, "target": 34962},
        {"buffer": 0, "byteOffset": 12 * nv, "byteLength": 12 * nv, "target": 34962},
        {"buffer": 0, "byteOffset": 24 * nv, "byteLength": 2 * len(idx), "target": 34963},
    ],
    "accessors": [
        {"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3", "min": mins, "max": maxs},
        {"bufferView": 1, "componentType": 5126, "count": nv, "type": "VEC3"},
        {"bufferView": 2, "componentType": 5123, "count": len(idx), "type": "SCALAR"},
    ],
}
open("model.bin", "wb").write(blob)
open("model.gltf", "w").write(json.dumps(doc, indent=1) + "\n")
