#!/usr/bin/env python3
"""Play variants of the small fixture situations through `sidestep` and list every bar missed.

The fixtures pin one geometry each; the issue's checks also run on levels and scenarios that are
not in the repository. This makes about 240 variants of the small situations (head-on in
corridors 1.8 to 4 m wide with the two lines offset, and in the open; a stationary blocker at
several places across corridors, only where a 0.95 m gap is left beside it; two staggered
blockers; a 0.9 to 1.2 m corridor with a side alcove at three places and of three sizes;
crossings at five angles; overtaking in corridors; radii 0.25 and 0.5 m; time steps 1/60 to
1/10 s; three-against-three in corridors), writes their levels and scenarios under OUT, plays
each with `sidestep run --json` and prints, per scenario, the bars of DESIGN §7 it misses:
every agent with a goal reached, no collision, nothing off the mesh, no order flip, travel time
ratio at most 1.5.

    python3 tools/variant_scenarios.py target/release/sidestep [--out DIR] [--only SUBSTRING]
        [--crowds | --fixture-gaits | --placed] [--dt SECONDS]

With `--crowds`, the named crowd fixtures' situations varied instead (session 36): agents sent
to one point (5 to 20, radii 0.3 to 0.5 m, from a circle together or 0.2 s apart, from a block
to one side, or as the `shared-destination` fixture with 3 to 12 agents), circles to the
antipodes (6 to 30 agents, circles of 6 and 10 m), doors 1 to 2 m wide with crowds each way or
one way, and two-way corridors. With `--fixture-gaits`, the committed fixtures of rail agents
(not the real-level crowds) with every rail agent given one speed, two speeds, the preferred
speed 0.8 m/s, or radius 0.35 m. With `--placed`, agents placed as a spawner would (session
37): 4 to 10 at random in the 2.4 and 3 m corridors, and on an open field streams crossing,
walking at each other and merging, and crowds of 10 to 30 at random. `--dt` plays every case at
that time step instead of its own.

Some variants cannot meet every bar by construction: two 0.4 m agents in a 1.8 m corridor pass
1 m apart, but a start needs 1.08 m (the resume inflation), and an agent that must wait in an
alcove for the other to pass takes longer than 1.5 times its trip. Standard library only.
"""

import argparse
import json
import math
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

OUT = None
cases = []


def make_cases(out, crowds=False, fixture_gaits=False, placed=False):
    global OUT
    OUT = out
    os.makedirs(OUT, exist_ok=True)
    cases.clear()
    if crowds:
        build_crowds()
    elif fixture_gaits:
        build_fixture_gaits()
    elif placed:
        build_placed()
    else:
        build()
    return list(cases)


def level(name, boundary, holes=None):
    path = f'{OUT}/L_{name}.json'
    d = {"name": name, "boundary": boundary}
    if holes:
        d["holes"] = holes
    with open(path, 'w') as f:
        json.dump(d, f)
    return path


def agent(start, goal, r=0.4, speed=1.4, speeds=(0.8, 1.4, 2.6), depart=0.0):
    return {"start": list(start), "goal": list(goal), "radius": r, "speeds": list(speeds),
            "speed": speed, "depart": depart, "mode": "rail"}


def stationary(p, r=0.4):
    return {"start": list(p), "radius": r, "mode": "stationary"}


DT = None


def scen(name, lvl, agents, duration=60.0, dt=0.0333):
    d = {"name": name, "level": lvl, "dt": DT or dt, "duration": duration, "seed": 1,
         "avoidance": {}, "agents": agents}
    path = f'{OUT}/{name}.json'
    with open(path, 'w') as f:
        json.dump(d, f)
    cases.append(path)


