#!/usr/bin/env python3
"""A lower bound on the mean travel time ratio of a crowd that must pass one door one at a time.

Every agent walks from its start to the door point and on to its goal (straight lines: the
shortest way, so the free travel time is no longer than its rail's), at `--speed` m/s (default
1.4, the fixtures' preferred speed), starting `--start` s late (the start transition, default
0.3 s). The door lets one agent through every `--gap` seconds: two agents in single file keep
their centres both radii and both margins apart (0.4 m agents, 0.05 m margins: 0.9 m, 0.64 s
at 1.4 m/s; default 0.65). The ratio's free travel time is at `--preferred` m/s (default the
walking speed: the metric's, DESIGN §6, is the rail length at the preferred speed). Agents go
through in the order they could reach the door, each as
soon as both it and the door are free: no schedule does better, and agents going opposite ways
through one door would also need it empty between them, so the true bound is higher still.

    python3 tools/door_bound.py fixtures/scenarios/bottleneck.json --door 10,5

Prints the bound per scenario. Standard library only.
"""

import argparse
import json
import math


def bound(path, door, speed, gap, start, preferred):
    with open(path) as f:
        scenario = json.load(f)
    legs = [
        (math.dist(a["start"], door), math.dist(door, a["goal"]))
        for a in scenario["agents"]
        if "goal" in a
    ]
    ratios = []
    free_at = -math.inf
    for to_door, on in sorted(legs):
        through = max(to_door / speed + start, free_at + gap)
        free_at = through
        ratios.append((through + on / speed) / ((to_door + on) / preferred))
    return len(legs), sum(ratios) / len(ratios)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="+", help="scenario files")
    parser.add_argument("--door", required=True, help="the door point, X,Y in metres")
    parser.add_argument("--speed", type=float, default=1.4, help="walking speed, m/s")
    parser.add_argument("--gap", type=float, default=0.65, help="seconds between agents")
    parser.add_argument("--start", type=float, default=0.3, help="start delay, seconds")
    parser.add_argument(
        "--preferred",
        type=float,
        help="the metric's speed (its free travel time), m/s; default --speed",
    )
    args = parser.parse_args()
    door = tuple(float(v) for v in args.door.split(","))
    for path in args.scenarios:
        preferred = args.preferred or args.speed
        count, mean = bound(path, door, args.speed, args.gap, args.start, preferred)
        print(f"{path}: {count} agents, mean travel time ratio >= {mean:.2f}")


if __name__ == "__main__":
    main()
