#!/usr/bin/env bash
# release.sh — build the release binaries of ponderosa into dist/, with
# SHA256SUMS.
#
#   scripts/release.sh              # VERSION from `git describe --tags --always --dirty`
#   VERSION=v1.2.0 scripts/release.sh
#
# Static binaries (CGO_ENABLED=0) for linux/amd64, linux/arm64, darwin/amd64,
# darwin/arm64 and windows/amd64, named ponderosa-VERSION-OS-ARCH[.exe], each
# with the version stamped in (-X main.version=VERSION: `ponderosa version`
# prints it). Reproducible: -trimpath leaves out the paths of this machine,
# -buildvcs=false leaves out what differs between checkouts of one commit
# (a clone or a worktree, its modified flag), so the same commit built with
# the same Go version gives
# the same bytes anywhere: compare with SHA256SUMS of a release. The Go
# version of a binary: `go version ponderosa-…`. The embedded NNUE net
# (engine/nnue) goes in each binary.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
DIST=dist

rm -rf "$DIST"
mkdir -p "$DIST"
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	out="$DIST/ponderosa-$VERSION-$os-$arch"
	[ "$os" = windows ] && out="$out.exe"
	echo "build $out" >&2
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOFLAGS=-mod=readonly \
		go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$VERSION" -o "$out" ./cmd/ponderosa
done
(
	cd "$DIST"
	if command -v sha256sum >/dev/null; then
		sha256sum ponderosa-* >SHA256SUMS
	else
		shasum -a 256 ponderosa-* >SHA256SUMS # macOS
	fi
)
cat "$DIST/SHA256SUMS"
