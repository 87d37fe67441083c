#!/usr/bin/env python3
"""Write the fixture scenarios in fixtures/scenarios/ (DESIGN §5). Run from the repository root."""
import json

SPEEDS = [0.8, 1.4, 2.6]


def agent(start, goal=None, speed=1.4, speeds=SPEEDS, depart=0.0, mode="rail", **extra):
    a = {"start": list(start), "radius": 0.4}
    if mode == "stationary":
        a["mode"] = "stationary"
        return a
    a.update({"goal": list(goal), "speeds": speeds, "speed": speed, "depart": depart, "mode": mode})
    a.update(extra)
    return a


def scenario(name, level, duration, agents, **avoidance):
    return {
        "name": name,
        "level": f"../levels/{level}.json",
        "dt": 0.0333,
        "duration": duration,
        "seed": 1,
        "avoidance": avoidance,
        "agents": agents,
    }


S = []

# Two agents at 90 degrees reaching the crossing point together.
S.append(scenario("crossing", "open-field", 30.0, [
    agent((3, 15), (27, 15)),
    agent((15, 3), (15, 27)),
]))

# A fast agent behind a slow one on a converging line: it passes on the side.
S.append(scenario("overtake", "open-field", 30.0, [
    agent((4, 14), (27, 14), speed=0.8, speeds=[0.8]),
    agent((1, 15.5), (28, 14.5), speed=2.6),
]))

# Same way in a corridor, the follower faster: it slows to keep the follow gap.
S.append(scenario("follow", "corridor", 40.0, [
    agent((6, 1.2), (28, 1.2), speed=0.8, speeds=[0.8, 1.4]),
    agent((2, 1.2), (26.5, 1.2), speed=1.4, speeds=[0.8, 1.4]),
]))

# The same with 0.35 m agents: the faster one overtakes and stands on its goal, leaving the
# slower one a few centimetres more than the room to pass. Its bends failed, each start toward
# it ended in a stop short of it, and it stopped, started and bent there to the end (session 36).
S.append(scenario("follow-tight-pass", "corridor", 40.0, [
    agent((6, 1.2), (28, 1.2), speed=0.8, speeds=[0.8, 1.4], radius=0.35),
    agent((2, 1.2), (26.5, 1.2), speed=1.4, speeds=[0.8, 1.4], radius=0.35),
]))

# Four streams of four through a crossroads, each keeping to the right of its arm.
cross = []
for k in range(4):
    lead = 7 - 2 * k  # the front-most agent goes farthest
    cross.append(agent((lead, 14.2), (29 - 2 * k, 14.2)))            # west to east
    cross.append(agent((30 - lead, 15.8), (1 + 2 * k, 15.8)))        # east to west
    cross.append(agent((15.8, lead), (15.8, 29 - 2 * k)))            # south to north
    cross.append(agent((14.2, 30 - lead), (14.2, 1 + 2 * k)))        # north to south
S.append(scenario("crossroads-4-way", "crossroads", 60.0, cross))

# The same streams steered by ORCA (session 46): passing on the right for every neighbour met
# turned each stream into the way of the one crossing from its left at the crossing (travel time
# ratio 1.80); a neighbour crossing from the left nearly square does not count (1.04).
S.append(scenario("orca-crossroads-4-way", "crossroads", 60.0,
                  [dict(a, mode="orca") for a in cross]))

# One agent turns the corner of the L while another comes down the other arm into the elbow:
# they would meet at the corner, out of each other's sight.
S.append(scenario("l-corner", "l-corner", 40.0, [
    agent((2, 1.25), (18.0, 15.0)),
    agent((19.2, 18.3), (18.4, 1.0)),
]))

# A standing agent that wants to leave while a passer-by crosses its way.
S.append(scenario("start-query", "open-field", 30.0, [
    agent((15, 10), (15, 25), depart=2.0),
    agent((9.8, 11.5), (27, 11.5)),
]))

# Four agents each side of a one-agent-wide door, all wanting through.
door = []
for k, y in enumerate([2, 4, 6, 8]):
    door.append(agent((2, y), (18, y)))
