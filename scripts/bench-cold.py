#!/usr/bin/env python3
"""The whole-process benchmark of issue 24 (BENCHMARKS.md, "The cold CLI
against a JavaScript scan"): builds the workloads, then runs the release
`lorebook` CLI and the JavaScript baseline (benches/baseline/scan.mjs) side
by side, interleaved, and prints each command's median and minimum wall time,
its peak memory (max RSS of the process) and the ratios to the baseline.

Usage: scripts/bench-cold.py [--runs N] [--big] [--dir DIR]
  --runs N  runs per command (default 7)
  --big     also the 100,000-entry workload with a 5,000-message chat
  --dir     where the workloads are written (default /tmp/lorebook-bench)
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, cwd=None):
    """Runs `cmd` once with its output thrown away; (seconds, peak KB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench-cold: {' '.join(cmd)} failed:\n{err}")
    return elapsed, usage.ru_maxrss


def first_line_time(cmd):
    """Seconds until `cmd` prints its first line (a streamed log)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdout.readline()
    first = time.perf_counter() - start
    proc.stdout.read()
    proc.wait()
    return first


def build_workload(out, entries, messages, budget):
    if os.path.isfile(os.path.join(out, "book.json")):
        return
    subprocess.run(
        ["cargo", "run", "--quiet", "--release", "-p", "lorebook-engine", "--example", "workload", "--",
         out, "--entries", str(entries), "--messages", str(messages), "--budget", str(budget)],
        cwd=ROOT, check=True)


def bench(label, commands, runs):
    results = {name: [] for name, _ in commands}
    for _ in range(runs):
        for name, cmd in commands:  # interleaved: the load falls on all alike
            results[name].append(run(cmd))
    print(f"\n{label}  (load average {os.getloadavg()[0]:.2f})")
    print(f"  {'command':<34} {'median':>9} {'min':>9} {'peak MB':>9} {'× baseline':>11}")
    base = statistics.median(t for t, _ in results["baseline (node)"])
    for name, samples in results.items():
        med = statistics.median(t for t, _ in samples)
        low = min(t for t, _ in samples)
        peak = max(kb for _, kb in samples) / 1024
        ratio = f"{base / med:.1f}×" if name != "baseline (node)" else "1.0×"
        print(f"  {name:<34} {med * 1000:>7.0f}ms {low * 1000:>7.0f}ms {peak:>9.0f} {ratio:>11}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--dir", default="/tmp/lorebook-bench")
    args = ap.parse_args()
    if not shutil.which("node"):
        sys.exit("bench-cold: node is needed for the baseline")
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "lorebook-cli"], cwd=ROOT, check=True)
    cli = os.path.join(ROOT, "target/release/lorebook")
    scan = os.path.join(ROOT, "benches/baseline/scan.mjs")
    small = os.path.join(args.dir, "10k")
    build_workload(small, 10_000, 200, 4000)
    book, chat = os.path.join(small, "book.json"), os.path.join(small, "chat.json")
    bench("10,000 entries, 200 messages (budget 4,000)", [
        ("baseline (node)", ["node", scan, book, chat]),
        ("lorebook preview --json", [cli, "preview", book, "--chat", chat, "--json"]),
        ("lorebook lint", [cli, "lint", book]),
        ("lorebook diff (the book with itself)", [cli, "diff", book, book, "--chat", chat]),
    ], args.runs)
    if args.big:
        big = os.path.join(args.dir, "100k")
        build_workload(big, 100_000, 5_000, 4000)
        book, chat = os.path.join(big, "book.json"), os.path.join(big, "chat.json")
        bench("100,000 entries, 5,000 messages (budget 4,000)", [
            ("baseline (node)", ["node", scan, book, chat]),
            ("lorebook preview --json", [cli, "preview", book, "--chat", chat, "--json"]),
            ("lorebook preview --log --json", [cli, "preview", book, "--chat", chat, "--log", "--json"]),
        ], max(1, args.runs // 3))
        first = first_line_time([cli, "preview", book, "--chat", chat, "--log", "--json"])
        print(f"  first request of the --log printed after {first * 1000:.0f} ms")


if __name__ == "__main__":
    main()
