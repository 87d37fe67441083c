#!/usr/bin/env python3
"""Write the street-grid fixture levels `city` and `city-small` in fixtures/levels/ (DESIGN §5).

Run from the repository root: `python3 tools/make_city_levels.py`. Deterministic (a fixed-seed
LCG, no other input), so running it again rewrites the same files.

Both levels are the same street pattern: cells of 25 m x 25 m, each holding one building block
(a hole) of jittered size and offset, some blocks cut in two by a 2.5 m alley; streets between
blocks come out 4.5 to about 15 m wide, the lanes along the outer wall at least 2.3 m. The blocks are then scaled about their centres so that
the walkable area is a fixed share of the level:

- `city`: 10 x 10 cells, 250 m x 250 m, 40,000 m^2 walkable: 10,000 agents at 0.25 agents per
  walkable m^2 (the crowd of issue 6's benches);
- `city-small`: 5 x 2 cells, 125 m x 50 m (a tenth of the area), 4,000 m^2 walkable: 1,000
  agents at the same 0.25 per m^2, for the scaling check (ns per agent at 10,000 against 1,000).
"""
import json
import os

OUT = "fixtures/levels"
CELL = 25.0
WALKABLE_SHARE = 0.64  # 40,000 of 62,500 m^2

state = 0


def seed(value):
    global state
    state = value


def rand():
    """Uniform in [0, 1), from a 64-bit LCG (Knuth's MMIX constants)."""
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state >> 11) / float(1 << 53)


def r(v):
    return round(v, 3)


def rect(x0, y0, x1, y1):
    return [[r(x0), r(y0)], [r(x1), r(y0)], [r(x1), r(y1)], [r(x0), r(y1)]]


def area(ring):
    n = len(ring)
    return abs(sum(ring[i][0] * ring[(i + 1) % n][1] - ring[(i + 1) % n][0] * ring[i][1]
                   for i in range(n))) / 2


def blocks(columns, rows, level_seed):
    """Per cell: centre, half sizes (before scaling) and whether an alley cuts it (and which way)."""
    seed(level_seed)
    out = []
    for j in range(rows):
        for i in range(columns):
            cx = (i + 0.5) * CELL + (rand() - 0.5) * 3.0
            cy = (j + 0.5) * CELL + (rand() - 0.5) * 3.0
            hw = 0.5 * (12.0 + rand() * 6.0)
            hh = 0.5 * (12.0 + rand() * 6.0)
            cut = rand()
            alley = "x" if cut < 0.15 else ("y" if cut < 0.3 else None)
            out.append((cx, cy, hw, hh, alley))
    return out


ALLEY = 2.5


def holes_of(cells, scale):
    holes = []
    for cx, cy, hw, hh, alley in cells:
        w, h = hw * scale, hh * scale
        if alley == "x":  # an alley along y, splitting the block left and right
            holes.append(rect(cx - w, cy - h, cx - ALLEY / 2, cy + h))
            holes.append(rect(cx + ALLEY / 2, cy - h, cx + w, cy + h))
        elif alley == "y":
            holes.append(rect(cx - w, cy - h, cx + w, cy - ALLEY / 2))
            holes.append(rect(cx - w, cy + ALLEY / 2, cx + w, cy + h))
        else:
            holes.append(rect(cx - w, cy - h, cx + w, cy + h))
    return holes


def make(name, columns, rows, level_seed):
    width, height = columns * CELL, rows * CELL
    target = WALKABLE_SHARE * width * height
    cells = blocks(columns, rows, level_seed)

    def walkable(scale):
        return width * height - sum(area(h) for h in holes_of(cells, scale))

    lo, hi = 0.5, 1.5  # walkable area falls as the scale grows
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if walkable(mid) > target:
            lo = mid
        else:
            hi = mid
    scale = 0.5 * (lo + hi)
    holes = holes_of(cells, scale)
    level = {"name": name, "boundary": rect(0, 0, width, height), "holes": holes}
    path = os.path.join(OUT, name + ".json")
    with open(path, "w") as f:
        f.write("{\n")
        f.write(f'  "name": {json.dumps(name)},\n')
        f.write(f'  "boundary": {json.dumps(level["boundary"])},\n')
        f.write('  "holes": [\n')
        for k, ring in enumerate(holes):
            f.write("    " + json.dumps(ring) + ("," if k + 1 < len(holes) else "") + "\n")
        f.write("  ]\n}\n")
    print(f"{path}: {width:g} m x {height:g} m, {len(holes)} blocks, "
          f"walkable {walkable(scale):.0f} m^2 (scale {scale:.4f})")


make("city", 10, 10, 20260601)
make("city-small", 5, 2, 20260602)