for k, y in enumerate([3, 5, 7, 9]):
    door.append(agent((18, y), (2, y)))
S.append(scenario("doorway-two-way", "doorway", 60.0, door))

# Head-on in a corridor too narrow to pass without a path rewrite.
S.append(scenario("head-on", "corridor", 30.0, [
    agent((2, 1.2), (28, 1.2)),
    agent((28, 1.2), (2, 1.2)),
]))

# An idle agent standing on another's way, off the corridor's centre so that there is room to pass.
S.append(scenario("stationary-blocker", "corridor", 30.0, [
    agent((2, 1.2), (28, 1.2)),
    agent((15, 0.75), mode="stationary"),
]))

# Two agents meet in a 1 m corridor (too narrow to pass) next to a side alcove: a deadlock that
# one breaks by stepping into the alcove.
S.append(scenario("narrow-alcove-head-on", "narrow-alcove", 40.0, [
    agent((1, 0.5), (19, 0.5)),
    agent((19, 0.5), (1, 0.5)),
]))

# Two agents enter a 20 m one-lane corridor from either end and meet in its middle, 8 m from the
# nearest room: no spot off the other's way within the yield rings' reach (4.8 m), so the one
# that yields backs out along the other's way into a room (tradeshow-1000, session 17: a pair
# stood face to face by the north wall for 75 s).
S.append(scenario("long-corridor-head-on", "long-corridor", 60.0, [
    agent((2, 3), (30, 3)),
    agent((30, 3), (2, 3)),
]))

# Two agents meet head-on in a 2 m corridor on lines 0.2 m apart: each blocks the other's bend,
# and no spot is off the other's way by the start check's clearance; the one that yields steps to
# the wall beside it and leaves the other a lane (session 21: both stood for good before).
S.append(scenario("head-on-2m", "corridor-2m", 40.0, [
    agent((2, 1.1), (28, 1.1)),
    agent((28, 0.9), (2, 0.9)),
]))

# An agent stands by the wall of a 1.8 m corridor, 0.05 m off it, leaving 0.95 m beside it: the
# agent walking down the middle passes it on the taut way round it (session 27: the chapter's
# bend sank back toward the stander as it passed, the grid detour's cells missed the 5 cm
# window, and the walker stood behind it for good).
S.append(scenario("blocker-1.8m", "corridor-1.8m", 40.0, [
    agent((2, 0.9), (28, 0.9)),
    agent((15, 0.45), mode="stationary"),
]))

# Two agents meet head-on in a 1.8 m corridor on lines 0.35 m apart: no spot keeps the resume
# check's room from the other's way, nor leaves a lane that wide; the one that yields steps to a
# tight spot by a wall (the radii and margins off the other's lane) and the other passes it on
# the taut way round (session 27: both stood for good).
S.append(scenario("head-on-1.8m", "corridor-1.8m", 60.0, [
    agent((2, 0.9), (28, 0.9)),
    agent((28, 1.25), (2, 1.25)),
]))

# Two agents meet head-on in a 0.9 m corridor, 2.5 m past a 1 m square alcove: the one that
# yields backs into the alcove's back, a patch smaller than the yield rings' spacing (found as
# the deepest spot straight off the other's way), and waits there until the other has passed
# (session 27: both stood for good).
S.append(scenario("narrow-alcove-1m-head-on", "narrow-alcove-1m", 60.0, [
    agent((1, 0.45), (19, 0.45)),
    agent((19, 0.45), (1, 0.45)),
]))

# A slow walker (its one gait 0.8 m/s) on the middle line of a 3 m corridor, a fast one
# (2.6 m/s) behind it: the fast one passes it on a bend instead of following it at its pace for
# the rest of the corridor (session 27: travel time ratio 1.97 before).
S.append(scenario("overtake-3m", "corridor-3m", 40.0, [
    agent((5, 1.5), (28, 1.5), speed=0.8, speeds=[0.8]),
    agent((1, 1.5), (29, 1.5), speed=2.6),
]))

