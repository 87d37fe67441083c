#!/usr/bin/env python3
"""Write the probe scenarios behind docs/ROBUSTNESS.md, sessions 32 ("What the real levels'
crowds are not sensitive to"), 33 (the aisle), 42 (the queue), 43 (the idle wall) and 44 (small
agents at other time steps), to be played with `sidestep run FILE --json`.

    python3 tools/crowd_probes.py subset fixtures/scenarios/tradeshow-1000.json 300 500 700 --out DIR
        the first N agents of a scenario (the load sweep): DIR/NAME-N.json
    python3 tools/crowd_probes.py fields --out DIR
        on `open-field`, 0.19 m agents in the 20 x 20 m square from (5, 5):
        DIR/field-D.json: 10 walkers crossing agents standing (`stationary`) at D per m²
        (D = 20, 35, 50 hundredths); DIR/KIND-D.json: agents at D per m² (30, 50) that all walk,
        KIND `random` (goals more than 8 m away), `twoway` (half east, half west) or `east`
    python3 tools/crowd_probes.py aisle --out DIR [--agents N] [--seeds K]
        DIR/aisle-level.json: two 4 x 4 m booths leaving a 2.3 m aisle (x 4.2 to 6.5, y -2
        to 2) in a 17 x 16 m hall; DIR/aisle48-S.json (S = 1..K, default 25): N (default 48)
        0.19 m agents, every other one from the south end of the hall to the north end and the
        others back, starts and goals at random (seeded by S), 90 s
    python3 tools/crowd_probes.py queue --out DIR [--gaps G ...]
        on `open-field`, eight 0.4 m agents in a line along y = 3 from x = 1, G metres apart
        (default 0.95 1.1 1.3 1.6 2.0), all going east 10 m from rest: DIR/queue-G.json, the
        queue start of docs/ROBUSTNESS.md, session 42 (`sidestep run FILE --trace T` gives each
        agent's start order)
    python3 tools/crowd_probes.py idle-wall --out DIR
        in `corridor-3m`, four 0.4 m agents with nowhere to go (each arrived 2 cm from its
        start) standing as a wall across the corridor at x 16.9 to 19.9, and one walker to
        (13.842, 1.367) from x = 20.65, 22.4, 24.0 or 28.795: DIR/idle-wall-X.json, the stall
        of docs/ROBUSTNESS.md, session 43 (from 20.65 the walker never gets through)
    python3 tools/crowd_probes.py lines --out DIR [--radii-apart K ...]
        on `open-field`, 40 agents of radius R (0.1, 0.15, 0.19 m) in a line along y = 5 from
        x = 2, K radii apart (default 2.6 and 3.2), each going to the mirrored point of a line along y = 25
        (the first to x = 28), gaits 0.8, 1.4 and 2.6 m/s with P preferred (1.4, 2.6), at a time
        step of T seconds (0.1, 0.05, 1/30), 40 s: DIR/lines-R-K-P-T.json (18 files a K), the small
        agents of docs/ROBUSTNESS.md, session 44; `python3 tools/compare_fixtures.py --scenarios
        DIR OLD NEW` sums their arrivals, collisions and flips
    python3 tools/crowd_probes.py passage --out DIR [--agents N ...] [--seeds K]
        on `rooms-passage` (two 12 x 10 m rooms joined by a passage 3 m wide and 4 m long),
        N 0.4 m agents (default 20, 40 and 60), every other one in the south room, each going
        to a point at random in the other room (starts and goals at least 1 m apart, seeded by
        S and N), 120 s: DIR/passageN-S.json (S = 1..K, default 8), the crowds of
        docs/ROBUSTNESS.md, session 48 (den312d's halves in small)
    python3 tools/crowd_probes.py halves SCENARIO --y Y --out DIR
        the scenario cut in two by the line y = Y: DIR/NAME-cross.json, the agents whose start
        and goal lie on different sides of it, and DIR/NAME-same.json, the others (den312d-500
        with Y = 33, its passages' middle: docs/ROBUSTNESS.md, session 48)
    python3 tools/crowd_probes.py variant SCENARIO --out FILE [--avoidance JSON]
        [--add-avoidance JSON] [--radius R] [--depart-spread SECONDS] [--mode MODE]
        a copy with avoidance settings (--avoidance replaces the scenario's object;
        --add-avoidance sets the fields it names in it, `orca` and `ttc` field by field), every
        radius set to R, departures spread evenly, or every agent in MODE (`orca`, say: the
        velocity-space fallback's figures for scale)

Levels are written as absolute paths, so the files play from anywhere. Deterministic (seeded
Python `random`). Standard library only.
"""

