#!/usr/bin/env python3
"""Sum up the per-move tree numbers ponderosa prints as
"info string treestats key=value ..." before each bestmove.

    scripts/tree-stats.py LOG [ENGINE_NAME]

LOG is a fastchess log written with engine logging on
(-log file=X level=info engine=true), or any text holding the engine's output
lines. With ENGINE_NAME only lines of that engine are read (fastchess writes
"NAME ---> line"). Prints, over our moves that followed an opponent's move
(the first decision of a game has no tree to reuse):

  - the median and mean fraction of the tree kept at the new root,
  - the ponder-hit rate (the opponent played our predicted reply) and the
    top-3 rate, over all moves and over moves with a prediction,
  - the median time used on a hit against the median on other moves, and the
    median depth on hand when the position became ours.
"""
import re
import statistics
import sys


def parse(path, name):
    rows = []
    pat = re.compile(r"info string treestats (.*)$")
    with open(path, errors="replace") as f:
        for line in f:
            m = pat.search(line.rstrip("\n"))
            if not m:
                continue
            if name and f" {name} ---> " not in line:
                continue
            kv = dict(p.split("=", 1) for p in m.group(1).split() if "=" in p)
            rows.append(kv)
    return rows


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "n/a"


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = parse(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
    moves = [r for r in rows if int(r.get("tree_before", "0")) > 1 and int(r.get("ply", "0")) > 1]
    if not moves:
        sys.exit("no treestats lines after the first move of a game")
    kept = [float(r["kept"]) for r in moves]
    pred = [r for r in moves if r["predicted"] == "true"]
    hits = [r for r in moves if r["hit"] == "true"]
    top3 = [r for r in moves if r["top3"] == "true"]
    used_hit = [int(r["used_ms"]) for r in hits]
    used_other = [int(r["used_ms"]) for r in moves if r["hit"] != "true" and r["source"] != "forced"]
    budget_hit = [int(r["budget_ms"]) for r in hits]
    depth_hit = [int(r["depth_at_move"]) for r in hits]
    sources = {}
    for r in moves:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    print(f"moves with a tree to reuse: {len(moves)} (of {len(rows)} decisions)")
    print(f"tree kept at the new root: median {med(kept):.3f}, mean {statistics.fmean(kept):.3f}")
    print(f"ponder hits: {len(hits)} = {pct(len(hits), len(moves))} of moves, {pct(len(hits), len(pred))} of {len(pred)} predictions")
    print(f"opponent's move in our top 3: {pct(len(top3), len(moves))} of moves")
    print(f"time used after a hit: median {med(used_hit):.0f} ms (budget median {med(budget_hit):.0f} ms);"
          f" on other searched moves: median {med(used_other):.0f} ms")
    print(f"depth on hand at a hit: median {med(depth_hit):.0f}")
    print("decided by: " + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))


if __name__ == "__main__":
    main()
