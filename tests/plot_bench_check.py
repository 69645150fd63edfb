#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/plot_bench on a made-up run: its table, ratios and warnings; its --help
and its one-line errors for a missing file and a file that is not JSON.

    tests/plot_bench_check.py SCRIPTS_DIR

Writes a Google Benchmark JSON of whole-step runs (field at 10,000 agents:
SIMD on 1 and 2 threads, scalar on 1) and a machine.txt into a temporary
directory of its own, runs plot_bench there, and checks the numbers it
prints against the ones worked by hand: SIMD 1 thread 8e6 agent-steps/s
is 125 ns an agent-step and 2.00x the scalar's 4e6; 2 threads at 2e6 are
0.25x one thread, marked and warned about; a load of 1.5 before the run
on 2 CPUs is a busy machine. Its battle at 10,000 agents (combat off
5e6, on 4e6 agent-steps/s on 1 thread: 0.80, met; 8e6 and 5e6 on 2:
0.62, not met) gives the combat on / off lines. Its dense row at 100,000
agents (SIMD 2e6 agent-steps/s, 500 CPU ns, 204 candidates, 7.5 % of the
peak flops; scalar 1,000 CPU ns) reads 4.08e+08 candidate reads a second
and 2.00x the scalar in CPU time. A quiet run of the same with 2 threads at
1.6e7 warns of nothing. Exits non-zero with a message on any mismatch.
"""
import json
import os
import subprocess
import sys
import tempfile


# The dense row: (engine, agent-steps/s, CPU ns, share of peak flops), 100,000 agents, 1 thread.
DENSE = (("simd", 2e6, 500.0, 0.075), ("scalar", 1e6, 1000.0, 0.05))


def run_json(rates, battle=None):
    benches = []
    for engine, rate, cpu, share in DENSE if battle else ():
        name = f"step/dense/{engine}/large/agents:100000/threads:1/manual_time"
        benches.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 10,
                        "real_time": 1e3 * 1e5 / rate, "cpu_time": 1e3 * 1e5 / rate, "time_unit": "ms",
                        "items_per_second": rate, "cpu_ns_per_agent_step": cpu, "neighbours_visited": 204.0,
                        "candidate_reads_per_s": 204.0 * rate, "flop_share": share})
    for (combat, threads), rate in (battle or {}).items():
        name = f"battle/simd/agents:10000/combat:{combat}/threads:{threads}/manual_time"
        benches.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 10,
                        "real_time": 1e3 * 5e5 / rate, "cpu_time": 1e3 * 5e5 / rate, "time_unit": "ms",
                        "items_per_second": rate})
    for (engine, threads), rate in rates.items():
        name = f"step/field/{engine}/agents:10000/threads:{threads}/manual_time"
        benches.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 10,
                        "real_time": 1e3 * 1e4 / rate, "cpu_time": 1e3 * 1e4 / rate, "time_unit": "ms",
                        "items_per_second": rate, "cpu_ns_per_agent_step": 1e9 / rate})
    return {"context": {"date": "2026-12-06T13:00:00+00:00", "host_name": "check", "num_cpus": 2,
                        "mhz_per_cpu": 2000, "load_avg": [0.1, 0.1, 0.1]}, "benchmarks": benches}


def plot(scripts, tmp, rates, before, after, battle=None):
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "throng_bench.json"), "w") as f:
        json.dump(run_json(rates, battle), f)
    with open(os.path.join(tmp, "machine.txt"), "w") as f:
        f.write("# machine\nCPU(s):                                  2\n"
                f"# before: 2026-12-06 13:00:00 UTC  13:00:00 up 1:00,  0 user,  load average: {before}, 0.50, 0.40\n"
                f"# after:  2026-12-06 13:01:00 UTC  13:01:00 up 1:01,  0 user,  load average: {after}, 0.60, 0.40\n")
    r = subprocess.run([sys.executable, os.path.join(scripts, "plot_bench"), os.path.join(tmp, "throng_bench.json")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"plot_bench failed ({r.returncode}): {r.stderr}")
    return r.stdout


def expect(text, needle, what):
    if needle not in text:
        sys.exit(f"plot_bench: {what}: no {needle!r} in\n{text}")


def refused(scripts, tmp):
    """--help, a missing file and a file that is not JSON: a usage text or one clear line, no traceback."""
    tool = os.path.join(scripts, "plot_bench")
    r = subprocess.run([sys.executable, tool, "--help"], capture_output=True, text=True)
    if r.returncode != 0 or "scripts/plot_bench RESULTS.json [OUTDIR]" not in r.stdout:
        sys.exit(f"plot_bench --help: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
    missing = os.path.join(tmp, "none.json")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write("{\"benchmarks\": [\n")
    for path, says in ((missing, f"plot_bench: {missing}: No such file or directory"),
                       (bad, f"plot_bench: {bad}: not Google Benchmark JSON (Expecting value: line 2 column 1")):
        r = subprocess.run([sys.executable, tool, path], capture_output=True, text=True)
        if r.returncode != 1 or says not in r.stderr or "Traceback" in r.stderr:
            sys.exit(f"plot_bench {path}: exit {r.returncode}, stderr {r.stderr!r}, expected {says!r}")
    if sorted(os.listdir(tmp)) != ["bad.json"]:
        sys.exit(f"plot_bench wrote files for a bad input: {os.listdir(tmp)}")


def main():
    scripts = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        refused(scripts, tmp)
        busy = plot(scripts, os.path.join(tmp, "busy"),
                    {("simd", 1): 8e6, ("simd", 2): 2e6, ("scalar", 1): 4e6}, "1.50", "3.00",
                    {(0, 1): 5e6, (1, 1): 4e6, (0, 2): 8e6, (1, 2): 5e6})
        battle = {tuple(line.split()[:3]): line.split()[3:] for line in busy.splitlines() if line.startswith("simd")}
        if battle.get(("simd", "10,000", "1")) != ["5,000,000", "4,000,000", "0.80", "0.80-0.80", "met"]:
            sys.exit(f"plot_bench: battle 1-thread row wrong: {busy}")
        if battle.get(("simd", "10,000", "2")) != ["8,000,000", "5,000,000", "0.62", "0.62-0.62", "not", "met"]:
            sys.exit(f"plot_bench: battle 2-thread row wrong: {busy}")
        rows = {tuple(line.split()[:4]): line.split()[4:] for line in busy.splitlines()
                if line.startswith("field")}
        if rows.get(("field", "simd", "10,000", "1")) != ["8,000,000", "125.0", "2.00", "-"]:
            sys.exit(f"plot_bench: SIMD 1-thread row wrong: {busy}")
        if rows.get(("field", "simd", "10,000", "2")) != ["2,000,000", "500.0", "0.50", "0.25", "!"]:
            sys.exit(f"plot_bench: SIMD 2-thread row wrong: {busy}")
        if rows.get(("field", "scalar", "10,000", "1")) != ["4,000,000", "250.0", "-", "-"]:
            sys.exit(f"plot_bench: scalar row wrong: {busy}")
        expect(busy, "warning: the machine was busy before the run: load average 1.50", "busy before")
        expect(busy, "warning: the machine was busy during the run: load average 3.00", "busy during")
        expect(busy, "more than 5 % slower than on 1 (worst field at 10,000 agents: 0.25x", "two threads lost")
        with open(os.path.join(tmp, "busy", "summary.md")) as f:
            md = f.read()
        expect(md, "## At a glance", "summary.md's table")
        expect(md, "## Battle: combat on / off", "summary.md's battle table")
        dense = [line.split() for line in busy.splitlines() if line.split()[:2] in (["simd", "100,000"],
                                                                                  ["scalar", "100,000"])]
        if dense != [["simd", "100,000", "1", "2,000,000", "500.0", "204.0", "4.08e+08", "7.5%", "2.00"],
                     ["scalar", "100,000", "1", "1,000,000", "1000.0", "204.0", "2.04e+08", "5.0%", "-"]]:
            sys.exit(f"plot_bench: dense rows wrong: {dense}\n{busy}")
        expect(md, "## The dense row", "summary.md's dense row")
        expect(md, "**Warning:** the machine was busy before the run", "summary.md's warning")
        if "Issue 3 targets" in md:
            sys.exit("plot_bench: an empty targets table in summary.md")
        quiet = plot(scripts, os.path.join(tmp, "quiet"),
                     {("simd", 1): 8e6, ("simd", 2): 1.6e7, ("scalar", 1): 4e6}, "0.10", "2.10")
        if "warning" in quiet or "!" in quiet:
            sys.exit(f"plot_bench: a quiet run with 2 threads at 2.00x warned: {quiet}")
        expect(quiet, "2.00", "the 2-thread speed-up")
    print("plot_bench checks passed")


if __name__ == "__main__":
    main()