# Ten agents each side of a 1.2 m door, all wanting through.
crowd = []
ys = [1.5, 3.25, 5.0, 6.75, 8.5]
for x in (4.0, 2.0):
    for y in ys:
        crowd.append(agent((x, y), (20 - x, y)))
for x in (16.0, 18.0):
    for y in ys:
        crowd.append(agent((x, y + 0.0), (20 - x, y)))
S.append(scenario("doorway-crowd", "doorway", 120.0, crowd))

# Thirty agents through one door, the same way.
neck = []
for i, x in enumerate([7.5, 6.0, 4.5, 3.0, 1.5]):
    for j, y in enumerate([1.25, 2.75, 4.25, 5.75, 7.25, 8.75]):
        neck.append(agent((x, y), (x + 11.0, y)))
S.append(scenario("bottleneck", "doorway", 120.0, neck))

# Six agents sent to the same point.
import math
shared = []
for k in range(6):
    a = 2 * math.pi * k / 6
    shared.append(agent((round(15 + 10 * math.cos(a), 3), round(15 + 10 * math.sin(a), 3)), (15, 15),
                        depart=0.5 * k))
S.append(scenario("shared-destination", "open-field", 40.0, shared))

# Nine agents sent to the same point at once. The destination check gives each later one the
# nearest free spot beside the point by the order of their rails, not of their arrivals: those
# arriving first stood round a spot given to a slower one and sealed it off (it circled them
# until the end). Its goal moves to the nearest spot it can reach.
crowd = []
for k in range(9):
    a = 2 * math.pi * k / 9 + 0.3
    crowd.append(agent((round(15 + 10 * math.cos(a), 3), round(15 + 10 * math.sin(a), 3)), (15, 15)))
S.append(scenario("shared-destination-crowd", "open-field", 60.0, crowd))

