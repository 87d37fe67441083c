#!/usr/bin/env python3
"""How much of a run the jam release took over, from a scenario and its trace.

    target/release/sidestep run SCENARIO.json --trace T.csv
    python3 tools/release_census.py SCENARIO.json T.csv [--away]

Prints the `release` and `rejoin` orders of the trace (docs/FORMAT.md, "Traces") and the share
of the agent-frames spent away from the agent's scenario goal (further than its radius) that
were free-steered, between a release and the next rejoin (docs/ALGORITHM.md, "Jam release").
With --away, also every agent that ends the run further than its radius from its scenario goal:
its releases and rejoins, its last state and position, and its distance to the goal (a goal
moved to a free spot counts as away, so the list can be longer than the agents not reached).

Standard library only.
"""

import argparse
import csv
import json
import math


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="the scenario file that was played")
    parser.add_argument("trace", help="its trace (sidestep run --trace)")
    parser.add_argument("--away", action="store_true", help="list agents ending away from their goals")
    args = parser.parse_args()

    with open(args.scenario) as f:
        agents = json.load(f)["agents"]
    released = set()
    counts = {}
    last = {}
    free_frames = rail_frames = releases = rejoins = 0
    with open(args.trace) as f:
        for row in csv.DictReader(f):
            a = int(row["agent"])
            last[a] = row
            order = row["order"]
            if order.startswith("release"):
                released.add(a)
                releases += 1
                counts.setdefault(a, [0, 0])[0] += 1
            elif order.startswith("rejoin"):
                released.discard(a)
                rejoins += 1
                counts.setdefault(a, [0, 0])[1] += 1
            goal = agents[a].get("goal")
            if goal is None:
                continue
            away = math.hypot(float(row["x"]) - goal[0], float(row["y"]) - goal[1])
            if away <= agents[a]["radius"]:
                continue
            if a in released:
                free_frames += 1
            else:
                rail_frames += 1
    total = free_frames + rail_frames
    share = free_frames / total if total else 0.0
    print(f"releases {releases}, rejoins {rejoins}, agents released {len(counts)}")
    print(f"agent-frames away from the goal: free {free_frames}, on rails {rail_frames}, free share {share:.2f}")
    if args.away:
        for a, row in sorted(last.items()):
            goal = agents[a].get("goal")
            if goal is None:
                continue
            away = math.hypot(float(row["x"]) - goal[0], float(row["y"]) - goal[1])
            if away > agents[a]["radius"]:
                r, j = counts.get(a, [0, 0])
                print(f"agent {a}: {away:.2f} m from its goal, {row['state']} at ({row['x']}, {row['y']}), "
                      f"releases {r}, rejoins {j}")


if __name__ == "__main__":
    main()
