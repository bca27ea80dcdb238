#!/usr/bin/env python3
"""Measure how long `go movetime N` takes in ponderosa's UCI front end.

    scripts/movetime-check.py [-n N] [-ms MS[,MS...]] [-engine CMD] [EPD]

For each position of EPD (default: engine/search/testdata/ecm40.epd, plus the
start position) it sends `position fen ...` and `go movetime MS`, and times
the gap between writing the `go` line and reading `bestmove`, on this
machine's wall clock (the engine's own time is not trusted). Prints, per MS,
min / median / max and how many answers fell outside the window the
architecture issue sets: 900-1100 ms for 1000, 90-120 ms for 100 (for any
other MS: 0.9 MS .. 1.1 MS + 20 ms).

A measuring tool, not a test: the machine is shared and noisy, so run it on a
quiet machine and report the figures with the command.
"""
import argparse
import shlex
import statistics
import subprocess
import time


def window(ms):
    if ms == 1000:
        return 900, 1100
    if ms == 100:
        return 90, 120
    return 0.9 * ms, 1.1 * ms + 20


def read_until(proc, prefix):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("engine closed its output")
        if line.startswith(prefix):
            return line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("epd", nargs="?", default="engine/search/testdata/ecm40.epd")
    ap.add_argument("-n", type=int, default=20, help="positions from the file (plus startpos)")
    ap.add_argument("-ms", default="100,1000", help="comma-separated move times")
    ap.add_argument("-engine", default="go run ./cmd/ponderosa uci")
    a = ap.parse_args()

    fens = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
    with open(a.epd) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4:
                fens.append(" ".join(parts[:4]) + " 0 1")
            if len(fens) > a.n:
                break

    proc = subprocess.Popen(shlex.split(a.engine), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(s):
        proc.stdin.write(s + "\n")
        proc.stdin.flush()

    send("uci")
    read_until(proc, "uciok")
    send("isready")
    read_until(proc, "readyok")
    for ms in [int(x) for x in a.ms.split(",")]:
        lo, hi = window(ms)
        took = []
        for fen in fens:
            send("ucinewgame")
            send("position fen " + fen)
            send("isready")
            read_until(proc, "readyok")
            t0 = time.monotonic()
            send("go movetime %d" % ms)
            read_until(proc, "bestmove")
            took.append((time.monotonic() - t0) * 1000)
        out = [t for t in took if t < lo or t > hi]
        print("movetime %5d: %d positions, min %.1f median %.1f max %.1f ms; outside %g-%g ms: %d"
              % (ms, len(took), min(took), statistics.median(took), max(took), lo, hi, len(out)))
    send("quit")
    proc.wait(timeout=10)


if __name__ == "__main__":
    main()