import argparse
import json
import math
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    with open(path) as f:
        scenario = json.load(f)
    level = scenario["level"]
    if isinstance(level, str) and not os.path.isabs(level):
        scenario["level"] = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), level))
    return scenario


def write(scenario, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(scenario, f)


def place(count, seed, spacing=0.6, lo=5.0, side=20.0):
    rng = random.Random(seed)
    points = []
    while len(points) < count:
        p = (rng.uniform(lo, lo + side), rng.uniform(lo, lo + side))
        if all(math.dist(p, q) >= spacing for q in points):
            points.append(p)
    return points, rng


def walker(start, goal):
    return {"start": list(start), "goal": list(goal), "radius": 0.19,
            "speeds": [0.8, 1.4, 2.6], "speed": 1.4, "mode": "rail"}


def field_scenario(name, agents, duration):
    return {"name": name, "level": os.path.join(ROOT, "fixtures/levels/open-field.json"),
            "dt": 1 / 30, "duration": duration, "seed": 1, "agents": agents}


def fields(out):
    side = 20.0
    for hundredths in (20, 35, 50):
        points, _ = place(int(hundredths / 100 * side * side), 3)
        standing = [{"start": list(p), "radius": 0.19, "mode": "stationary"} for p in points]
        walkers = [walker((1.0, 7.0 + 16 * k / 9), (29.0, 23.0 - 16 * k / 9)) for k in range(10)]
        write(field_scenario(f"field-{hundredths}", walkers + standing, 90),
              os.path.join(out, f"field-{hundredths}.json"))
    for hundredths in (30, 50):
        points, rng = place(int(hundredths / 100 * side * side), 7)
        for kind in ("east", "twoway", "random"):
            agents = []
            for i, p in enumerate(points):
                if kind == "east":
                    goal = (28.0, p[1])
                elif kind == "twoway":
                    goal = (28.0, p[1]) if i % 2 == 0 else (2.0, p[1])
                else:
                    while True:
                        goal = (rng.uniform(5, 25), rng.uniform(5, 25))
                        if math.dist(goal, p) > 8:
                            break
                agents.append(walker(p, goal))
            write(field_scenario(f"{kind}-{hundredths}", agents, 120),
                  os.path.join(out, f"{kind}-{hundredths}.json"))


def aisle(out, count, seeds):
    level = {"name": "aisle", "boundary": [[-3, -8], [14, -8], [14, 8], [-3, 8]],
             "holes": [[[0, -2], [4.2, -2], [4.2, 2], [0, 2]],
                       [[6.5, -2], [11, -2], [11, 2], [6.5, 2]]]}
    level_path = os.path.abspath(os.path.join(out, "aisle-level.json"))
    write(level, level_path)
    for seed in range(1, seeds + 1):
        rng = random.Random(seed)
        agents = []
        while len(agents) < count:
            south = len(agents) % 2 == 0
            start = [rng.uniform(-2, 13), rng.uniform(-7.5, -3) if south else rng.uniform(3, 7.5)]
            goal = [rng.uniform(-2, 13), rng.uniform(3, 7.5) if south else rng.uniform(-7.5, -3)]
            if all(math.dist(start, a["start"]) > 0.6 for a in agents):
                agents.append(walker(start, goal))
        write({"name": f"aisle{count}-{seed}", "level": level_path, "dt": 1 / 30,
               "duration": 90, "seed": 1, "agents": agents},
              os.path.join(out, f"aisle{count}-{seed}.json"))


def queue(out, gaps):
    for gap in gaps:
        agents = []
        for i in range(8):
            x = 1.0 + gap * i
            agents.append({"start": [x, 3.0], "goal": [x + 10.0, 3.0], "radius": 0.4,
                           "speeds": [0.8, 1.4, 2.6], "speed": 1.4, "depart": 0.0,
                           "mode": "rail"})
        write(dict(field_scenario(f"queue-{gap}", agents, 40), seed=1),
              os.path.join(out, f"queue-{gap}.json"))


def idle_wall(out):
    # The agents with nowhere to go of corridor-3m-random's stall (session 43), as placed there.
    wall = [(19.899, 1.409), (18.173, 0.543), (16.883, 1.236), (18.335, 1.893)]
    gait = {"radius": 0.4, "speeds": [0.8, 1.4, 2.6], "speed": 1.4, "mode": "rail"}
    for start in [(20.65, 0.42), (22.4, 2.1), (24.0, 0.6), (28.795, 1.469)]:
        agents = [dict(gait, start=[x, y], goal=[x - 0.02, y]) for x, y in wall]
        agents.append(dict(gait, start=list(start), goal=[13.842, 1.367]))
        write({"name": f"idle-wall-{start[0]}",
               "level": os.path.join(ROOT, "fixtures/levels/corridor-3m.json"),
               "dt": 1 / 30, "duration": 40, "seed": 1, "agents": agents},
              os.path.join(out, f"idle-wall-{start[0]}.json"))


def lines(out, radii_apart):
    for radius in [0.1, 0.15, 0.19]:
        for k in radii_apart:
            spacing = radius * k
            for dt in [0.1, 0.05, 1 / 30]:
                for preferred in [1.4, 2.6]:
                    agents = [{"start": [2 + i * spacing, 5], "goal": [28 - i * spacing, 25],
                               "radius": radius, "speeds": [0.8, 1.4, 2.6], "speed": preferred}
                              for i in range(40)]
                    name = f"lines-{radius}-{k}-{preferred}-{round(dt, 3)}"
                    scenario = field_scenario(name, agents, 40)
                    scenario["dt"] = dt
                    write(scenario, os.path.join(out, name + ".json"))


# Random spots `passage` tries for one start or goal before it gives up with a message.
PLACEMENT_TRIES = 20000


def passage(out, counts, seeds):
    level_path = os.path.join(ROOT, "fixtures/levels/rooms-passage.json")
    for count in counts:
        for seed in range(1, seeds + 1):
            rng = random.Random(seed * 100 + count)
            taken = []

            def pick(south):
                # Random points 1 m apart fill a room's 95 m² to about 70 (random sequential
                # packing stops near 0.55 of the plane covered by their 0.5 m discs): each room
                # holds half the starts and half the goals, so 80 agents do not fit.
                for _ in range(PLACEMENT_TRIES):
                    p = [rng.uniform(0.6, 11.4),
                         rng.uniform(0.6, 9.4) if south else rng.uniform(14.6, 23.4)]
                    if all(math.dist(p, q) > 1.0 for q in taken):
                        taken.append(p)
                        return p
                room = "south" if south else "north"
                sys.exit(f"passage: no free spot 1 m from the {len(taken)} spots placed (both rooms) for {count} agents "
                         f"(seed {seed}) in the {room} room after {PLACEMENT_TRIES} tries; "
                         f"use fewer agents (a room takes one spot per agent, a start or a goal; "
                         f"about 70 fit in a room)")

            agents = []
            for i in range(count):
                south = i % 2 == 0
                start = pick(south)
                agents.append({"start": start, "goal": pick(not south), "radius": 0.4,
                               "speeds": [0.8, 1.4, 2.6], "speed": 1.4, "mode": "rail"})
            write({"name": f"passage{count}-{seed}", "level": level_path, "dt": 1 / 30,
                   "duration": 120, "seed": 1, "agents": agents},
                  os.path.join(out, f"passage{count}-{seed}.json"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("subset")
    p.add_argument("scenario")
    p.add_argument("counts", nargs="+", type=int)
    p.add_argument("--out", required=True)
    p = sub.add_parser("fields")
    p.add_argument("--out", required=True)
    p = sub.add_parser("aisle")
    p.add_argument("--out", required=True)
    p.add_argument("--agents", type=int, default=48)
    p.add_argument("--seeds", type=int, default=25)
    p = sub.add_parser("queue")
    p.add_argument("--out", required=True)
    p.add_argument("--gaps", type=float, nargs="+", default=[0.95, 1.1, 1.3, 1.6, 2.0])
    p = sub.add_parser("idle-wall")
    p.add_argument("--out", required=True)
    p = sub.add_parser("lines")
    p.add_argument("--out", required=True)
    p.add_argument("--radii-apart", type=float, nargs="+", default=[2.6, 3.2])
    p = sub.add_parser("passage")
    p.add_argument("--out", required=True)
    p.add_argument("--agents", type=int, nargs="+", default=[20, 40, 60])
    p.add_argument("--seeds", type=int, default=8)
    p = sub.add_parser("halves")
    p.add_argument("scenario")
    p.add_argument("--y", type=float, required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("variant")
    p.add_argument("scenario")
    p.add_argument("--out", required=True)
    p.add_argument("--avoidance", help="a JSON object of AvoidanceConfig fields (replaces)")
    p.add_argument("--add-avoidance", help="a JSON object of AvoidanceConfig fields (merged)")
    p.add_argument("--radius", type=float)
    p.add_argument("--depart-spread", type=float)
    p.add_argument("--mode", choices=["rail", "orca", "ttc"])
    args = parser.parse_args()
    if args.command == "subset":
        base = load(args.scenario)
        for n in args.counts:
            scenario = dict(base, agents=base["agents"][:n], name=f"{base['name']}-{n}")
            write(scenario, os.path.join(args.out, f"{base['name']}-{n}.json"))
    elif args.command == "fields":
        fields(args.out)
    elif args.command == "aisle":
        aisle(args.out, args.agents, args.seeds)
    elif args.command == "queue":
        queue(args.out, args.gaps)
    elif args.command == "idle-wall":
        idle_wall(args.out)
    elif args.command == "lines":
        lines(args.out, args.radii_apart)
    elif args.command == "passage":
        passage(args.out, args.agents, args.seeds)
    elif args.command == "halves":
        base = load(args.scenario)
        crossing = [(a["start"][1] > args.y) != (a["goal"][1] > args.y) for a in base["agents"]]
        for kind, keep in [("cross", True), ("same", False)]:
            agents = [a for a, c in zip(base["agents"], crossing) if c == keep]
            write(dict(base, agents=agents, name=f"{base['name']}-{kind}"),
                  os.path.join(args.out, f"{base['name']}-{kind}.json"))
    else:
        scenario = load(args.scenario)
        if args.avoidance:
            scenario["avoidance"] = json.loads(args.avoidance)
        if args.add_avoidance:
            merged = dict(scenario.get("avoidance") or {})
            for field, value in json.loads(args.add_avoidance).items():
                if isinstance(value, dict) and isinstance(merged.get(field), dict):
                    merged[field] = dict(merged[field], **value)
                else:
                    merged[field] = value
            scenario["avoidance"] = merged
        if args.radius:
            for agent in scenario["agents"]:
                agent["radius"] = args.radius
        if args.depart_spread:
            n = len(scenario["agents"])
            for i, agent in enumerate(scenario["agents"]):
                agent["depart"] = args.depart_spread * i / n
        if args.mode:
            for agent in scenario["agents"]:
                agent["mode"] = args.mode
        write(scenario, args.out)


if __name__ == "__main__":
    main()
