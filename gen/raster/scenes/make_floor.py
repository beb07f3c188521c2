"""Generates floor.png: a 64 x 64 RGBA8 stone-tile texture (2 x 2 tiles with grout lines and
a deterministic speckle) for the many-lights example scene's floor.
Run: python3 make_floor.py (the output is committed)."""
import struct, zlib

N = 64

def texel(x, y):
    grout = x % 32 in (0, 31) or y % 32 in (0, 31)
    if grout:
        return (70, 66, 60, 255)
    tile = (x // 32 + y // 32) % 2
    base = (196, 184, 160) if tile == 0 else (150, 156, 166)
    # deterministic speckle: a small integer hash of the texel position
    h = (x * 73856093 ^ y * 19349663) & 0xFFFF
    d = (h % 23) - 11
    return tuple(max(0, min(255, c + d)) for c in base) + (255,)

raw = b"".join(b"\x00" + bytes(c for x in range(N) for c in texel(x, y)) for y in range(N))

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", N, N, 8, 6, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
open("floor.png", "wb").write(png)
