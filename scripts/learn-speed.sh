#!/usr/bin/env bash
# The learning memory's figure of issue 13: time to the same depth when a line is played again (docs/learn-speed.md); flags go to cmd/learnspeed, e.g. scripts/learn-speed.sh -games 3 -depth 14 (depth mode: go depth), or scripts/learn-speed.sh -movetime 1000 -baseline (timed mode: go movetime, time to game 1's depth, the figure of a real game).
set -euo pipefail; cd "$(dirname "$0")/.."; mkdir -p bench-out; go build -o bench-out/learnspeed ./cmd/learnspeed && bench-out/learnspeed "$@" | tee bench-out/learnspeed.txt
