#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""throng-mpi against throng run (issue 15): the same scene on 1 to 4 MPI
ranks prints the same summary, hash and every figure, as one process.

Usage: mpi_runs.py MPIRUN THRONG THRONG_MPI

Each case runs `throng run SCENE --agents N --steps S --metrics on|off
--summary json --threads T` once, then the same through
`mpirun -np R throng-mpi run ...` for each R, and compares every field of
the two JSON summaries but the timings and the thread counts. Then the
outputs: --out in every format, to a file and to standard output, holds the
same bytes as one process's; a write that fails exits 4 naming --out; a
Ctrl-C to mpirun stops every rank after one step, with the file finished
and the summary of the steps taken. Agents that come and go: evacuation
(sinks), concourse (sources and sinks, its flows read from the step's
events), scenario files with zones and sources, to every field of the
summary (agents added, removed, peak and final, the scenes' measures).
Checkpoints: a scene checkpointed at a step by one process or by
throng-mpi (a --checkpoint-every step, or the run's end) and resumed by
either, on any number of ranks, steps on to the uninterrupted run's hash
and the same summary, field for field (random goals, target rules, sinks,
sources, zones, outcome measures, both engines). Then the refusals: what
throng-mpi does not distribute yet exits 2 with a message; a checkpoint
that cannot be read or written, with throng run's statuses.
Exits 1 at the first difference, naming the case and the field.

MPI_RUNS_QUICK=1 runs a few cases of each kind: the asan preset's ctest
(mpi_runs_sanitized) runs them with the sanitized builds, leak checks off
(Open MPI's own allocations at exit, in modules it has unloaded by then,
read as leaks that no suppression can name); memory errors and undefined
behaviour still stop the run and fail it.
"""
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

QUICK = os.environ.get("MPI_RUNS_QUICK") == "1"
# Leak checks off whether or not ASAN_OPTIONS was set (LeakSanitizer is on
# by default in a sanitized build); the other options as given. A build
# without AddressSanitizer reads none of it.
os.environ["ASAN_OPTIONS"] = ":".join(
    [o for o in os.environ.get("ASAN_OPTIONS", "").split(":") if o and not o.startswith("detect_leaks=")]
    + ["detect_leaks=0"])
SANITIZERS = [v for v in ("ASAN_OPTIONS", "UBSAN_OPTIONS") if v in os.environ]

# Fields that measure the run, not the crowd.
TIMING = {"seconds", "agent_steps_per_s", "threads", "steps_one_thread", "output_seconds", "metrics_seconds"}

# What only throng-mpi prints: the exchange's cost.
EXCHANGE = {"ranks", "decomposition", "exchange_bytes_per_rank_step", "exchange_bytes_max_rank_step", "ghosts_per_agent",
            "exchange_seconds", "exchange_work_seconds", "collectives_per_step", "balance_every", "border_moves", "imbalance"}

# Load balance: (scene, agents, steps, ranks, --balance-every). Each runs
# with the borders fixed (0) and moving; both give one process's hash, and
# the moving borders leave the ranks closer to equal. bottleneck's crowd
# fills a few rows at its door; field's agents cross the world between
# goals for 2,000 steps, so the borders move again and again.
BALANCE = [
    ("bottleneck", 3000, 200, 3, 10),
    ("field", 400, 2000, 4, 25),
]


def check_same(what, want, got, whose):
    """Exits naming the first field of the summary `got` (but the timings and
    the exchange's figures) that is not `want`'s."""
    for key in sorted(set(want) | set(got)):
        if key not in TIMING | EXCHANGE and want.get(key) != got.get(key):
            sys.exit(f"mpi_runs: {what}: {key} is {got.get(key)!r}, {whose} {want.get(key)!r}")


def check_exchange(what, s, ranks, agents, churn=False):
    """The exchange figures of a throng-mpi summary: nothing crosses between
    ranks on one; on more, every ghost received was sent by another rank
    (100 bytes each), so the bytes sent cover at least the ghosts (when
    agents come and go, ghosts_per_agent is per agent-step of a count that
    changed: only that some came)."""
    if s["ranks"] != ranks:
        sys.exit(f"mpi_runs: {what}: ranks {s['ranks']}, expected {ranks}")
    sent = s["exchange_bytes_per_rank_step"] * ranks
    ghosts = s["ghosts_per_agent"] * agents
    mean, most = s["exchange_bytes_per_rank_step"], s["exchange_bytes_max_rank_step"]
    if ranks == 1:
        ok = sent == 0 and ghosts == 0
    else:
        ok = ghosts > 0 and (churn or sent >= 100 * ghosts * (1 - 1e-6)) and most >= mean * (1 - 1e-6)
    if not ok:
        sys.exit(f"mpi_runs: {what}: exchange figures {({k: s[k] for k in EXCHANGE})}")

# (scene, agents, steps, threads per rank, --metrics, ranks): field with
# obstacles and contacts (and at 20,000 agents on two threads a rank, so
# that the parallel regions run), field long enough for agents to reach
# their goals and draw new ones across ranks (the metrics' arrivals and
# times to goal), bottleneck's walls and crowded door (wall crossings and
# penetrations), herd's threat on a world of 8 agents (ranks with no
# agent), flock on a torus (its outcome, order, read from the whole world
# rank 0 gathers at the end), charge (target rules; its measure sampled by
# rank 0 every step; the whole battle resolves at 21.5 s), and the scalar
# reference engine (whose parts take their agents in
# id order; the SIMD engine's take them as they come). With the metrics on,
# every figure of docs/QUALITY.md is compared too.
CASES = [
    ("field", 3000, 60, 1, "on", [1, 2, 3, 4], []),
    ("field", 3000, 60, 2, "off", [3], []),
    ("field", 400, 2500, 1, "on", [4], []),
    ("field", 20000, 20, 2, "on", [2], []),
    ("field", 2000, 40, 1, "on", [3], ["--engine", "scalar"]),
    ("bottleneck", 1000, 150, 1, "on", [1, 2, 3, 4], []),
    ("crossing", 1000, 100, 1, "on", [1, 2, 3, 4], []),
    ("herd", 8, 300, 1, "off", [2], []),
    ("flock", 2000, 200, 1, "on", [1, 2, 3, 4], []),
    ("charge", 2000, 300, 1, "on", [1, 2, 4], []),
    ("charge", 2000, 300, 2, "off", [2], []),
    ("charge", 2000, 1800, 1, "on", [3], []),
    # Agents that come and go. evacuation: sinks take the occupants out
    # (each rank removes its own), its measure sampled on rank 0; at 100
    # agents the room empties (evacuated_at 24.7 s). concourse: sources on
    # every rank over the bodies near them, the same ids; its flows read
    # the step's events, gathered to rank 0 (at 3,000 steps walkers the
    # sources added leave: `left` 78). The scalar engine, two threads a rank.
    ("evacuation", 200, 600, 1, "on", [1, 2, 3, 4], []),
    ("evacuation", 400, 600, 1, "off", [2, 4], []),
    ("evacuation", 100, 1800, 1, "off", [3], []),
    ("evacuation", 200, 300, 1, "off", [3], ["--engine", "scalar"]),
    ("concourse", 300, 600, 1, "on", [1, 2, 3, 4], []),
    ("concourse", 300, 600, 2, "off", [2], []),
    ("concourse", 300, 3000, 1, "off", [3], []),
    ("concourse", 300, 300, 1, "off", [4], ["--engine", "scalar"]),
]

# Scenario files whose agents come and go: (file, steps, --metrics,
# ranks). "@zone" and "@source" are examples/crossing.yaml with a zone
# that is no sink (its events) and with a source whose agents are wider
# than the file's (the largest radius grows as they come); "@sources-only"
# the same file without its agents (the empty start); the saved
# evacuation and concourse (3,000 walkers); "@wider": 1,500 agents of
# torus-jam and a source of agents of radius 1.2 m, which widens the
# grid's cells (1.5 m, the separation's radius, to 2.4 m): the ranks lay
# their borders out again on the new rows (with --balance-every 0, the
# one border move), on a torus packed with solid agents; "@charge-sink":
# examples/charge.yaml without its measure and with a sink in the middle
# of the battle (306 soldiers fall in): target rules with sinks. (No
# pursuer here happens to lose its target to a sink on another rank, the
# case throng_part_update clears: the run is the same without it.)
CHURN_RUNS = [
    ("@zone", 300, "on", [2, 3]),
    ("@source", 600, "on", [1, 3, 4]),
    ("@sources-only", 300, "on", [2]),
    ("evacuation.yaml", 600, "on", [2, 4]),
    ("concourse.yaml", 150, "off", [3]),
    ("@wider", 120, "on", [2, 4]),
    ("@charge-sink", 300, "off", [2, 3]),
]

# Battles (issue 34 item 8): (file, steps, threads a rank, --metrics,
# ranks). tests/data/battle_small.yaml: two armies of 1,000, infantry
# meeting within seconds and archers shooting over it (313 dead in 300
# steps). Blows on another rank's soldiers and every shot go through the
# ranks' share of the strikes; every summary field as one process, the
# survivors of each side included.
BATTLES = [
    ("battle_small.yaml", 300, 1, "off", [1, 2, 3, 4]),
    ("battle_small.yaml", 200, 1, "on", [2, 4]),
    ("battle_small.yaml", 200, 2, "off", [3]),
]
# The same battle with every group a unit (tests/data/battle_small_morale.yaml):
# the ranks add up each unit's sums before the morale stage; units rout
# (the first at 8.55 s) and rally.
BATTLES.append(("battle_small_morale.yaml", 400, 1, "off", [1, 2, 3, 4]))
# The built-in battle to a winner (units routing to exits that take them,
# a rally), 400 soldiers fought out: (options, ranks).
BATTLE_SCENES = [(["armies", "--agents", "400", "--seed", "2", "--steps", "9000"], [3])]

# --seconds instead of --steps: the same steps as throng run takes.
SECONDS = ("crossing", 1000, "2.5", [2])

# Decompositions: (scene, agents, steps, ranks, --decompose, the summary's
# decomposition). "flock-open" is examples/flock.yaml without its outcome
# measure: boids on a torus, wrapping across the seams of rows and of
# columns, between blocks. "charge-open" is examples/charge.yaml without
# its measure: target rules choosing the nearest enemy within 20 to 150 m
# every 10 or 15 steps, and pursuing it, across ranks. "torus-jam" is a
# crowd of 7,500 solid agents packed on a 100 m torus (torus_jam()):
# agents that wrap during integration meet contact partners across the
# seam, which only the ghosts across it give (without them the hash
# differs on 2 and on 4 ranks). 20,000 agents of field on 4 ranks: blocks (2x2)
# send the rank that sends most fewer bytes than strips (1x4), whose
# middle ranks have two borders as wide as the world.
DECOMPOSE = [
    ("flock-open", None, 300, 4, "blocks", "2x2"),
    ("flock-open", None, 300, 4, "strips", "1x4"),
    ("flock-open", None, 200, 6, "blocks", "2x3"),
    ("flock-open", None, 200, 3, "blocks", "1x3"),
    ("torus-jam", None, 60, 2, "blocks", "1x2"),
    ("torus-jam", None, 60, 4, "blocks", "2x2"),
    ("charge-open", None, 150, 3, "blocks", "1x3"),
    ("charge-open", None, 150, 4, "blocks", "2x2"),
    ("field", 20000, 30, 4, "blocks", "2x2"),
    ("field", 20000, 30, 4, "strips", "1x4"),
]

# --out: (scene, agents, steps, --every, format, extra options, ranks). The
# last writes all fields to standard output (the summary then goes to
# standard error).
OUTPUTS = [
    ("crossing", 3000, 40, 7, "bin", [], [2, 3]),
    ("bottleneck", 1000, 30, 1, "csv", [], [3]),
    ("field", 2000, 25, 5, "ped", [], [4]),
    ("field", 2000, 25, 3, "sqlite", [], [2]),
    ("herd", 500, 20, 1, "bin", ["--fields", "all"], [2]),
    # Agents that come and go: frames of a changing crowd.
    ("concourse", 300, 200, 5, "bin", [], [3]),
    ("evacuation", 200, 200, 3, "sqlite", [], [2]),
]

# What is refused, and a word of the message.
REFUSED = [  # (arguments, a word of the message, the exit status: 2 usage, 3 a bad input file)
    (["field", "--metrics", "off", "--balance-every", "-1"], "--balance-every", 2),
    (["field", "--metrics", "off", "--balance-every"], "--balance-every", 2),
    (["field", "--metrics", "off", "--balance-every", "5", "--balance-every=6"], "given twice", 2),
    (["field", "--metrics", "off", "--decompose", "cubes"], "--decompose", 2),
    (["field", "--agents", "0"], "--agents", 2),
    (["field", "--out", "--quiet"], "is an option", 2),
    (["nosuch"], "unknown scenario \"nosuch\"", 2),
    (["@bad"], "world_problems.yaml:3:7: world.dt", 3),
    (["--resume", "@missing"], "--resume", 3),
    (["field", "--resume", "@concourse-ck"], "--resume", 2),
    (["field", "--metrics", "off", "--checkpoint", "@unwritable"], "--checkpoint: at step 1", 4),
]
# A unit in formation (not distributed yet).
REFUSED_FORMATION = (["@battle-formation"], "unit 0 has a formation: part worlds do not keep formations yet", 2)

# Checkpoints: (scene, options, steps before, steps after, throng-mpi's
# ranks writing, --checkpoint-every, ranks resuming). The uninterrupted run
# of one process gives the hash; a resume of one process's checkpoint by
# one process gives the summary every other resume must print: of the
# checkpoint throng-mpi wrote (at a --checkpoint-every step when `before`
# is a multiple of it, else at the run's end), by one process and by
# throng-mpi; of one process's checkpoint by throng-mpi.
CHECKPOINTS = [
    ("concourse", ["--agents", "1500", "--metrics", "on"], 120, 100, 2, 40, [3]),
    ("concourse", ["--agents", "1500", "--engine", "scalar", "--metrics", "off"], 100, 80, 3, 30, [2]),
    ("evacuation", ["--agents", "300", "--metrics", "off"], 150, 150, 2, 50, [2, 4]),
    ("charge", ["--agents", "400", "--metrics", "on"], 150, 150, 3, 70, [2]),
    ("field", ["--agents", "3000", "--metrics", "on"], 150, 150, 2, 150, [3]),
    ("@zone", ["--metrics", "off"], 100, 100, 2, 25, [3]),
    ("@source", ["--metrics", "on"], 120, 120, 3, 50, [2]),
]
# A battle checkpointed mid-fight (health, cooldowns, missiles in flight).
CHECKPOINTS.append(("@battle", ["--metrics", "off"], 120, 100, 2, 40, [3]))
CHECKPOINTS.append(("@battle-morale", ["--metrics", "off"], 200, 150, 3, 100, [2]))
QUICK_CHECKPOINTS = {"concourse", "@zone"}

# The sections "@zone" and "@source" add to examples/crossing.yaml.
CHURN_FILES = {
    "@zone": "zones:\n  - {shape: circle, name: fountain, center: [0, 0], radius: 2}\n",
    "@source": "sources:\n  - {shape: box, min: [-60, -60], max: [-55, -55], rate: 1, archetype: pedestrian, "
               "goal: [60, 60]}\n",
}


def churn_files(mpirun, throng, throng_mpi, tmp, files):
    """Scenario files with zones and sources on several ranks, every field
    as one process."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "examples", "crossing.yaml")) as f:
        crossing = f.read()
    files["@sources-only"] = os.path.join(tmp, "sources-only.yaml")
    with open(files["@sources-only"], "w") as f:  # the agents' section dropped
        f.write(crossing[:crossing.index("agents:")] + CHURN_FILES["@source"])
    for name in ("evacuation.yaml", "concourse.yaml"):
        files[name] = os.path.join(here, "..", "examples", name)
    files["@charge-sink"] = os.path.join(tmp, "charge-sink.yaml")
    with open(os.path.join(here, "..", "examples", "charge.yaml")) as f:
        charge = [l for l in f if not l.startswith("measure:")]
    with open(files["@charge-sink"], "w") as f:
        f.writelines(charge + ["zones:\n  - {shape: box, name: pit, min: [-20, -20], max: [20, 20], sink: true}\n"])
    files["@wider"] = os.path.join(tmp, "wider.yaml")
    torus_jam(files["@wider"])
    with open(files["@wider"]) as f:
        lines = f.read().split("\n")
    rows = [l for l in lines if l.startswith("    - [")][:1500]
    with open(files["@wider"], "w") as f:
        f.write("\n".join(l for l in lines if not l.startswith("    - [")).rstrip("\n") + "\n" + "\n".join(rows) +
                "\nsources:\n  - {shape: box, min: [40, 40], max: [60, 60], rate: 20, archetype: boid, "
                "goal: [10, 10], body_radius: 1.2}\n")
    runs = CHURN_RUNS[:2] if QUICK else CHURN_RUNS
    for name, steps, metrics, ranks in runs:
        opts = [files[name], "--steps", str(steps), "--metrics", metrics, "--summary", "json", "--threads", "1"]
        one = summary([throng, "run"] + opts, 1)
        wider = name == "@wider"
        for r in ranks:
            many = summary(mpirun_args(mpirun, r) + [throng_mpi, "run"] + opts +
                           (["--balance-every", "0"] if wider else []), 1)
            check_exchange(f"{name} on {r} ranks", many, r, one["agents"], churn=True)
            if wider and many["border_moves"] != 1:
                sys.exit(f"mpi_runs: {name} on {r} ranks: {many['border_moves']} border moves, expected 1 (the "
                         f"cells widened)")
            check_same(f"{name} ({steps} steps) on {r} ranks", one, many, "one process")
            print(f"mpi_runs: {name} ({steps} steps, metrics {metrics}) on {r} ranks: hash {many['hash']}, "
                  f"{one['agents_added']} added, {one['agents_removed']} removed, as one process")

def battles(mpirun, throng, throng_mpi):
    """Battles on several ranks: the hash, the dead and every other field
    as one process."""
    here = os.path.dirname(os.path.abspath(__file__))
    runs = [([os.path.join(here, "data", name), "--steps", str(steps), "--metrics", metrics], threads, ranks)
            for name, steps, threads, metrics, ranks in (BATTLES[:1] if QUICK else BATTLES)]
    runs += [] if QUICK else [(opts + ["--metrics", "off"], 1, ranks) for opts, ranks in BATTLE_SCENES]
    for args, threads, ranks in runs:
        name, steps = os.path.basename(args[0]), args[args.index("--steps") + 1]
        opts = args + ["--summary", "json", "--threads", str(threads)]
        one = summary([throng, "run"] + opts, threads)
        if one["agents_removed"] == 0:
            sys.exit(f"mpi_runs: {name}: nobody died in {steps} steps")
        for r in ranks:
            many = summary(mpirun_args(mpirun, r) + [throng_mpi, "run"] + opts, threads)
            check_exchange(f"{name} on {r} ranks", many, r, one["agents"], churn=True)
            check_same(f"{name} ({steps} steps, {threads} threads a rank) on {r} ranks", one, many, "one process")
            print(f"mpi_runs: {name} ({steps} steps, {threads} threads a rank) on {r} ranks: hash "
                  f"{many['hash']}, {one['agents_removed']} dead, {one.get('routed_units', 0)} units routed, as one process")


def checkpoints(mpirun, throng, throng_mpi, tmp, files):
    """Checkpoints written and resumed by throng run and throng-mpi alike
    continue to one process's hash and summary."""
    cases = [c for c in CHECKPOINTS if c[0] in QUICK_CHECKPOINTS] if QUICK else CHECKPOINTS
    for scene, extra, before, after, writers, every, readers in cases:
        opts = [files.get(scene, scene)] + extra + ["--threads", "1"]
        one_ck, many_ck = os.path.join(tmp, "one.ck"), os.path.join(tmp, "many.ck")
        whole = summary([throng, "run"] + opts + ["--steps", str(before + after), "--summary", "json"], 1)
        summary([throng, "run"] + opts + ["--steps", str(before), "--summary", "json", "--checkpoint", one_ck], 1)
        summary(mpirun_args(mpirun, writers) + [throng_mpi, "run"] + opts +
                ["--steps", str(before), "--summary", "json", "--checkpoint", many_ck, "--checkpoint-every", str(every)], 1)
        rest = ["--steps", str(after), "--summary", "json", "--threads", "1"]
        ref = summary([throng, "run", "--resume", one_ck] + rest, 1)
        if ref["hash"] != whole["hash"]:
            sys.exit(f"mpi_runs: {scene}: one process resumed at step {before}: hash {ref['hash']}, uninterrupted "
                     f"{whole['hash']}")
        resumes = [(f"throng-mpi's checkpoint ({writers} ranks) resumed by one process",
                    [throng, "run", "--resume", many_ck] + rest)]
        for r in readers:
            resumes += [(f"one process's checkpoint resumed on {r} ranks",
                         mpirun_args(mpirun, r) + [throng_mpi, "run", "--resume", one_ck] + rest),
                        (f"throng-mpi's checkpoint ({writers} ranks) resumed on {r} ranks",
                         mpirun_args(mpirun, r) + [throng_mpi, "run", "--resume", many_ck] + rest)]
        for what, cmd in resumes:
            check_same(f"{scene}: {what}", ref, summary(cmd, 1), "one process's resume")
        print(f"mpi_runs: {scene} checkpointed at step {before} (throng-mpi every {every}) and resumed "
              f"{len(resumes)} ways: hash {ref['hash']} at step {before + after}, as the uninterrupted run")


def mpirun_args(mpirun, ranks):
    args = [mpirun, "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:  # CI runs as root; Open MPI refuses it unless told
        args.append("--allow-run-as-root")
    for v in SANITIZERS:  # to every rank, as it is here
        args += ["-x", v]
    return args


def summary(cmd, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit(f"mpi_runs: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout)


def torus_jam(path):
    """A scenario file: 7,500 agents of radius 0.5 m at random on a 100 m
    torus (59 % of the ground covered), moving at 0.5 to 1.5 m/s, with
    separation, wander and solid contacts (on by default)."""
    rng = random.Random(3)
    rows = []
    for _ in range(7500):
        x, y = rng.uniform(0, 100), rng.uniform(0, 100)
        a, sp = rng.uniform(0, 2 * math.pi), rng.uniform(0.5, 1.5)
        rows.append(f"    - [{x:.4f}, {y:.4f}, {sp * math.cos(a):.4f}, {sp * math.sin(a):.4f}, {math.cos(a):.6f}, "
                    f"{math.sin(a):.6f}, 0, 0, 3, 4, 0.5, \"boid\", 0, null]")
    with open(path, "w") as f:
        f.write("""version: 2
name: "torus-jam"
description: "a jammed crowd on a torus: contacts across the seams"
steps: 60
goal_radius: 0
world:
  bounds: {min: [0, 0], max: [100, 100], mode: wrap}
  dt: 0.016666668
  seed: 1
  cell_size: 0
archetypes:
  "boid":
    mode: weighted
    slots:
      - {kind: separation, weight: 2, enabled: true, priority: false, neighbor_radius: 1.5, same_group_only: false}
      - {kind: wander, weight: 0.4, enabled: true, priority: false, circle_distance: 2, circle_radius: 1, jitter: 3, frame: local}
obstacles: []
walls: []
agents:
  rows:
""")
        f.write("\n".join(rows) + "\n")


def decompose(mpirun, throng, throng_mpi, tmp):
    here = os.path.dirname(os.path.abspath(__file__))
    files = {}
    for name in ("flock", "charge"):
        files[f"{name}-open"] = os.path.join(tmp, f"{name}-open.yaml")
        with open(os.path.join(here, "..", "examples", f"{name}.yaml")) as f:
            lines = [l for l in f if not l.startswith("measure:")]
        with open(files[f"{name}-open"], "w") as f:
            f.writelines(lines)
    files["torus-jam"] = os.path.join(tmp, "torus-jam.yaml")
    torus_jam(files["torus-jam"])
    most = {}
    for scene, agents, steps, ranks, how, shape in DECOMPOSE:
        opts = [files.get(scene, scene), "--steps", str(steps), "--summary", "json", "--threads", "1"]
        if agents is not None:
            opts += ["--agents", str(agents), "--metrics", "off"]
        one = summary([throng, "run"] + opts, 1)
        many = summary(mpirun_args(mpirun, ranks) + [throng_mpi, "run"] + opts + ["--decompose", how], 1)
        check_exchange(f"{scene} in {how}", many, ranks, one["agents"])
        check_same(f"{scene} on {ranks} ranks in {how}", one, many, "one process")
        if many["decomposition"] != shape:
            sys.exit(f"mpi_runs: {scene} on {ranks} ranks in {how}: decomposition {many['decomposition']}, "
                     f"expected {shape}")
        most[(scene, ranks, how)] = many["exchange_bytes_max_rank_step"]
        print(f"mpi_runs: {scene} on {ranks} ranks in {how} ({shape}): hash {many['hash']}, as one process; "
              f"{many['exchange_bytes_max_rank_step']:.0f} bytes a step from the rank that sends most")
    if not QUICK and not most[("field", 4, "blocks")] < most[("field", 4, "strips")]:
        sys.exit(f"mpi_runs: field on 4 ranks: blocks send {most[('field', 4, 'blocks')]} bytes a step at most, "
                 f"strips {most[('field', 4, 'strips')]}: blocks should send fewer")


def balance(mpirun, throng, throng_mpi):
    for scene, agents, steps, ranks, every in BALANCE:
        opts = [scene, "--agents", str(agents), "--steps", str(steps), "--metrics", "off", "--summary", "json",
                "--threads", "1"]
        one = summary([throng, "run"] + opts, 1)
        got = {}
        for k in (0, every):
            many = summary(mpirun_args(mpirun, ranks) + [throng_mpi, "run"] + opts + ["--balance-every", str(k)], 1)
            if many["hash"] != one["hash"]:
                sys.exit(f"mpi_runs: {scene} --balance-every {k} on {ranks} ranks: hash {many['hash']}, "
                         f"one process {one['hash']}")
            got[k] = many
        fixed, moving = got[0], got[every]
        if fixed["border_moves"] != 0 or moving["border_moves"] < 1 or \
                not moving["imbalance"] < fixed["imbalance"] or not moving["imbalance"] >= 1.0:
            sys.exit(f"mpi_runs: {scene} on {ranks} ranks: borders fixed: {fixed['border_moves']} moves, imbalance "
                     f"{fixed['imbalance']}; every {every} steps: {moving['border_moves']} moves, imbalance "
                     f"{moving['imbalance']}")
        print(f"mpi_runs: {scene} on {ranks} ranks, borders moved {moving['border_moves']} times: imbalance "
              f"{fixed['imbalance']:.3f} -> {moving['imbalance']:.3f}, hash as one process")


def outputs(mpirun, throng, throng_mpi, tmp):
    """--out of throng-mpi against throng run's, byte for byte."""
    for scene, agents, steps, every, fmt, extra, ranks in OUTPUTS:
        to_stdout = "--fields" in extra
        opts = [scene, "--agents", str(agents), "--steps", str(steps), "--metrics", "off", "--summary", "json",
                "--threads", "1", "--every", str(every), "--format", fmt] + extra
        files = []
        for who, cmd in [("one", [throng, "run"])] + [(f"r{r}", mpirun_args(mpirun, r) + [throng_mpi, "run"])
                                                        for r in ranks]:
            path = os.path.join(tmp, f"{scene}-{who}.{fmt}")
            env = dict(os.environ, OMP_NUM_THREADS="1")
            if to_stdout:
                with open(path, "wb") as f:
                    p = subprocess.run(cmd + opts + ["--out", "-"], stdout=f, stderr=subprocess.PIPE, env=env,
                                       timeout=600)
                report = p.stderr.decode()
            else:
                p = subprocess.run(cmd + opts + ["--out", path], capture_output=True, env=env, timeout=600)
                report = p.stdout.decode()
            if p.returncode != 0:
                sys.exit(f"mpi_runs: {' '.join(cmd + opts)} exited {p.returncode}:\n{p.stderr.decode()}")
            frames = json.loads(report)["frames"]
            files.append((who, path, frames))
        with open(files[0][1], "rb") as f:
            want = f.read()
        for who, path, frames in files[1:]:
            with open(path, "rb") as f:
                got = f.read()
            if got != want or frames != files[0][2]:
                sys.exit(f"mpi_runs: {scene} --format {fmt} --every {every} on {who[1:]} ranks: {len(got)} bytes "
                         f"and {frames} frames, one process {len(want)} bytes and {files[0][2]} frames")
        print(f"mpi_runs: {scene} --out {'-' if to_stdout else 'FILE'} --format {fmt} --every {every}: "
              f"{len(want)} bytes, {files[0][2]} frames, the same on {', '.join(str(r) for r in ranks)} ranks")
    # A write that fails: exit 4 (an output failed), a message naming --out, no summary.
    cmd = mpirun_args(mpirun, 2) + [throng_mpi, "run", "field", "--agents", "500", "--steps", "5", "--metrics", "off",
                                    "--out", "/dev/full", "--format", "bin"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 4 or "--out: /dev/full" not in p.stderr or "hash" in p.stdout:
        sys.exit(f"mpi_runs: --out /dev/full: exit {p.returncode}, expected 4 and a message naming --out:\n"
                 f"{p.stdout}{p.stderr}")
    print("mpi_runs: --out /dev/full: exit 4, named")
    if not QUICK:
        interrupt(mpirun, throng, throng_mpi, tmp)
        realtime(mpirun, throng, throng_mpi)


def realtime(mpirun, throng, throng_mpi):
    """--realtime: no faster than simulated time (a lower bound only: a
    busy machine may run slower), the same bits."""
    opts = ["field", "--agents", "500", "--steps", "30", "--metrics", "off", "--summary", "json", "--threads", "1"]
    one = summary([throng, "run"] + opts, 1)
    many = summary(mpirun_args(mpirun, 2) + [throng_mpi, "run"] + opts + ["--realtime"], 1)
    if many["hash"] != one["hash"] or many["seconds"] < 0.99 * many["simulated_seconds"]:
        sys.exit(f"mpi_runs: --realtime on 2 ranks: {many['seconds']} s for {many['simulated_seconds']} s simulated, "
                 f"hash {many['hash']} (one process {one['hash']})")
    print(f"mpi_runs: --realtime on 2 ranks: {many['seconds']:.3f} s for {many['simulated_seconds']:.3f} s simulated, "
          f"hash as one process")


def interrupt(mpirun, throng, throng_mpi, tmp):
    """SIGINT to mpirun (which sends the ranks SIGTERM) stops the run, its
    checkpoint written at the step it stopped after: a resume goes on to
    the hash of a run that never stopped."""
    path = os.path.join(tmp, "interrupted.bin")
    ck = os.path.join(tmp, "interrupted.ck")
    opts = ["field", "--agents", "1000", "--metrics", "off", "--summary", "json", "--threads", "1", "--quiet"]
    cmd = mpirun_args(mpirun, 2) + [throng_mpi, "run"] + opts + ["--steps", "1000000", "--out", path, "--every", "500",
                                                           "--checkpoint", ck]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    try:
        s = json.loads(out)
    except json.JSONDecodeError:
        sys.exit(f"mpi_runs: interrupted run: no summary (exit {p.returncode}):\n{out}{err}")
    steps = s["steps"]
    if s.get("interrupted") != "SIGTERM" or s.get("steps_planned") != 1000000 or s["frames"] != steps // 500 + 1:
        sys.exit(f"mpi_runs: interrupted run: {s}")
    leftovers = [f for f in os.listdir(tmp) if f.startswith(".interrupted")]
    if not os.path.exists(path) or leftovers:
        sys.exit(f"mpi_runs: interrupted run: {path} {'missing' if not os.path.exists(path) else 'written'}, "
                 f"temporaries {leftovers}")
    one = summary([throng, "run"] + opts + ["--steps", str(steps)], 1)
    if one["hash"] != s["hash"]:
        sys.exit(f"mpi_runs: interrupted after {steps} steps: hash {s['hash']}, one process {one['hash']}")
    resumed = summary(mpirun_args(mpirun, 3) + [throng_mpi, "run", "--resume", ck, "--steps", "40", "--summary", "json",
                                                "--metrics", "off", "--threads", "1"], 1)
    one = summary([throng, "run"] + opts + ["--steps", str(steps + 40)], 1)
    if resumed["hash"] != one["hash"]:
        sys.exit(f"mpi_runs: the interrupted run's checkpoint (step {steps}) resumed for 40 steps on 3 ranks: hash "
                 f"{resumed['hash']}, one process {one['hash']}")
    print(f"mpi_runs: SIGINT to mpirun: stopped after step {steps}, {s['frames']} frames kept, hash as one process; "
          f"its checkpoint resumed on 3 ranks to one process's hash 40 steps on")


# MPI_RUNS_QUICK: a few of each kind.
QUICK_CASES = [
    ("field", 2000, 20, 1, "on", [2], []),
    ("evacuation", 200, 150, 1, "on", [2], []),
    ("concourse", 300, 150, 1, "off", [3], []),
    ("charge", 2000, 40, 1, "on", [3], []),
    ("field", 1000, 20, 1, "off", [2], ["--engine", "scalar"]),
]
QUICK_DECOMPOSE = {("flock-open", 4, "blocks"), ("torus-jam", 2, "blocks")}
QUICK_OUTPUTS = {("crossing", "bin")}


def main():
    global CASES, DECOMPOSE, OUTPUTS
    mpirun, throng, throng_mpi = sys.argv[1:4]
    if QUICK:
        CASES = QUICK_CASES
        DECOMPOSE = [d for d in DECOMPOSE if (d[0], d[3], d[4]) in QUICK_DECOMPOSE]
        OUTPUTS = [o for o in OUTPUTS if (o[0], o[4]) in QUICK_OUTPUTS]
    for scene, agents, steps, threads, metrics, ranks, extra in CASES:
        opts = [scene, "--agents", str(agents), "--steps", str(steps), "--metrics", metrics, "--summary", "json",
                "--threads", str(threads)] + extra
        one = summary([throng, "run"] + opts, threads)
        for r in ranks:
            many = summary(mpirun_args(mpirun, r) + [throng_mpi, "run"] + opts, threads)
            check_exchange(f"{scene} on {r} ranks", many, r, agents, churn=scene in ("evacuation", "concourse"))
            check_same(f"{scene} ({agents} agents, {steps} steps) on {r} ranks", one, many, "one process")
            print(f"mpi_runs: {scene} {' '.join(extra)} ({agents} agents, {steps} steps, {threads} threads a rank, "
                  f"metrics {metrics}) "
                  f"on {r} ranks: hash {many['hash']} and {len(one)} fields, as one process")
    scene, agents, seconds, ranks = SECONDS
    opts = [scene, "--agents", str(agents), "--seconds", seconds, "--metrics", "off", "--summary", "json",
            "--threads", "1"]
    one = summary([throng, "run"] + opts, 1)
    for r in [] if QUICK else ranks:
        many = summary(mpirun_args(mpirun, r) + [throng_mpi, "run"] + opts, 1)
        if (many["steps"], many["hash"]) != (one["steps"], one["hash"]):
            sys.exit(f"mpi_runs: {scene} --seconds {seconds} on {r} ranks: {many['steps']} steps, hash "
                     f"{many['hash']}; one process {one['steps']} steps, hash {one['hash']}")
        print(f"mpi_runs: {scene} --seconds {seconds} on {r} ranks: {many['steps']} steps, as one process")
    if not QUICK:
        balance(mpirun, throng, throng_mpi)
    with tempfile.TemporaryDirectory(prefix="mpi_runs.") as tmp:
        decompose(mpirun, throng, throng_mpi, tmp)
        outputs(mpirun, throng, throng_mpi, tmp)
    here = os.path.dirname(os.path.abspath(__file__))
    files = {"@bad": os.path.join(here, "data", "bad", "world_problems.yaml")}
    files["@battle"] = os.path.join(here, "data", "battle_small.yaml")
    files["@battle-morale"] = os.path.join(here, "data", "battle_small_morale.yaml")
    with tempfile.TemporaryDirectory(prefix="mpi_runs.") as tmp:
        with open(os.path.join(here, "..", "examples", "crossing.yaml")) as f:
            crossing = f.read()
        for name, section in CHURN_FILES.items():
            files[name] = os.path.join(tmp, name[1:] + ".yaml")
            with open(files[name], "w") as f:
                f.write(crossing + section)
        battles(mpirun, throng, throng_mpi)
        churn_files(mpirun, throng, throng_mpi, tmp, files)
        checkpoints(mpirun, throng, throng_mpi, tmp, files)
        files["@missing"] = os.path.join(tmp, "missing.ck")
        files["@unwritable"] = os.path.join(tmp, "no-such-directory", "ck.bin")
        files["@concourse-ck"] = os.path.join(tmp, "concourse.ck")
        summary([throng, "run", "concourse", "--agents", "300", "--steps", "2", "--summary", "json", "--checkpoint",
                 files["@concourse-ck"]], 1)
        files["@battle-formation"] = os.path.join(tmp, "battle-formation.yaml")
        with open(os.path.join(here, "data", "battle_small_morale.yaml")) as f:
            battle = f.read().replace("archetype: west_infantry, morale: {breaks_at: 0.1, rally_time: 3},",
                                      "archetype: west_infantry, morale: {breaks_at: 0.1}, formation: {kind: line},")
        with open(files["@battle-formation"], "w") as f:
            f.write(battle)
        for args, word, status in REFUSED + [REFUSED_FORMATION]:
            args = [files.get(a, a) for a in args]
            cmd = mpirun_args(mpirun, 2) + [throng_mpi, "run"] + args + ["--steps", "1"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            if p.returncode != status or word not in p.stderr:
                sys.exit(f"mpi_runs: {' '.join(args)}: exit {p.returncode}, expected {status} and a refusal naming "
                         f"{word!r}:\n{p.stderr}")
            print(f"mpi_runs: refused: {' '.join(args)}")
    print("mpi_runs: ok")


if __name__ == "__main__":
    main()
