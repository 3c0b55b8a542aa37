"""Rebuild world_110m.json from Natural Earth's 1:110m Admin 0 countries shapefile.

Maintainer step, not run by the workshop. Natural Earth data is in the public domain;
any copy of `ne_110m_admin_0_countries.shp` (v4.1.0 was used) works:

    python workshop_lib/data/build_world_outline.py path/to/ne_110m_admin_0_countries.shp

Only polygon outlines are kept, rounded to 0.1 degree (a world map for a notebook
figure needs no more), as a list of rings of [longitude, latitude] pairs.
"""
from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

POLYGON = 5  # ESRI shapefile shape type


def rings(shp: bytes) -> list[list[list[float]]]:
    out = []
    pos = 100  # fixed-size file header
    while pos < len(shp):
        _, length = struct.unpack(">ii", shp[pos:pos + 8])  # record header is big-endian
        body = shp[pos + 8:pos + 8 + 2 * length]  # length counts 16-bit words
        pos += 8 + 2 * length
        if struct.unpack("<i", body[:4])[0] != POLYGON:
            continue
        n_parts, n_points = struct.unpack("<ii", body[36:44])
        parts = list(struct.unpack(f"<{n_parts}i", body[44:44 + 4 * n_parts])) + [n_points]
        start = 44 + 4 * n_parts
        points = struct.unpack(f"<{2 * n_points}d", body[start:start + 16 * n_points])
        for a, b in zip(parts, parts[1:]):
            ring = [[round(points[2 * i], 1), round(points[2 * i + 1], 1)] for i in range(a, b)]
            out.append([p for j, p in enumerate(ring) if j == 0 or p != ring[j - 1]])
    return out


if __name__ == "__main__":
    data = rings(Path(sys.argv[1]).read_bytes())
    target = Path(__file__).with_name("world_110m.json")
    target.write_text(json.dumps(data, separators=(",", ":")))
    print(f"wrote {len(data)} rings to {target}")
