#!/usr/bin/env python3
"""Regenerate the fixture levels in fixtures/levels/ (deterministic; run from the repo root).

The levels are small hand-designed test scenes; plaza's obstacles come from a fixed-seed LCG.
"""
import json, math, os

OUT = "fixtures/levels"

def rect(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

def r(v):
    return round(v, 3)

def write(level):
    path = os.path.join(OUT, level["name"] + ".json")
    with open(path, "w") as f:
        # One ring per line keeps the files readable and diffable.
        f.write("{\n")
        f.write(f'  "name": {json.dumps(level["name"])},\n')
        keys = [k for k in level if k != "name"]
        for i, k in enumerate(keys):
            v = level[k]
            comma = "," if i + 1 < len(keys) else ""
            if k in ("holes", "polygons"):
                f.write(f'  "{k}": [\n')
                for j, ring in enumerate(v):
                    f.write("    " + json.dumps(ring) + ("," if j + 1 < len(v) else "") + "\n")
                f.write(f"  ]{comma}\n")
            else:
                f.write(f'  "{k}": {json.dumps(v)}{comma}\n')
        f.write("}\n")

write({"name": "open-field", "boundary": rect(0, 0, 30, 30)})
write({"name": "corridor", "boundary": rect(0, 0, 30, 2.4)})
# Wide enough for two 0.4 m agents to pass (1.2 m between lines by the walls), too narrow for
# one to stand off the other's way by the start check's clearance.
write({"name": "corridor-2m", "boundary": rect(0, 0, 30, 2)})
# A stander by one wall leaves 0.95 m beside it: a 5 cm window for the centre of a 0.4 m agent
# keeping the margins.
write({"name": "corridor-1.8m", "boundary": rect(0, 0, 30, 1.8)})
# Room for a 0.4 m agent to pass another walking its middle line (0.9 m apart, 0.4 m from the
# wall).
write({"name": "corridor-3m", "boundary": rect(0, 0, 30, 3)})
write({"name": "doorway", "boundary": rect(0, 0, 20, 10),
       "holes": [rect(9.5, 0, 10.5, 4.4), rect(9.5, 5.6, 10.5, 10)]})
write({"name": "crossroads", "boundary": [
    [13.5, 0], [16.5, 0], [16.5, 13.5], [30, 13.5], [30, 16.5], [16.5, 16.5],
    [16.5, 30], [13.5, 30], [13.5, 16.5], [0, 16.5], [0, 13.5], [13.5, 13.5]]})
write({"name": "pillar-hall", "boundary": rect(0, 0, 20, 20),
       "holes": [rect(c - 0.5, d - 0.5, c + 0.5, d + 0.5) for d in (5, 10, 15) for c in (5, 10, 15)]})
write({"name": "l-corner", "boundary": [[0, 0], [20, 0], [20, 20], [17.5, 20], [17.5, 2.5], [0, 2.5]]})
# A 0.9 m corridor with a 1 m square alcove: the alcove holds a 0.4 m agent 0.9 m (the radii and
# margins) off the corridor's middle only in a 0.2 by 0.09 m patch at its back.
write({"name": "narrow-alcove-1m", "boundary": [[0, 0], [20, 0], [20, 0.9], [5.5, 0.9], [5.5, 1.9], [4.5, 1.9], [4.5, 0.9], [0, 0.9]]})
write({"name": "narrow-alcove", "boundary": [[0, 0], [20, 0], [20, 1], [11, 1], [11, 3], [9, 3], [9, 1], [0, 1]]})
# Two 6 x 6 m rooms joined by a corridor 20 m long and 1 m wide (one lane for 0.4 m agents).
write({"name": "long-corridor", "boundary": [
    [0, 0], [6, 0], [6, 2.5], [26, 2.5], [26, 0], [32, 0], [32, 6], [26, 6], [26, 3.5], [6, 3.5],
    [6, 6], [0, 6]]})

# plaza: 60 x 60 with scattered obstacles (boxes, rotated boxes, octagonal planters), placed by a
# fixed LCG with at least 2.5 m between obstacle discs so every part stays connected.
state = 20261122
def rand():
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return (state >> 11) / float(1 << 53)

holes, discs = [], []
attempts = 0
while len(holes) < 28 and attempts < 10000:
    attempts += 1
    kind = len(holes) % 3
    size = 0.8 + rand() * 2.2
    cx, cy = 4 + rand() * 52, 4 + rand() * 52
    reach = size * 0.75 if kind != 0 else size * math.sqrt(2) * 0.5 * 1.6
    if any(math.hypot(cx - x, cy - y) < reach + rr + 2.5 for x, y, rr in discs):
        continue
    discs.append((cx, cy, reach))
    if kind == 0:   # axis-aligned box, up to 1.6:1
        w, h = size * 0.5 * 1.6, size * 0.5
        holes.append([[r(cx - w), r(cy - h)], [r(cx + w), r(cy - h)], [r(cx + w), r(cy + h)], [r(cx - w), r(cy + h)]])
    elif kind == 1:  # rotated square
        a = rand() * math.pi / 2
        ring = []
        for k in range(4):
            t = a + k * math.pi / 2
            ring.append([r(cx + size * 0.7 * math.cos(t)), r(cy + size * 0.7 * math.sin(t))])
        holes.append(ring)
    else:            # octagonal planter
        ring = []
        for k in range(8):
            t = k * math.pi / 4 + math.pi / 8
            ring.append([r(cx + size * 0.7 * math.cos(t)), r(cy + size * 0.7 * math.sin(t))])
        holes.append(ring)
write({"name": "plaza", "boundary": rect(0, 0, 60, 60), "holes": holes})

# rooms-passage (session 48): two 12 x 10 m rooms, one north of the other, joined by a passage
# 3 m wide and 4 m long (x 4.5 to 7.5, y 10 to 14), as den312d's halves are.
write({"name": "rooms-passage",
       "vertices": [[0, 0], [12, 0], [12, 10], [7.5, 10], [4.5, 10], [0, 10],
                    [7.5, 14], [4.5, 14], [0, 14], [12, 14], [12, 24], [0, 24]],
       "polygons": [[0, 1, 2, 3, 4, 5], [4, 3, 6, 7], [8, 7, 6, 9, 10, 11]]})

# mesh-rooms: the explicit polygon form, two rooms joined by a 1.5 m passage.
write({"name": "mesh-rooms",
       "vertices": [[0, 0], [6, 0], [6, 2.25], [6, 3.75], [6, 6], [0, 6],
                    [9, 2.25], [9, 3.75], [9, 0], [15, 0], [15, 6], [9, 6]],
       "polygons": [[0, 1, 2, 3, 4, 5], [2, 6, 7, 3], [8, 9, 10, 11, 7, 6]]})
