#!/usr/bin/env python3
"""How a run's agents use a corridor, from its trace: crossings of a line and occupancy of a box.

    target/release/sidestep run SCENARIO.json --trace T.csv
    python3 tools/corridor_flow.py T.csv --box X0,X1,Y0,Y1 [--across y|x] [--bin SECONDS]

The box is the corridor (x from X0 to X1, y from Y0 to Y1). Crossings are counted where an
agent's centre passes the box's middle line between two frames, within the box's extent widened
by half a metre: with `--across y` (the default) the line y = (Y0 + Y1) / 2, counted southbound
(y falling) and northbound; with `--across x` the line x = (X0 + X1) / 2, westbound and
eastbound. Per time bin (default 10 s) it prints the crossings each way, the mean number of
agents inside the box, and their mean speed (m/s, from the positions of consecutive frames).
Back-and-forth crossings all count.

Standard library only.
"""

import argparse
import csv
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="a trace from `sidestep run --trace`")
    parser.add_argument("--box", required=True, help="X0,X1,Y0,Y1 metres: the corridor")
    parser.add_argument("--across", choices=["x", "y"], default="y",
                        help="the coordinate the corridor runs along (default y)")
    parser.add_argument("--bin", type=float, default=10.0, help="seconds per row (default 10)")
    args = parser.parse_args()
    x0, x1, y0, y1 = (float(v) for v in args.box.split(","))
    names = ("south", "north") if args.across == "y" else ("west", "east")

    previous = {}
    crossings = defaultdict(lambda: [0, 0])
    occupancy = defaultdict(lambda: [0, 0.0])  # agent-frames inside, summed speed
    frames_in_bin = defaultdict(set)
    with open(args.trace) as f:
        for row in csv.DictReader(f):
            frame, agent = int(row["frame"]), int(row["agent"])
            t, x, y = float(row["time"]), float(row["x"]), float(row["y"])
            b = int(t // args.bin)
            frames_in_bin[b].add(frame)
            if agent in previous:
                px, py, pt = previous[agent]
                if args.across == "y":
                    line = 0.5 * (y0 + y1)
                    if (py - line) * (y - line) < 0 and x0 - 0.5 <= x <= x1 + 0.5:
                        crossings[b][0 if y < py else 1] += 1
                else:
                    line = 0.5 * (x0 + x1)
                    if (px - line) * (x - line) < 0 and y0 - 0.5 <= y <= y1 + 0.5:
                        crossings[b][0 if x < px else 1] += 1
                if x0 <= x <= x1 and y0 <= y <= y1 and t > pt:
                    occupancy[b][0] += 1
                    occupancy[b][1] += ((x - px) ** 2 + (y - py) ** 2) ** 0.5 / (t - pt)
            previous[agent] = (x, y, t)

    print(f"{'seconds':>11}  {names[0]:>6} {names[1]:>6}  {'inside':>6}  {'speed':>5}")
    totals = [0, 0]
    for b in sorted(frames_in_bin):
        a, c = crossings[b]
        totals[0] += a
        totals[1] += c
        n, speed = occupancy[b]
        frames = len(frames_in_bin[b])
        inside = n / frames if frames else 0.0
        mean = speed / n if n else 0.0
        print(f"{b * args.bin:5.0f}-{(b + 1) * args.bin:<5.0f}  {a:6d} {c:6d}  {inside:6.1f}  {mean:5.2f}")
    print(f"{'all':>11}  {totals[0]:6d} {totals[1]:6d}")


if __name__ == "__main__":
    main()
