#!/usr/bin/env bash
# Checks the systemd units with systemd-analyze, as far as that works off the
# target machine: builds ponderosa, points copies of the units' ExecStart at
# the built binary (verify refuses a missing program), and fails on any
# message, since verify only warns (exit 0) about unknown or misspelt keys.
# Also prints the exposure score of `systemd-analyze security`, checks
# deploy/ponderosa.sysusers with `systemd-sysusers --dry-run` (it creates
# nothing), and that both units run as that user and keep the exit codes a
# restart cannot mend from restarting.
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
for unit in deploy/ponderosa.service deploy/ponderosa@.service; do
	for line in 'User=ponderosa' 'Group=ponderosa' 'StateDirectoryMode=0750' 'UMask=0027' 'RestartPreventExitStatus=64 77 78'; do
		if ! grep -qx "$line" "$unit"; then
			echo "FAIL $unit lacks $line"
			status=1
		fi
	done
	if grep -q '^DynamicUser=yes' "$unit"; then
		echo "FAIL $unit: DynamicUser=yes keeps the state under /var/lib/private (0700)"
		status=1
	fi
done
# systemd-sysusers wants an absolute path; --dry-run writes nothing.
if out=$(systemd-sysusers --dry-run "$PWD/deploy/ponderosa.sysusers" 2>&1) && ! grep -qi 'ignoring\|fail\|invalid' <<<"$out"; then
	echo "ok   ponderosa.sysusers"
else
	echo "FAIL ponderosa.sysusers"
	echo "$out"
	status=1
fi
exit $status
