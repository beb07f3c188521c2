"""Writes landscape.png: a procedural photograph-like RGBA8 test image (sky, sun, hills,
textured ground, a soft shadow, grain) for `rendergen conv`. Usage: python3 make_landscape.py W H OUT."""
import math, struct, sys, zlib

def h(x, y, s):
    v = (x * 0x9E3779B9 ^ y * 0x85EBCA6B ^ s) & 0xFFFFFFFF
    v ^= v >> 15; v = (v * 0x2C1B3C6D) & 0xFFFFFFFF; v ^= v >> 12
    return v & 0xFF

def noise(x, y, cell, s):
    gx, gy = x // cell, y // cell
    fx, fy = (x % cell) / cell, (y % cell) / cell
    sx, sy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    a, b = h(gx, gy, s), h(gx + 1, gy, s)
    c, d = h(gx, gy + 1, s), h(gx + 1, gy + 1, s)
    return ((a * (1 - sx) + b * sx) * (1 - sy) + (c * (1 - sx) + d * sx) * sy) / 255

def pixel(x, y, w, hgt):
    fx, fy = x / w, y / hgt
    horizon = 0.55 + 0.07 * math.sin(fx * 7 + 1) + 0.05 * noise(x, y, max(2, w // 8), 3)
    if fy < horizon:
        r, g, b = 95 + 110 * fy, 145 + 75 * fy, 235 - 50 * fy
        cloud = max(0.0, noise(x, y, max(2, w // 6), 5) - 0.55) * 2.2
        r, g, b = (c + (250 - c) * cloud for c in (r, g, b))
    else:
        n = noise(x, y, max(2, w // 16), 9)
        r, g, b = 60 + 70 * n, 105 + 90 * n, 35 + 35 * n
        if abs(fx - 0.3) < 0.08 and fy > 0.7:  # a dark post with a hard edge
            r, g, b = 50, 35, 25
    d = math.hypot(fx - 0.72, fy - 0.22)
    sun = max(0.0, 1 - d / 0.12)
    r, g, b = r + (255 - r) * sun, g + (242 - g) * sun, b + (190 - b) * sun
    grain = h(x, y, 1) / 255 * 10 - 5
    c = lambda v: max(0, min(255, round(v + grain)))
    a = 255 if fx + fy > 0.25 else 140 + (h(y, x, 2) & 63)
    return bytes((c(r), c(g), c(b), a))

def main():
    w, hgt, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    raw = b"".join(b"\0" + b"".join(pixel(x, y, w, hgt) for x in range(w)) for y in range(hgt))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, hgt, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(out, "wb").write(png)

main()