# Fourteen agents sent at once from a block of four columns to one point 20 m away. The last
# one bent round the agents standing about the point for 27 s: its count of bends without
# progress (after four, it looks whether they seal its goal off) was set back twice by a bend a
# metre nearer (session 37). It now looks after one such bend near its goal.
block = [agent((round(2 + 1.2 * (k % 4), 3), 5 + 2.0 * (k // 4)), (25, 15)) for k in range(14)]
S.append(scenario("shared-destination-block", "open-field", 60.0, block))

# Twenty agents sent to the centre of a circle of radius 10 m, 0.2 s apart, at a 0.1 s time
# step (crowd variant shared_n20_dep0.2_r0.4 of tools/variant_scenarios.py --crowds --dt 0.1).
# An agent bending round the crowd at the point had its goal moved to a spot it could reach by
# a way planned round the agents with nowhere to go only; the way ran 0.9 m past one waiting to
# go on, and the unavoidable stop a frame later slid 0.23 m into it (session 39). A moving
# agent now takes such a way only if it meets nobody sooner than the collision it answers,
# too soon to stop after the reversal hold.
spokes = []
for k in range(20):
    a = 2 * math.pi * k / 20 + 0.1
    spokes.append(agent((round(15 + 10 * math.cos(a), 3), round(15 + 10 * math.sin(a), 3)),
                        (15, 15), depart=0.2 * k))
S.append(dict(scenario("shared-destination-circle-coarse", "open-field", 60.0, spokes), dt=0.1))

# Twenty agents on a circle of radius 10 m, each to the antipode.
circle = []
for k in range(20):
    a = 2 * math.pi * k / 20
    p = (round(15 + 10 * math.cos(a), 3), round(15 + 10 * math.sin(a), 3))
    q = (round(15 - 10 * math.cos(a), 3), round(15 - 10 * math.sin(a), 3))
    circle.append(agent(p, q))
S.append(scenario("circle-rail", "open-field", 60.0, circle))

# The same circle steered by ORCA (session 46): the ring closed round the centre, each agent the
# mirror image of itself across its line to the centre, and stood for good (none arrived) until
# ORCA agents passed on the right (`OrcaConfig::pass_right_degrees`).
ring = [dict(a, mode="orca") for a in circle]
S.append(scenario("orca-ring-20", "open-field", 60.0, ring))

# Twenty-four smaller agents (0.3 m) on the same circle: a walker sped up to 2.6 m/s for a graze
# at the sweep's edge and the room-to-stop rule slowed it 0.23 s later, behind a walker
# converging ahead (a flip, session 36; `tools/variant_scenarios.py --crowds`).
circle24 = []
for k in range(24):
    a = 2 * math.pi * k / 24
    p = (round(15 + 10 * math.cos(a), 3), round(15 + 10 * math.sin(a), 3))
    q = (round(15 - 10 * math.cos(a), 3), round(15 - 10 * math.sin(a), 3))
    circle24.append(agent(p, q, radius=0.3))
S.append(scenario("circle-rail-24", "open-field", 90.0, circle24))

# Eight agents each way in the 2.4 m corridor, on lines 0.6 m apart: they must bend to pass.
two_way = []
for k in range(8):
    two_way.append(agent((1.0 + 1.5 * k, 0.9), (18.5 + 1.5 * k, 0.9)))
    two_way.append(agent((29.0 - 1.5 * k, 1.5), (11.5 - 1.5 * k, 1.5)))
S.append(scenario("corridor-two-way", "corridor", 60.0, two_way))

# Eight agents placed at random in the 2.4 m corridor (starts and goals at least 8 m apart along
# it, 1 m from each other), as a level's spawner would: most rails cross the corridor from one
# side to the other. Their lanes were measured on the whole rail, which a diagonal line could not
# take, so they met head-on (ratio 1.86); measured at each end, they keep right (session 37).
import random

rng = random.Random(3008)
in_corridor = []
while len(in_corridor) < 8:
    s = (rng.uniform(1, 29), rng.uniform(0.45, 1.95))
    g = (rng.uniform(1, 29), rng.uniform(0.45, 1.95))
    if abs(s[0] - g[0]) < 8:
        continue
    if any(math.dist(s, a["start"]) < 1.0 or math.dist(g, a["goal"]) < 1.0 for a in in_corridor):
        continue
    in_corridor.append(agent((round(s[0], 3), round(s[1], 3)), (round(g[0], 3), round(g[1], 3))))
S.append(scenario("corridor-random", "corridor", 60.0, in_corridor))

# Ten agents placed at random in the 3 m corridor (variant corridor-3m_N10_s0 of
# tools/variant_scenarios.py --placed). An agent with nowhere to go, asked to make way, took a
# spot "the others can pass on a lane beside it" where an agent that had arrived stood in the
# lane: the one it made way for waited behind it to the end (7 of 10 arrived). The lanes beside
# such spots now keep clear of agents with nowhere to go (session 39).
placed_3m = [
    ((11.685, 1.046), (19.899, 1.409)),
    ((20.204, 1.84), (4.723, 2.062)),
    ((28.508, 2.486), (18.173, 0.543)),
    ((1.114, 0.731), (27.348, 1.086)),
    ((24.944, 0.764), (16.883, 1.236)),
    ((10.732, 1.363), (1.14, 1.946)),
    ((17.32, 1.27), (25.347, 1.864)),
    ((28.795, 1.469), (13.842, 1.367)),
    ((5.302, 0.948), (18.335, 1.893)),
    ((23.612, 2.471), (13.19, 2.254)),
]
S.append(scenario("corridor-3m-random", "corridor-3m", 60.0, [agent(a, b) for a, b in placed_3m]))

# The velocity-space fallback (issue 5). The reference ORCA library's examples, with its numbers
# (../shared/data/rvo2/rvo2_examples_params.json): a unit preferred speed toward the goal, a
# maximum speed of 2, dt 0.25.
RVO2_SPEEDS = [1.0, 2.0]


def free(start, goal, radius, mode="orca"):
    return {"start": [round(start[0], 6), round(start[1], 6)], "goal": [round(goal[0], 6), round(goal[1], 6)],
            "radius": radius, "speeds": RVO2_SPEEDS, "speed": 1.0, "depart": 0.0, "mode": mode}


def rvo2(name, level, duration, agents, orca):
    return {"name": name, "level": f"../levels/{level}.json", "dt": 0.25, "duration": duration,
            "seed": 1, "avoidance": {"orca": orca}, "agents": agents}


# Circle: 250 agents on a 200 m circle, each to the antipode.
ring = []
for i in range(250):
    a = i * 2 * math.pi * 0.004
    p = (200 * math.cos(a), 200 * math.sin(a))
    ring.append(free(p, (-p[0], -p[1]), 1.5))
# Four substeps (re-solving with the neighbours' new velocities before moving): with one, the
# jam at the centre leaves overlaps of up to 14% (the reference library's own run: 22%).
S.append(rvo2("rvo2-circle", "rvo2-open", 900.0, ring,
              {"time_horizon": 10.0, "obstacle_time_horizon": 10.0, "neighbour_distance": 15.0,
               "max_neighbours": 10, "substeps": 4}))

# Blocks: four groups of 25 around four 30 x 30 blocks. The reference sends each group to one
# shared point (and counts 20 m from it as arrived); here each agent goes to its mirror image
# through the centre, so that every agent has a goal of its own that it can reach exactly.
blocks = []
for i in range(5):
    for j in range(5):
        for sx, sy in [(1, 1), (-1, 1), (1, -1), (-1, -1)]:
            p = (sx * (55 + 10 * i), sy * (55 + 10 * j))
            blocks.append(free(p, (-p[0], -p[1]), 2.0))
S.append(rvo2("rvo2-blocks", "rvo2-blocks", 1200.0, blocks,
              {"time_horizon": 5.0, "obstacle_time_horizon": 5.0, "neighbour_distance": 15.0,
               "max_neighbours": 10}))

# Rail agents and ORCA agents crossing in the crossroads: two rail streams east-west, two ORCA
# streams north-south.
mixed = []
for k in range(4):
    lead = 7 - 2 * k
    mixed.append(agent((lead, 14.2), (29 - 2 * k, 14.2)))
    mixed.append(agent((30 - lead, 15.8), (1 + 2 * k, 15.8)))
    mixed.append(agent((15.8, lead), (15.8, 29 - 2 * k), mode="orca"))
    mixed.append(agent((14.2, 30 - lead), (14.2, 1 + 2 * k), mode="orca"))
S.append(scenario("mixed-crossing", "crossroads", 60.0, mixed))

# The same crossing with time-to-collision forces for the north-south streams.
ttc = [dict(a, mode="ttc") if a.get("mode") == "orca" else a for a in mixed]
S.append(scenario("ttc-crossing", "crossroads", 60.0, ttc))

# An agent arrives and stands in the only door; another comes through later: nothing passes it
# (no bend, no detour), so after the deadlock time it asks the stander to make way, which steps
# aside into the room and goes back once the other has passed.
S.append(scenario("door-blocked", "doorway", 60.0, [
    agent((14, 5), (10, 5)),
    agent((2, 5), (18, 5), depart=5.0),
]))

# Session 48: ten agents in each of two rooms joined by a 3 m passage, each crossing to a point
# at random in the other room (starts and goals at least 1 m apart), as den312d's crowds cross
# between its halves: the two streams take the passage in turns (docs/ALGORITHM.md,
# "Single-lane stretches").
rng = random.Random(120)
taken = []


def room_point(south):
    while True:
        p = (rng.uniform(0.6, 11.4), rng.uniform(0.6, 9.4) if south else rng.uniform(14.6, 23.4))
        if all(math.dist(p, q) > 1.0 for q in taken):
            taken.append(p)
            return p


crossing = []
for i in range(20):
    south = i % 2 == 0
    start = room_point(south)
    crossing.append(agent(start, room_point(not south)))
S.append(scenario("passage-two-way", "rooms-passage", 120.0, crossing))

for s in S:
    with open(f"fixtures/scenarios/{s['name']}.json", "w") as f:
        json.dump(s, f, indent=2)
        f.write("\n")
print(f"wrote {len(S)} scenarios")