def build():
    L = 30.0
    # 1. head-on in corridors
    for W in [1.8, 2.0, 2.4, 3.0, 4.0]:
        lv = level(f'corr{W}', [[0, 0], [L, 0], [L, W], [0, W]])
        for dy1, dy2 in [(0, 0), (0.1, -0.1), (-0.2, 0.2), (0.3, 0.3), (0.0, 0.35)]:
            for v1, v2 in [(1.4, 1.4), (2.6, 0.8), (1.4, 2.6)]:
                c = W / 2
                scen(f'headon_W{W}_y{dy1}_{dy2}_v{v1}_{v2}', lv,
                     [agent((2, c + dy1), (28, c + dy1), speed=v1), agent((28, c + dy2), (2, c + dy2), speed=v2)])
    # 2. head-on in the open, lateral offsets
    lvo = level('open', [[0, 0], [40, 0], [40, 30], [0, 30]])
    for off in [0, 0.1, 0.3, 0.5, 0.7, 0.85]:
        for v1, v2 in [(1.4, 1.4), (2.6, 1.4), (0.8, 2.6)]:
            scen(f'headon_open_off{off}_v{v1}_{v2}', lvo,
                 [agent((3, 15), (37, 15), speed=v1), agent((37, 15 + off), (3, 15 + off), speed=v2)])
    # 3. stationary blocker
    for W in [1.8, 2.0, 2.4, 3.0, 5.0]:
        lv = level(f'corr{W}', [[0, 0], [L, 0], [L, W], [0, W]])
        for by in [0.45, W / 2 - 0.3, W / 2, W / 2 + 0.2, W - 0.45]:
            for v in [0.8, 1.4, 2.6]:
                if max(by - 0.4, W - by - 0.4) < 0.95: continue
                scen(f'blocker_W{W}_by{by:.2f}_v{v}', lv,
                     [agent((2, W / 2), (28, W / 2), speed=v), stationary((15, by))])
    # two blockers staggered
    for W in [2.4, 3.0, 4.0]:
        lv = level(f'corr{W}', [[0, 0], [L, 0], [L, W], [0, W]])
        scen(f'blockers2_W{W}', lv, [agent((2, W / 2), (28, W / 2)), stationary((12, W / 2 - 0.4)), stationary((16, W / 2 + 0.4))])
        scen(f'blockers2b_W{W}', lv, [agent((2, W / 2), (28, W / 2)), stationary((12, W / 2 + 0.3)), stationary((14, W / 2 - 0.3))])
    # 4. narrow alcove variants
    for cw in [0.9, 1.0, 1.2]:
        for ax in [5, 10, 15]:
            for aw, ad in [(1.0, 1.0), (2.0, 2.0), (1.2, 1.5)]:
                lv = level(f'alc{cw}_{ax}_{aw}_{ad}', [[0, 0], [20, 0], [20, cw], [ax + aw / 2, cw], [ax + aw / 2, cw + ad], [ax - aw / 2, cw + ad], [ax - aw / 2, cw], [0, cw]])
                for v1, v2 in [(1.4, 1.4), (2.6, 0.8)]:
                    scen(f'alcove_cw{cw}_ax{ax}_a{aw}x{ad}_v{v1}_{v2}', lv,
                         [agent((1, cw / 2), (19, cw / 2), speed=v1), agent((19, cw / 2), (1, cw / 2), speed=v2)])
    # 5. crossings at angles in the open, meeting in the middle
    for ang in [30, 60, 90, 120, 150]:
        for v1, v2 in [(1.4, 1.4), (2.6, 1.4)]:
            a = math.radians(ang)
            cx, cy, R = 20, 15, 12
            d2 = (math.cos(a), math.sin(a))
            scen(f'cross_{ang}_v{v1}_{v2}', lvo,
                 [agent((cx - R, cy), (cx + R, cy), speed=v1),
                  agent((cx - R * d2[0] * v2 / v1, cy - R * d2[1] * v2 / v1), (cx + R * d2[0], cy + R * d2[1]), speed=v2)])
    # 6. overtake in corridors
    for W in [1.8, 2.0, 2.4, 3.0]:
        lv = level(f'corr{W}', [[0, 0], [L, 0], [L, W], [0, W]])
        for dy in [0, 0.2]:
            scen(f'overtake_W{W}_dy{dy}', lv,
                 [agent((5, W / 2), (28, W / 2), speed=0.8, speeds=(0.8,)), agent((1, W / 2 + dy), (29, W / 2 + dy), speed=2.6)])
    # 7. radii
    for r in [0.25, 0.5]:
        lv = level('corr2.4', [[0, 0], [L, 0], [L, 2.4], [0, 2.4]])
        scen(f'headon_r{r}', lv, [agent((2, 1.2), (28, 1.2), r=r), agent((28, 1.2), (2, 1.2), r=r)])
        scen(f'blocker_r{r}', lv, [agent((2, 1.2), (28, 1.2), r=r), stationary((15, 0.9 if r < 0.45 else 0.6), r=r)])
        scen(f'headon_open_r{r}', lvo, [agent((3, 15), (37, 15), r=r), agent((37, 15.1), (3, 15.1), r=r)])
    # 8. dt
    for dt in [1 / 60, 1 / 20, 0.1]:
        lv = level('corr2.4', [[0, 0], [L, 0], [L, 2.4], [0, 2.4]])
        scen(f'headon_dt{dt:.3f}', lv, [agent((2, 1.2), (28, 1.2)), agent((28, 1.2), (2, 1.2))], dt=dt)
        scen(f'blocker_dt{dt:.3f}', lv, [agent((2, 1.2), (28, 1.2)), stationary((15, 0.9))], dt=dt)
        lva = level('alc1.0_10_2.0_2.0', [[0, 0], [20, 0], [20, 1.0], [11, 1.0], [11, 3.0], [9, 3.0], [9, 1.0], [0, 1.0]])
        scen(f'alcove_dt{dt:.3f}', lva, [agent((1, 0.5), (19, 0.5)), agent((19, 0.5), (1, 0.5))], dt=dt)
    # 9. small groups: 3v3 head on in corridors
    for W in [2.4, 3.0, 4.0]:
        lv = level(f'corr{W}', [[0, 0], [L, 0], [L, W], [0, W]])
        ags = []
        for i in range(3):
            ags.append(agent((2 + 1.5 * i, W / 2 + (0.3 if i % 2 else -0.3)), (26 + 1.0 * i, W / 2)))
            ags.append(agent((28 - 1.5 * i, W / 2 + (-0.3 if i % 2 else 0.3)), (4 - 1.0 * i, W / 2)))
        scen(f'groups3_W{W}', lv, ags, duration=60)


