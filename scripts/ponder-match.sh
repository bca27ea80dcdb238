#!/usr/bin/env bash
# Ponder on vs ponder off self-play, to measure what thinking on the
# opponent's time is worth. Do NOT run long matches on the shared machine.
#
#   MODE=inproc (default): cmd/pondermatch plays both sides in one
#     process with real clocks; the pondering side thinks in the background
#     after its move exactly as the Lichess game worker does (StartPonder,
#     then SetPosition + Think on the opponent's move). Prints W/D/L, Elo and
#     the pondering statistics (hit rate, top-3 rate, time saved, tree kept).
#   MODE=fastchess: $FASTCHESS (path to a fastchess binary) with two `ponderosa uci`
#     engines. fastchess sends no "go ponder", so the ponder-on engine must
#     ponder by itself between moves: ON_OPTS must name the UCI option that
#     makes the front end call Game.StartPonder after "bestmove" (for
#     example ON_OPTS="option.BackgroundPonder=true" once uci has it).
#
# Environment: GAMES (300), TC (10+0.1 seconds+increment), OPENINGS (EPD, required), FASTCHESS,
# STRATEGY (predicted|opponent, inproc only), HASH (64), BIN, ON_OPTS, OUT.
# fastchess mode logs the engines' output to $OUT/engines.log; sum up the
# pondering side's tree numbers with: scripts/tree-stats.py $OUT/engines.log ponder-on
# Use concurrency 1: the pondering engine uses the second core while the
# other thinks.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${MODE:-inproc}
GAMES=${GAMES:-300}
TC=${TC:-10+0.1}
OPENINGS=${OPENINGS:?set OPENINGS to an .epd opening file (e.g. UHO_4060_v4.epd from the shared data)}
STRATEGY=${STRATEGY:-predicted}
HASH=${HASH:-64}
OUT=${OUT:-/tmp/ponder-match}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
OPENINGS=$(realpath "$OPENINGS")

case "$MODE" in
inproc)
	go build -o "$OUT/pondermatch" ./cmd/pondermatch
	args=(-games $((GAMES / 2)) -tc "$TC" -hash "$HASH" -a "$STRATEGY" -b off -v)
	[ -f "$OPENINGS" ] && args+=(-openings "$OPENINGS")
	"$OUT/pondermatch" "${args[@]}" | tee "$OUT/inproc.txt"
	;;
fastchess)
	BIN=${BIN:-$OUT/ponderosa}
	[ -x "$BIN" ] || go build -o "$BIN" ./cmd/ponderosa
	BIN=$(realpath "$BIN")
	: "${ON_OPTS:?set ON_OPTS to the UCI option that makes the engine ponder between moves}"
	# TC for fastchess is seconds+increment too. fastchess writes its
	# config.json into the working directory: run it in $OUT.
	cd "$OUT"
	"${FASTCHESS:?set FASTCHESS to the fastchess binary}" \
		-engine cmd="$BIN" args="uci" name=ponder-on $ON_OPTS \
		-engine cmd="$BIN" args="uci" name=ponder-off \
		-each tc="$TC" option.Hash="$HASH" option.Threads=1 \
		-openings file="$OPENINGS" format=epd order=random \
		-rounds $((GAMES / 2)) -repeat -concurrency 1 -recover \
		-pgnout file="$OUT/games.pgn" \
		-log file="$OUT/engines.log" level=warn engine=true | tee "$OUT/fastchess.txt"
	;;
*)
	echo "MODE must be inproc or fastchess" >&2
	exit 2
	;;
esac
