#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""throng-mpi against throng run (issue 15): the same scene on 1 to 4 MPI
ranks prints the same summary, hash and every figure, as one process.

Usage: mpi_runs.py MPIRUN THRONG THRONG_MPI

Each case runs `throng run SCENE --agents N --steps S --metrics off
--summary json --threads T` once, then the same through
`mpirun -np R throng-mpi run ...` for each R, and compares every field of
the two JSON summaries but the timings and the thread counts. Then the
refusals: what throng-mpi does not distribute yet exits 2 with a message.
Exits 1 at the first difference, naming the case and the field.
"""
import json
import os
import subprocess
import sys

# Fields that measure the run, not the crowd.
TIMING = {"seconds", "agent_steps_per_s", "threads", "steps_one_thread"}

# (scene, agents, steps, threads per rank, ranks): field with obstacles and
# contacts (and at 20,000 agents on two threads a rank, so that the parallel
# regions run), field long enough for agents to reach their goals and draw
# new ones across ranks, bottleneck's walls and crowded door, herd's
# threat on a world of 8 agents (ranks with no agent).
CASES = [
    ("field", 3000, 60, 1, [1, 2, 3, 4]),
    ("field", 400, 2500, 1, [4]),
    ("field", 20000, 20, 2, [2]),
    ("bottleneck", 1000, 150, 1, [3]),
    ("herd", 8, 300, 1, [2]),
]

# --seconds instead of --steps: the same steps as throng run takes.
SECONDS = ("crossing", 1000, "2.5", [2])

# What is refused, and a word of the message.
REFUSED = [
    (["armies", "--metrics", "off"], "target rules"),
    (["flock", "--metrics", "off"], "outcome measure"),
    (["field"], "--metrics off"),
    (["field", "--metrics", "off", "--out", "/dev/null"], "--out"),
]


def mpirun_args(mpirun, ranks):
    args = [mpirun, "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:  # CI runs as root; Open MPI refuses it unless told
        args.append("--allow-run-as-root")
    return args


def summary(cmd, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit(f"mpi_runs: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout)


def main():
    mpirun, throng, throng_mpi = sys.argv[1:4]
    for scene, agents, steps, threads, ranks in CASES:
        opts = [scene, "--agents", str(agents), "--steps", str(steps), "--metrics", "off", "--summary", "json",
                "--threads", str(threads)]
        one = summary([throng, "run"] + opts, threads)
        for r in ranks:
            many = summary(mpirun_args(mpirun, r) + [throng_mpi, "run"] + opts, threads)
            for key in sorted(set(one) | set(many)):
                if key not in TIMING and one.get(key) != many.get(key):
                    sys.exit(f"mpi_runs: {scene} ({agents} agents, {steps} steps) on {r} ranks: {key} is "
                             f"{many.get(key)!r}, one process {one.get(key)!r}")
            print(f"mpi_runs: {scene} ({agents} agents, {steps} steps, {threads} threads a rank) on {r} ranks: "
                  f"hash {many['hash']}, as one process")
    scene, agents, seconds, ranks = SECONDS
    opts = [scene, "--agents", str(agents), "--seconds", seconds, "--metrics", "off", "--summary", "json",
            "--threads", "1"]
    one = summary([throng, "run"] + opts, 1)
    for r in ranks:
        many = summary(mpirun_args(mpirun, r) + [throng_mpi, "run"] + opts, 1)
        if (many["steps"], many["hash"]) != (one["steps"], one["hash"]):
            sys.exit(f"mpi_runs: {scene} --seconds {seconds} on {r} ranks: {many['steps']} steps, hash "
                     f"{many['hash']}; one process {one['steps']} steps, hash {one['hash']}")
        print(f"mpi_runs: {scene} --seconds {seconds} on {r} ranks: {many['steps']} steps, as one process")
    for args, word in REFUSED:
        cmd = mpirun_args(mpirun, 2) + [throng_mpi, "run"] + args + ["--steps", "1"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode == 0 or word not in p.stderr:
            sys.exit(f"mpi_runs: {' '.join(args)}: exit {p.returncode}, expected a refusal naming {word!r}:\n"
                     f"{p.stderr}")
        print(f"mpi_runs: refused: {' '.join(args)}")
    print("mpi_runs: ok")


if __name__ == "__main__":
    main()
