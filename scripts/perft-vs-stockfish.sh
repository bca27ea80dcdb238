#!/usr/bin/env bash
# Times ponderosa's perft against Stockfish's "go perft" (one thread) on the
# start position (depth 6) and Kiwipete (depth 5), checks that the node
# counts agree, and prints the speed ratio ours/Stockfish.
#
# Usage: scripts/perft-vs-stockfish.sh [stockfish-binary]
# Environment: START_DEPTH (default 6), KIWI_DEPTH (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."

SF=${1:-$(command -v stockfish || echo /usr/games/stockfish)}
if [[ ! -x $SF ]]; then
	echo "stockfish not found (pass its path as the first argument)" >&2
	exit 1
fi
START_DEPTH=${START_DEPTH:-6}
KIWI_DEPTH=${KIWI_DEPTH:-5}

BIN=$(mktemp -d)/perft
trap 'rm -rf "$(dirname "$BIN")"' EXIT
go build -o "$BIN" ./engine/board/cmd/perft

now() { date +%s.%N; }

run_ours() { # fen depth -> "nodes seconds"
	local out
	out=$("$BIN" -fen "$1" -depth "$2")
	echo "$(awk '/^Nodes searched/ {print $3}' <<<"$out") $(awk '/^Time:/ {print $2}' <<<"$out")"
}

sf_wall() { # fen depth -> "nodes seconds" (wall time of the whole process)
	local t0 t1 out
	t0=$(now)
	out=$(printf 'setoption name Threads value 1\nposition fen %s\ngo perft %s\nquit\n' "$1" "$2" | "$SF")
	t1=$(now)
	echo "$(awk '/^Nodes searched/ {print $3}' <<<"$out") $(echo "$t1 - $t0" | bc -l)"
}

# Stockfish's start-up (loading its network) is timed with "go perft 1" and
# subtracted, so the figure is its perft time alone.
# Every measurement is the best of RUNS runs (default 3) to tame a shared machine.
RUNS=${RUNS:-3}
best() { # command... -> the "nodes seconds" line with the least seconds
	local i line out=""
	for ((i = 0; i < RUNS; i++)); do
		line=$("$@")
		if [[ -z $out ]] || (($(echo "$(awk '{print $2}' <<<"$line") < $(awk '{print $2}' <<<"$out")" | bc -l))); then
			out=$line
		fi
	done
	echo "$out"
}
SF_STARTUP=$(best sf_wall "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" 1 | awk '{print $2}')
echo "stockfish: $SF ($("$SF" quit </dev/null | head -1)); start-up ${SF_STARTUP}s subtracted"

run_sf() {
	local n s
	read -r n s <<<"$(sf_wall "$1" "$2")"
	echo "$n $(echo "$s - $SF_STARTUP" | bc -l)"
}

status=0
report() { # name fen depth
	local ours sf on os sn ss
	ours=$(best run_ours "$2" "$3")
	sf=$(best run_sf "$2" "$3")
	read -r on os <<<"$ours"
	read -r sn ss <<<"$sf"
	printf '%-10s depth %d  ponderosa: %12d nodes %7.3f s %6.1f Mnps | stockfish: %12d nodes %7.3f s %6.1f Mnps | speed ours/stockfish = %.2f\n' \
		"$1" "$3" "$on" "$os" "$(echo "$on / $os / 1000000" | bc -l)" "$sn" "$ss" "$(echo "$sn / $ss / 1000000" | bc -l)" \
		"$(echo "($on / $os) / ($sn / $ss)" | bc -l)"
	if [[ $on != "$sn" ]]; then
		echo "  NODE COUNTS DIFFER" >&2
		status=1
	fi
}

report startpos "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" "$START_DEPTH"
report kiwipete "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" "$KIWI_DEPTH"
exit $status
