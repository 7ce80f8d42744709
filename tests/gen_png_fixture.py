#!/usr/bin/env python3
"""gen_png_fixture.py - make tests/data/png/title_strip.png for test_pngout.

A 300 x 50 crop (columns 200-499, rows 0-49) of a real attnviz figure: the
title of head 1 from the command below, anti-aliased text on white. Its
pixels are what test_bytes_do_not_depend_on_where_the_state_lives encodes
with igzip's state at 8192 addresses: text like this is where ISA-L 2.30's
address-dependent hash changed the bytes (see first_bytes_apart in
src/render/pngout.c). The file is written with filter 0 and zlib, from
Python's standard library only.

Usage: python3 tests/gen_png_fixture.py [ATTNVIZ]   (default ./attnviz)
"""
import os, struct, subprocess, sys, tempfile, zlib

X0, Y0, W, H = 200, 0, 300, 50
CMD = ["-q", "--heads", "2", "--pad-to", "6", "--causal", "-o"]
TEXT = "我爱 naïve you"


def read_rgb(path):
    b = open(path, "rb").read()
    i, idat, hdr = 8, b"", None
    while i < len(b):
        n = struct.unpack(">I", b[i:i + 4])[0]
        t = b[i + 4:i + 8]
        if t == b"IHDR":
            hdr = b[i + 8:i + 8 + n]
        elif t == b"IDAT":
            idat += b[i + 8:i + 8 + n]
        i += 12 + n
    w, h, depth, ctype = struct.unpack(">IIBB", hdr[:10])
    assert depth == 8 and ctype == 2, "8-bit RGB expected"
    raw, st = zlib.decompress(idat), w * 3
    rows = []
    for y in range(h):
        assert raw[y * (st + 1)] == 0, "attnviz writes filter 0 only"
        rows.append(raw[y * (st + 1) + 1:(y + 1) * (st + 1)])
    return w, h, rows


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "./attnviz"
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([exe] + CMD + [d, TEXT], check=True)
        w, h, rows = read_rgb(os.path.join(d, "head1.png"))
    assert w >= X0 + W and h >= Y0 + H
    data = b"".join(b"\0" + rows[y][X0 * 3:(X0 + W) * 3] for y in range(Y0, Y0 + H))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(data, 9)) + chunk(b"IEND", b"")
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "png", "title_strip.png")
    open(out, "wb").write(png)
    print("wrote", out, len(png), "bytes")


main()
