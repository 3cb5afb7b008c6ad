#!/usr/bin/env python3
"""Times two shell commands run in turn (A B A B ...) and prints, for wall and CPU time, each side's median
and the median of the ratios A/B taken pair by pair (a drift of the machine's speed during the call then
moves both sides of a pair alike).

    benches/pairs.py [-n RUNS] [--warmup N] 'COMMAND_A' 'COMMAND_B'

CPU time is the child's user + system time as the kernel accounts it when it is reaped (`wait4`); wall time
is a monotonic clock read around the run. Output lines: `A wall|cpu MEDIAN`, `B …`, `A/B wall|cpu MEDIAN`.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def run(command: str) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command` (through `sh -c`)."""
    start = time.perf_counter()
    child = subprocess.Popen(["sh", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"exit {child.returncode}: {command}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--runs", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("a")
    parser.add_argument("b")
    args = parser.parse_args()
    for _ in range(args.warmup):
        run(args.a)
        run(args.b)
    pairs = [(run(args.a), run(args.b)) for _ in range(args.runs)]
    for i, what in enumerate(["wall", "cpu"]):
        a = [p[0][i] for p in pairs]
        b = [p[1][i] for p in pairs]
        print(f"A {what} {statistics.median(a):.4f}")
        print(f"B {what} {statistics.median(b):.4f}")
        print(f"A/B {what} {statistics.median(x / y for x, y in zip(a, b)):.4f}")


if __name__ == "__main__":
    main()
