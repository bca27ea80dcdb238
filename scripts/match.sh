#!/usr/bin/env bash
# Runs a fastchess match between ponderosa and an opponent from the strength
# ladder, with colour-reversed pairs from an opening file.
#
#   FASTCHESS=/path/to/fastchess OPENINGS=/path/to/UHO_4060_v4.epd \
#     scripts/match.sh OPPONENT [GAMES] [TC] [CONCURRENCY]
#
# OPPONENT: glaurung | gnuchess | fairymax | chess3 | ethereal | self | sf<ELO>
#           (sf2000 = Stockfish with UCI_LimitStrength and UCI_Elo=2000: a sparring
#           partner, never a rating)
# GAMES defaults to 200, TC to 10+0.1, CONCURRENCY to 2 (use 1 when either side
# ponders). CHESS3=/path/to/chess3 for the chess3 opponent. PONDEROSA_OPTS adds
# fastchess engine arguments to ponderosa, separated by ';' because option
# names may hold spaces, e.g. "option.Move Overhead=50;option.BackgroundPonder=true";
# BASE_OPTS does the same for the "self" opponent. ENGINE_LOG=1 writes the
# engines' output into the log too, for scripts/tree-stats.py LOG ponderosa.
# Results go to bench-out/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
opp=${1:?opponent: glaurung|gnuchess|fairymax|chess3|ethereal|self|sfNNNN}
games=${2:-200}
tc=${3:-10+0.1}
conc=${4:-2}
: "${FASTCHESS:?set FASTCHESS to the fastchess binary}"
: "${OPENINGS:?set OPENINGS to an .epd opening file}"
mkdir -p bench-out
go build -o bench-out/ponderosa ./cmd/ponderosa
IFS=';' read -ra ours_extra <<<"${PONDEROSA_OPTS:-}"
IFS=';' read -ra base_extra <<<"${BASE_OPTS:-}"
ours=(-engine cmd="$PWD/bench-out/ponderosa" args=uci name=ponderosa "${ours_extra[@]}")
case "$opp" in
  glaurung) theirs=(-engine cmd=/usr/games/glaurung name=glaurung option.OwnBook=false "option.Threads=1" option.Ponder=false) ;;
  gnuchess) theirs=(-engine cmd=/usr/games/gnuchess args=--uci name=gnuchess option.OwnBook=false) ;;
  fairymax) theirs=(-engine cmd=/usr/games/fairymax name=fairymax proto=xboard) ;;
  ethereal) theirs=(-engine cmd=/usr/games/ethereal-chess name=ethereal) ;;
  chess3)   theirs=(-engine cmd="${CHESS3:?set CHESS3 to the chess3 binary}" name=chess3) ;;
  self)     theirs=(-engine cmd="$PWD/bench-out/ponderosa" args=uci name=ponderosa-base "${base_extra[@]}") ;;
  sf*)      theirs=(-engine cmd=/usr/games/stockfish name="stockfish-${opp#sf}" option.UCI_LimitStrength=true "option.UCI_Elo=${opp#sf}") ;;
  *) echo "unknown opponent $opp" >&2; exit 2 ;;
esac
stamp=$(date +%Y%m%d-%H%M%S)
OPENINGS=$(realpath "$OPENINGS")
cd bench-out # fastchess writes its config.json into the working directory
exec "$FASTCHESS" "${ours[@]}" "${theirs[@]}" \
  -each tc="$tc" option.Hash=64 option.Threads=1 \
  -openings file="$OPENINGS" format=epd order=random \
  -rounds $((games / 2)) -games 2 -repeat -concurrency "$conc" \
  -recover -pgnout file="$opp-$stamp.pgn" \
  -log file="$opp-$stamp.log" level=warn engine="$([ -n "${ENGINE_LOG:-}" ] && echo true || echo false)"