def build_crowds():
    """The named crowd fixtures' situations, varied (session 36): 126 cases."""
    field = level('field', [[0, 0], [30, 0], [30, 30], [0, 30]])

    def on_circle(k, n, radius, turn=0.0):
        a = 2 * math.pi * k / n + turn
        return (round(15 + radius * math.cos(a), 3), round(15 + radius * math.sin(a), 3))

    # 1. shared destination: n agents to one point, from a circle (together or 0.2 s apart)
    #    or from a block to one side; and the committed fixture's layout, 0.5 s apart.
    for n in (5, 7, 8, 10, 14, 16, 20):
        for stagger in (0.0, 0.2):
            for r in (0.3, 0.4, 0.5):
                scen(f'shared_n{n}_dep{stagger}_r{r}', field,
                     [agent(on_circle(k, n, 10, 0.1), (15, 15), r=r, depart=stagger * k)
                      for k in range(n)])
        scen(f'shared_block_n{n}', field,
             [agent((2 + 1.2 * (k % 4), 5 + 2.0 * (k // 4)), (25, 15)) for k in range(n)])
    for n in (3, 6, 9, 12):
        for stagger in (0.0, 0.5):
            scen(f'shared_ring_n{n}_dep{stagger}', field,
                 [agent(on_circle(k, n, 10, 0.3), (15, 15), depart=stagger * k)
                  for k in range(n)])
    # 2. circle to the antipodes: n agents on a circle of 6 or 10 m, radii 0.3 to 0.5 m.
    for n in (6, 10, 16, 24, 30):
        for R in (6, 10):
            for r in (0.3, 0.4, 0.5):
                if 2 * math.pi * R / n < 2 * r + 0.3:
                    continue
                scen(f'circle_n{n}_R{R}_r{r}', field,
                     [agent(on_circle(k, n, R), on_circle(k + n / 2, n, R), r=r)
                      for k in range(n)], duration=90.0)
    # 3. doors 1 to 2 m wide in a 1 m wall: a crowd each way, and one way (a bottleneck).
    for w in (1.0, 1.2, 1.6, 2.0):
        lv = level(f'door{w}', [[0, 0], [20, 0], [20, 10], [0, 10]],
                   [[[9.5, 0], [10.5, 0], [10.5, 5 - w / 2], [9.5, 5 - w / 2]],
                    [[9.5, 5 + w / 2], [10.5, 5 + w / 2], [10.5, 10], [9.5, 10]]])
        for per in (3, 5, 10):
            ys = ([1.5 + 7 * k / (per - 1) for k in range(per)] if per <= 5
                  else [1.0 + 1.75 * k for k in range(5)] * (per // 5))
            two = [agent((4 - 1.2 * (i // 5), y), (16 + 1.2 * (i // 5), y)) for i, y in enumerate(ys)]
            two += [agent((16 + 1.2 * (i // 5), y), (4 - 1.2 * (i // 5), y)) for i, y in enumerate(ys)]
            scen(f'doorcrowd_w{w}_n{per}', lv, two, duration=120.0)
            one = [agent((3 + 1.2 * (k // 5), 1.5 + 1.6 * (k % 5)), (14 + 1.2 * (k // 5), 1.5 + 1.6 * (k % 5)))
                   for k in range(2 * per)]
            scen(f'bottleneck_w{w}_n{2 * per}', lv, one, duration=120.0)
    # 4. two-way corridors 2.4 and 3 m wide, 2 to 8 agents each way on lines 1.2 m apart.
    for W in (2.4, 3.0):
        lv = level(f'corr{W}', [[0, 0], [30, 0], [30, W], [0, W]])
        for per in (2, 4, 8):
            ags = []
            for k in range(per):
                ags.append(agent((1 + 1.5 * k, W / 2 - 0.6), (18.5 + 1.5 * k, W / 2 - 0.6)))
                ags.append(agent((29 - 1.5 * k, W / 2 + 0.6), (11.5 - 1.5 * k, W / 2 + 0.6)))
            scen(f'corr2way_W{W}_n{per}', lv, ags)


def build_fixture_gaits():
    """The committed fixtures of rail agents (not the real-level crowds) with every rail agent
    given one speed [1.4], two speeds [1.0, 1.4], the preferred speed 0.8 of [0.8, 1.4, 2.6],
    or radius 0.35 m (session 36)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'scenarios')
    skip = ('tradeshow-1000', 'arena-200', 'arena-200-jittered', 'tradeshow-300',
            'tradeshow-300-jittered')
    variants = [
        ('one-speed', lambda a: dict(a, speeds=[1.4], speed=1.4)),
        ('two-speeds', lambda a: dict(a, speeds=[1.0, 1.4], speed=1.4)),
        ('slow-pref', lambda a: dict(a, speeds=[0.8, 1.4, 2.6], speed=0.8)),
        ('r0.35', lambda a: dict(a, radius=0.35)),
    ]
    for name in sorted(os.listdir(root)):
        with open(os.path.join(root, name)) as f:
            s = json.load(f)
        if (s['name'] in skip or s['name'].startswith('rvo2') or 'ttc' in s['name']
                or 'mixed' in s['name']):
            continue
        lvl = os.path.abspath(os.path.join(root, s['level']))
        for tag, change in variants:
            agents = [change(a) if a.get('mode', 'rail') == 'rail' and 'goal' in a else a
                      for a in s['agents']]
            d = dict(s, level=lvl, name=f"{s['name']}_{tag}", agents=agents)
            if DT:
                d['dt'] = DT
            path = f"{OUT}/{d['name']}.json"
            with open(path, 'w') as f:
                json.dump(d, f)
            cases.append(path)


def place_pairs(n, point, far_enough):
    """`n` start and goal pairs drawn by `point` (start first), kept when `far_enough(start,
    goal)` and both are 1 m from those kept before."""
    placed = []
    while len(placed) < n:
        s, g = point(), point()
        if not far_enough(s, g):
            continue
        if any(math.dist(s, p) < 1.0 or math.dist(g, q) < 1.0 for p, q in placed):
            continue
        placed.append((s, g))
    return placed


def build_placed():
    """Agents placed as a level's spawner would (session 37): 4 to 10 agents at random in the
    2.4 and 3 m corridor fixtures (starts and goals at least 8 m apart along it and 1 m from each
    other; six seeds each), and on a 40 m open field two streams crossing square, two groups
    walking at each other on interleaved lines, two streams merging, and 10 to 30 agents at
    random."""
    import random
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'levels')
    for width, name in ((2.4, 'corridor'), (3.0, 'corridor-3m')):
        lvl = os.path.abspath(os.path.join(root, name + '.json'))
        for n in (4, 6, 8, 10):
            for seed in range(6):
                rng = random.Random(seed * 1000 + n)
                placed = place_pairs(
                    n, lambda: (rng.uniform(1, 29), rng.uniform(0.45, width - 0.45)),
                    lambda s, g: abs(s[0] - g[0]) >= 8)
                scen(f'{name}_N{n}_s{seed}', lvl,
                     [agent([round(c, 3) for c in s], [round(c, 3) for c in g]) for s, g in placed])
    field = level('field40', [[0, 0], [40, 0], [40, 40], [0, 40]])
    for k in (3, 5, 8):
        for rows in (1, 2):
            for r in (0.3, 0.4):
                for gap in (1.2, 1.6):
                    agents = []
                    for i in range(k):
                        across = i * gap - (k - 1) * gap / 2
                        for j in range(rows):
                            agents.append(agent((5 - j * gap, 17 + across), (35 - j * gap, 17 + across), r))
                            agents.append(agent((20 + across, 5 - j * gap), (20 + across, 35 - j * gap), r))
                    scen(f'cross_k{k}_rows{rows}_r{r}_gap{gap}', field, agents)
    for k in (4, 8, 12):
        for off in (0.0, 0.3, 0.6):
            for r in (0.3, 0.4):
                agents = []
                for i in range(k):
                    y = 20 + (i - (k - 1) / 2) * 1.5
                    agents.append(agent((5, y), (35, y), r))
                    agents.append(agent((35, y + off), (5, y + off), r))
                scen(f'counter_k{k}_off{off}_r{r}', field, agents)
    for k in (4, 8):
        for r in (0.3, 0.4):
            agents = []
            for i in range(k):
                agents.append(agent((5, 10 + i * 1.5), (35, 20 + (i - k / 2) * 1.2), r))
                agents.append(agent((5 + i * 1.5, 35), (35, 20 + (i - k / 2) * 1.2 + 0.6), r))
            scen(f'merge_k{k}_r{r}', field, agents)
    for n in (10, 20, 30):
        for seed in range(4):
            rng = random.Random(seed * 100 + n)
            placed = place_pairs(n, lambda: (rng.uniform(2, 38), rng.uniform(2, 38)),
                                 lambda s, g: math.dist(s, g) >= 8)
            scen(f'random_N{n}_s{seed}', field,
                 [agent([round(c, 3) for c in s], [round(c, 3) for c in g]) for s, g in placed])


def bars_missed(path, m):
    if 'error' in m:
        return ['error: ' + m['error']]
    with open(path) as f:
        goals = sum(1 for a in json.load(f)['agents'] if 'goal' in a)
    missed = []
    if m['reached'] < goals:
        missed.append(f"reached {m['reached']}/{goals}")
    if m['collisions']:
        missed.append(f"collisions {m['collisions']} (penetration {m['max_penetration']:.3f})")
    if m['off_mesh_frames']:
        missed.append(f"off-mesh frames {m['off_mesh_frames']}")
    if m['order_flips']:
        missed.append(f"flips {m['order_flips']}")
    if m['travel_time_ratio'] > 1.5:
        missed.append(f"ratio {m['travel_time_ratio']:.2f}")
    return missed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="sidestep executable")
    parser.add_argument("--out", default="/tmp/sidestep-variants", help="where to write the cases")
    parser.add_argument("--only", default="", help="play only the cases whose name contains this")
    parser.add_argument("--crowds", action="store_true",
                        help="the named crowd fixtures' situations varied instead (shared "
                             "destinations, circles, doors, bottlenecks, two-way corridors)")
    parser.add_argument("--fixture-gaits", action="store_true",
                        help="the committed fixtures with other gaits and radii instead")
    parser.add_argument("--placed", action="store_true",
                        help="agents placed at random in corridors, and streams and random "
                             "crowds on an open field, instead")
    parser.add_argument("--dt", type=float, default=None,
                        help="every case's time step, seconds (default: each case's own)")
    args = parser.parse_args()
    global DT
    DT = args.dt
    paths = [p for p in make_cases(args.out, args.crowds, args.fixture_gaits, args.placed)
             if args.only in os.path.basename(p)]

    def play(path):
        out = subprocess.run([args.binary, "run", path, "--json"], capture_output=True, text=True)
        if out.returncode != 0:
            return path, {"error": out.stderr.strip()[:200]}
        return path, json.loads(out.stdout)

    missing = 0
    with ThreadPoolExecutor(2) as pool:
        for path, m in pool.map(play, paths):
            missed = bars_missed(path, m)
            if missed:
                missing += 1
                print(os.path.basename(path)[:-5], ", ".join(missed))
    print(f"{missing} of {len(paths)} variants miss a bar")


if __name__ == "__main__":
    main()
