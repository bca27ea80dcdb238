#!/usr/bin/env bash
# Checks the systemd units with systemd-analyze, as far as that works off the
# target machine: builds ponderosa, points copies of the units' ExecStart at
# the built binary (verify refuses a missing program), and fails on any
# message, since verify only warns (exit 0) about unknown or misspelt keys.
# Also prints the exposure score of `systemd-analyze security`.
# Usage: deploy/verify.sh   (needs systemd-analyze: apt-get install systemd)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ponderosa" ./cmd/ponderosa
for unit in deploy/ponderosa.service deploy/ponderosa@.service; do
	sed "s#/usr/local/bin/ponderosa#$tmp/ponderosa#" "$unit" >"$tmp/$(basename "$unit")"
done
# A template is checked through an instance of it.
cp "$tmp/ponderosa@.service" "$tmp/ponderosa@bot1.service"
status=0
for unit in ponderosa.service ponderosa@.service ponderosa@bot1.service; do
	if ! out=$(systemd-analyze verify "$tmp/$unit" 2>&1) || [ -n "$out" ]; then
		echo "FAIL $unit"
		echo "$out"
		status=1
	else
		echo "ok   $unit"
	fi
done
systemd-analyze security --offline=true "$tmp/ponderosa.service" 2>&1 | tail -1
exit $status
