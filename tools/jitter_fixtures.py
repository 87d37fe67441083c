#!/usr/bin/env python3
"""Play crowd fixtures with every start jittered by up to a centimetre, and sum the metrics.

A crowd's outcome is chaotic: one fixture run can pass or fail by luck. This plays each fixture
as committed (seed 0) and with seeded jitter (seeds 1..N-1), through one or more builds of
`sidestep`, and prints per build and fixture: agents arrived / agents, order flips and
collisions, summed over the runs, and the mean over the runs of the travel time ratio.

    python3 tools/jitter_fixtures.py --runs 16 target/release/sidestep /tmp/other/sidestep

`--first-seed N` plays seeds N to N + runs - 1 instead (more samples of a chaotic crowd),
`--fixtures` also takes scenario files by path (an imported real level, say), and `--dt T`
plays every run at a time step of T seconds instead of the file's.

With --contacts, every run with a collision is also printed (build, fixture, seed, collisions,
largest penetration), to be replayed with --keep DIR, which keeps the scenario files there
(FIXTURE-SEED.json) instead of a temporary directory.

Standard library only. The jittered scenario files go to a temporary directory.
"""

import argparse
import json
import os
import random
import subprocess
import tempfile

FIXTURES = [
    "bottleneck",
    "circle-rail",
    "doorway-crowd",
    "arena-200",
    "corridor-two-way",
    "doorway-two-way",
    "crossroads-4-way",
    "tradeshow-300",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+", help="sidestep executables to compare")
    parser.add_argument("--runs", type=int, default=6, help="runs per fixture (default 6)")
    parser.add_argument("--jitter", type=float, default=0.01, help="metres (default 0.01)")
    parser.add_argument(
        "--fixtures",
        default=",".join(FIXTURES),
        help="fixture names, or paths of scenario files (e.g. an imported /tmp/den312d-500.json)",
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="play seeds FIRST..FIRST+RUNS-1 (seed 0 is the file as it is; default 0)",
    )
    parser.add_argument("--dt", type=float, help="time step of every run, seconds (default: the file's)")
    parser.add_argument("--contacts", action="store_true", help="print every run with a collision")
    parser.add_argument("--keep", metavar="DIR", help="write the scenario files to DIR and keep them")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    scenarios = os.path.join(root, "fixtures", "scenarios")
    totals = {b: {} for b in args.binaries}
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or scratch
        for name in args.fixtures.split(","):
            file = name if name.endswith(".json") else os.path.join(scenarios, name + ".json")
            name = os.path.basename(file)[: -len(".json")]
            base = json.load(open(file))
            if isinstance(base["level"], str):
                folder = os.path.dirname(os.path.abspath(file))
                base["level"] = os.path.normpath(os.path.join(folder, base["level"]))
            for seed in range(args.first_seed, args.first_seed + args.runs):
                scenario = json.loads(json.dumps(base))
                if args.dt:
                    scenario["dt"] = args.dt
                rng = random.Random(seed)
                if seed > 0:
                    for agent in scenario["agents"]:
                        agent["start"] = [
                            c + rng.uniform(-args.jitter, args.jitter) for c in agent["start"]
                        ]
                path = os.path.join(tmp, f"{name}-{seed}.json")
                with open(path, "w") as f:
                    json.dump(scenario, f)
                for binary in args.binaries:
                    out = subprocess.run(
                        [binary, "run", path, "--json"], capture_output=True, text=True
                    )
                    m = json.loads(out.stdout)
                    t = totals[binary].setdefault(name, [0, 0, 0, 0, 0.0, 0])
                    t[0] += m["reached"]
                    t[1] += m["agents"]
                    t[2] += m["order_flips"]
                    t[3] += m["collisions"]
                    t[4] += m["travel_time_ratio"]
                    t[5] += 1
                    if args.contacts and m["collisions"]:
                        print(
                            f"contact: {binary} {name} seed {seed}: {m['collisions']} collision(s),"
                            f" max penetration {m['max_penetration']:.3f} ({path})",
                            flush=True,
                        )
    for binary, per in totals.items():
        print(binary)
        for name, (reached, agents, flips, collisions, ratios, runs) in per.items():
            print(
                f"  {name:18} {reached:5}/{agents:<5} flips {flips:4} collisions {collisions}"
                f" ratio {ratios / runs:.2f}"
            )


if __name__ == "__main__":
    main()
