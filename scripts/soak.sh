#!/usr/bin/env bash
# soak.sh — run the daemon's soak measurements and print their figures.
#
# The measurements are env-gated tests in cmd/ponderosa/soak_test.go; each
# runs the real daemon code (runDaemon, what `ponderosa run` runs) in-process
# with the built-in engine against the lichesstest fake Lichess server. Each
# runs in its own process (so RSS figures are its own) and prints a SUMMARY
# line; a test fails only on a correctness fact (a game lost on time, an
# illegal or duplicate move, a request inside a cool-down, a hang), never on
# a timing.
#
#   1. soak:    GAMES games at 1+0 against greedy house players (20 ms per
#               move), 50–150 ms latency per request, CONCURRENCY at once:
#               forfeits, illegal/duplicate moves, cool-down violations, the
#               bot's clock left at the end, results, RSS every 20 games.
#   2. 429:     the same with one 429 (Retry-After 1 s) injected on each
#               game's move endpoint at a random moment, cool-downs enforced.
#   3. forced:  FORCED reactions to a gameState with exactly one legal move:
#               from the line read under the daemon's HTTP transport to the
#               move post sent (p50/p99; target p99 < 5 ms).
#   4. memory:  8 games at once, tree cap 64 MiB each, hash 64 MiB in all:
#               peak RSS vs 8 × 64 MiB + hash + RSS at rest, RSS at rest
#               after 10 and after MEMORY_GAMES games.
#
# Usage (from the repository root; every variable optional):
#   GAMES=200 GAMES_429=40 FORCED=1000 MEMORY_GAMES=100 CONCURRENCY=4 \
#     HASH_MB=16 TREE_MB=16 HOUSE=greedy HEAPPROFILE=1 \
#     ONLY="forced soak 429 memory" \
#     scripts/soak.sh
# Full outputs go to $OUT (default /tmp/ponderosa-soak.<time>/); the daemon
# logs' paths are in them. The machine's load average is printed with each
# figure: on a loaded machine, timings are worse than the code.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-200}
GAMES_429=${GAMES_429:-40}
FORCED=${FORCED:-1000}
MEMORY_GAMES=${MEMORY_GAMES:-100}
ONLY=${ONLY:-"forced soak 429 memory"}
OUT=${OUT:-/tmp/ponderosa-soak.$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
export PONDEROSA_SOAK_CONCURRENCY=${CONCURRENCY:-4}
export PONDEROSA_SOAK_HASH_MB=${HASH_MB:-16}
export PONDEROSA_SOAK_TREE_MB=${TREE_MB:-16}
export PONDEROSA_SOAK_HOUSE=${HOUSE:-greedy}
# HEAPPROFILE=1 writes a heap profile at each memory checkpoint into
# $OUT/<measurement>/heap-NNN.pprof (after NNN games). The fake server
# shares the process; each checkpoint prints the heap in use split into
# the daemon's, the harness's (lichesstest, the checks) and other, and
#   go tool pprof -base heap-020.pprof -top -sample_index=inuse_space heap-200.pprof
# shows what grew and whose it is. The soak has the fake server forget
# the games over at each checkpoint (so that it measures the daemon);
# PONDEROSA_SOAK_KEEP_GAMES=1 in the environment keeps them all.
HEAPPROFILE=${HEAPPROFILE:-}

bin="$OUT/ponderosa-soak.test"
go test -c -o "$bin" ./cmd/ponderosa
echo "soak: outputs in $OUT; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"

status=0
run() { # name test env=value…
	local name=$1 test=$2
	shift 2
	if [ -n "$HEAPPROFILE" ]; then
		mkdir -p "$OUT/$name"
		set -- "$@" PONDEROSA_SOAK_HEAPPROFILE="$OUT/$name"
	fi
	echo "== $name: $* (started $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
	if ! env "$@" "$bin" -test.run "^${test}\$" -test.v -test.count=1 -test.timeout=3h >"$OUT/$name.txt" 2>&1; then
		status=1
		echo "   FAILED:"
		grep -E -- '--- FAIL|soak_.*\.go:[0-9]+: .*(lost|illegal|cool-down|not finished|aborted|hang|want)' "$OUT/$name.txt" | head -20 | sed 's/^/   /'
	fi
	grep -h 'SUMMARY' "$OUT/$name.txt" | sed 's/^ *soak_test.go:[0-9]*: /   /' || echo "   (no summary; see $OUT/$name.txt)"
}

for what in $ONLY; do
	case $what in
	forced) run forced TestSoakSingleMoveLatency PONDEROSA_SOAK_FORCED="$FORCED" ;;
	soak) run soak TestSoakGames PONDEROSA_SOAK_GAMES="$GAMES" ;;
	429) run 429 TestSoakGames429 PONDEROSA_SOAK_429_GAMES="$GAMES_429" ;;
	memory) run memory TestSoakMemory PONDEROSA_SOAK_MEMORY=1 PONDEROSA_SOAK_MEMORY_GAMES="$MEMORY_GAMES" ;;
	*) echo "unknown measurement $what" >&2; exit 2 ;;
	esac
done
echo "soak: done $(date -u +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg); outputs in $OUT"
exit $status
