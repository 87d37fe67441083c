#!/usr/bin/env python3
"""Where a run's agents end, from a scenario and its trace.

    target/release/sidestep run SCENARIO.json --trace T.csv
    python3 tools/end_census.py SCENARIO.json T.csv [--map MAP.map]

Prints the states of the trace's last frame (docs/FORMAT.md, "Trace format"), the agents that
end further than their radius from their scenario goal, how many of those never left the
`waiting`/`idle` states, and how far they got: the share of the straight distance from start to
goal they covered, by tenths (negative: further from the goal than they started), and how many of
them had been within their radius of it at some frame (arrived, then gave way: `reached` counts
the last frame only, DESIGN §6) with how far they end from it. With --map (a
MovingAI `.map`, imported with the default 1 m cells), also the map with each agent's last cell
marked: `o` at its goal, `w` waiting, `m` any other state, `#` more than one agent.

Standard library only.
"""

import argparse
import csv
import json
import math
from collections import Counter


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="the scenario file that was played")
    parser.add_argument("trace", help="its trace (sidestep run --trace)")
    parser.add_argument("--map", help="the MovingAI map the scenario was imported from")
    args = parser.parse_args()

    with open(args.scenario) as f:
        agents = json.load(f)["agents"]
    last = {}
    moved = set()
    been_there = set()
    with open(args.trace) as f:
        for row in csv.DictReader(f):
            i = int(row["agent"])
            last[i] = row
            if row["state"] not in ("waiting", "idle"):
                moved.add(i)
            goal = agents[i].get("goal")
            if goal is not None and i not in been_there:
                left = math.hypot(goal[0] - float(row["x"]), goal[1] - float(row["y"]))
                if left <= agents[i].get("radius", 0.4):
                    been_there.add(i)

    states = Counter(row["state"] for row in last.values())
    print("states at the end:", dict(sorted(states.items())))
    away, never, covered, pushed_off = [], 0, Counter(), []
    marks = {}
    for i, row in sorted(last.items()):
        a = agents[i]
        if "goal" not in a:
            continue
        x, y = float(row["x"]), float(row["y"])
        goal, start = a["goal"], a["start"]
        left = math.hypot(goal[0] - x, goal[1] - y)
        arrived = left <= a.get("radius", 0.4)
        mark = "o" if arrived else ("w" if row["state"] == "waiting" else "m")
        cell = (int(math.floor(x)), int(math.floor(y)))
        marks[cell] = "#" if cell in marks else mark
        if arrived:
            continue
        away.append(i)
        if i not in moved:
            never += 1
        if i in been_there:
            pushed_off.append(left)
        straight = math.hypot(goal[0] - start[0], goal[1] - start[1])
        covered[math.floor(10 * (1 - left / straight)) if straight > 0 else 0] += 1
    print(f"away from their goals: {len(away)}, of which never moved: {never}")
    print("share of the straight distance covered, by tenths:", dict(sorted(covered.items())))
    print(
        f"of those, at their goal at some frame and pushed off it: {len(pushed_off)}, ending",
        ", ".join(f"{d:.2f}" for d in sorted(pushed_off)) or "-",
        "m from it",
    )

    if args.map:
        with open(args.map) as f:
            lines = [line.rstrip("\n") for line in f]
        rows = lines[lines.index("map") + 1:]
        height = len(rows)
        for r, line in enumerate(rows):
            y = height - 1 - r  # the importer flips y: the map's first row is the top
            print("".join(marks.get((x, y), ch) if ch == "." else ch for x, ch in enumerate(line)))


if __name__ == "__main__":
    main()
