"""A world map for Part 1's port figure: land outlines that ship with the package
(Natural Earth 1:110m, public domain; see data/build_world_outline.py) and labels
placed so that they do not overlap."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.patches import Polygon
from matplotlib.transforms import Bbox

WORLD = Path(__file__).with_name("world_110m.json")
# Label positions tried in turn, in points from the marker: right, left, above, below, diagonals.
OFFSETS = [(4, 2), (-4, 2), (0, 6), (0, -9), (5, 7), (-5, 7), (5, -9), (-5, -9), (9, -2), (-9, -2)]


@lru_cache(maxsize=1)
def world_rings() -> list[list[list[float]]]:
    return json.loads(WORLD.read_text())


def draw_land(ax) -> None:
    for ring in world_rings():
        ax.add_patch(Polygon(ring, closed=True, facecolor="#e8e4da", edgecolor="#a8a294", linewidth=0.4, zorder=0))


def place_labels(ax, xs, ys, labels, fontsize: int = 7) -> None:
    """Annotate each point with the first offset whose label box overlaps no other label."""
    fig = ax.figure
    fig.canvas.draw()  # a renderer is needed to measure text
    renderer = fig.canvas.get_renderer()
    # Markers count as taken too, so no label hides a neighbouring port.
    taken = [Bbox.from_extents(px - 3, py - 3, px + 3, py + 3)
             for px, py in ax.transData.transform(list(zip(xs, ys)))]
    for x, y, label in zip(xs, ys, labels):
        for dx, dy in OFFSETS:
            ha = "left" if dx > 0 else "right" if dx < 0 else "center"
            text = ax.annotate(label, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize, ha=ha)
            box = text.get_window_extent(renderer).expanded(1.05, 1.1)
            if not any(box.overlaps(other) for other in taken):
                taken.append(box)
                break
            text.remove()
        else:  # nowhere free: keep the first position rather than drop the label
            ax.annotate(label, (x, y), xytext=OFFSETS[0], textcoords="offset points", fontsize=fontsize)


def port_map(ports, *, title: str = "SUPPLYCHAIN ports", ax=None):
    """Ports (a frame with LONGITUDE, LATITUDE, UNLOCODE) on a world map."""
    if ax is None:
        _, ax = plt.subplots(figsize=(12, 5.5))
    draw_land(ax)
    ax.scatter(ports.LONGITUDE, ports.LATITUDE, s=22, color="tab:blue", zorder=3)
    ax.set(xlim=(-180, 180), ylim=(-58, 78), xlabel="longitude", ylabel="latitude", title=title)
    ax.set_aspect("equal")
    ax.set_facecolor("#f4f8fb")
    place_labels(ax, ports.LONGITUDE, ports.LATITUDE, ports.UNLOCODE)
    return ax
