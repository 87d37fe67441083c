#!/usr/bin/env python3
"""Play every fixture scenario through two builds of `sidestep` and print the metrics that differ.

The check behind "exact" optimisations: a change that must not alter behaviour leaves every
fixture's metrics (DESIGN §6) identical, field by field; the avoidance timings are left out.
`tradeshow-1000` is skipped unless `--all` (it takes minutes).

    python3 tools/compare_fixtures.py /tmp/before/sidestep target/release/sidestep

`--scenarios DIR` plays the scenario files of DIR instead (random crowds written by
`cargo run --release --example random_crowds -- LEVEL.json 20 1 2 3 --write DIR --write-only`,
say), and ends with the sums of `reached`, `collisions` and `order_flips` for each build.

Exit status 0 when every fixture matches, 1 otherwise. Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys


def metrics(binary, path):
    out = subprocess.run([binary, "run", path, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    m = json.loads(out.stdout)
    m.pop("avoidance_us_per_frame", None)
    return m


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="sidestep executable")
    parser.add_argument("after", help="sidestep executable")
    parser.add_argument("--all", action="store_true", help="include tradeshow-1000")
    parser.add_argument("--scenarios", metavar="DIR", help="play the scenario files of DIR")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    scenarios = args.scenarios or os.path.join(root, "fixtures", "scenarios")
    differing = 0
    sums = {"before": [0, 0, 0], "after": [0, 0, 0]}
    for name in sorted(os.listdir(scenarios)):
        if not name.endswith(".json") or (name == "tradeshow-1000.json" and not args.all):
            continue
        path = os.path.join(scenarios, name)
        a, b = metrics(args.before, path), metrics(args.after, path)
        for which, m in (("before", a), ("after", b)):
            for i, field in enumerate(("reached", "collisions", "order_flips")):
                sums[which][i] += m.get(field, 0)
        if a != b:
            differing += 1
            changed = {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
            print(f"{name[:-5]}: " + ", ".join(f"{k} {x} -> {y}" for k, (x, y) in changed.items()))
    if args.scenarios:
        for which in ("before", "after"):
            reached, collisions, flips = sums[which]
            print(f"{which}: reached {reached}, collisions {collisions}, order_flips {flips}")
    print(f"{differing} fixture(s) differ")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
