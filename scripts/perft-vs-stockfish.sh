#!/usr/bin/env bash
# Times ponderosa's perft against Stockfish's "go perft" (one thread) on the
# start position (depth 6) and Kiwipete (depth 5), checks that the node
# counts agree, and prints the speed ratio ours/Stockfish.
#
# Times are CPU seconds (user+sys) of each process, so a busy machine skews
# them less than wall time; each figure is the best of RUNS runs, and
# Stockfish's start-up cost (loading its network, timed with "go perft 1")
# is subtracted from its figures.
#
# Usage: scripts/perft-vs-stockfish.sh [stockfish-binary]
# Environment: START_DEPTH (default 6), KIWI_DEPTH (default 5), RUNS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

SF=${1:-$(command -v stockfish || echo /usr/games/stockfish)}
if [[ ! -x $SF ]]; then
	echo "stockfish not found (pass its path as the first argument)" >&2
	exit 1
fi
START_DEPTH=${START_DEPTH:-6}
KIWI_DEPTH=${KIWI_DEPTH:-5}
RUNS=${RUNS:-3}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BIN=$TMP/perft
go build -o "$BIN" ./cmd/perft

# cpu_run out-file command... : runs the command, stdout to out-file, prints CPU seconds.
cpu_run() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$TMP/time" "$@" >"$out"
	awk '{print $1 + $2}' "$TMP/time"
}

ours() { # fen depth -> "nodes cpu-seconds"
	local s
	s=$(cpu_run "$TMP/out" "$BIN" -fen "$1" -depth "$2")
	echo "$(awk '/^Nodes searched/ {print $3}' "$TMP/out") $s"
}

sf() { # fen depth -> "nodes cpu-seconds" (whole process)
	local s
	printf 'setoption name Threads value 1\nposition fen %s\ngo perft %s\nquit\n' "$1" "$2" >"$TMP/in"
	s=$(cpu_run "$TMP/out" sh -c "\"$SF\" <\"$TMP/in\"")
	echo "$(awk '/^Nodes searched/ {print $3}' "$TMP/out") $s"
}

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

START="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
SF_STARTUP=$(best sf "$START" 1 | awk '{print $2}')
echo "stockfish: $SF ($("$SF" quit </dev/null | head -1)); start-up ${SF_STARTUP} CPU s subtracted; best of $RUNS; load: $(cut -d' ' -f1-3 /proc/loadavg)"

status=0
report() { # name fen depth
	local on os sn ss
	read -r on os <<<"$(best ours "$2" "$3")"
	read -r sn ss <<<"$(best sf "$2" "$3")"
	ss=$(echo "$ss - $SF_STARTUP" | bc -l)
	printf '%-9s depth %d  ponderosa: %11d nodes %6.2f s %6.1f Mnps | stockfish: %11d nodes %6.2f s %6.1f Mnps | speed ours/stockfish = %.2f\n' \
		"$1" "$3" "$on" "$os" "$(echo "$on / $os / 1000000" | bc -l)" "$sn" "$ss" "$(echo "$sn / $ss / 1000000" | bc -l)" \
		"$(echo "($on / $os) / ($sn / $ss)" | bc -l)"
	if [[ $on != "$sn" ]]; then
		echo "  NODE COUNTS DIFFER" >&2
		status=1
	fi
}

report startpos "$START" "$START_DEPTH"
report kiwipete "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" "$KIWI_DEPTH"
exit $status
