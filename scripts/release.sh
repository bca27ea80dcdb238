#!/usr/bin/env bash
# release.sh — build the release binaries of ponderosa into dist/, with
# SHA256SUMS.
#
#   scripts/release.sh              # VERSION from `git describe --tags --always --abbrev=12 --dirty`
#   VERSION=v1.2.0 scripts/release.sh
#   TARGETS=linux/amd64 scripts/release.sh
#
# Binaries built without cgo (CGO_ENABLED=0) for linux/amd64, linux/arm64,
# darwin/amd64, darwin/arm64 and windows/amd64, named
# ponderosa-VERSION-OS-ARCH[.exe], each with the version stamped in
# (-X main.version=VERSION: `ponderosa version` prints it). The Linux ones
# are static; the macOS and Windows ones link only the system's own
# libraries (libSystem, the Windows DLLs), as every Go program there does.
#
# Reproducible: the same commit built with the same Go version gives the
# same bytes anywhere (compare with SHA256SUMS of a release):
#   - only committed files go in: a working tree with anything to commit,
#     untracked files included, is refused, and the build runs on a
#     `git archive` export of HEAD, so that no file git does not track
#     (an ignored one included: a default.pgo profile, a net in
#     engine/nnue/embedded, which //go:embed would take) can change the
#     bytes. No NNUE net is tracked: the binaries carry none (-pgo=off too);
#   - the toolchain is the local Go (GOTOOLCHAIN=local, no download), and
#     it must be the version of go.mod's go line: both are printed;
#   - what the environment could change is pinned: GOAMD64=v1,
#     GOARM64=v8.0, GOEXPERIMENT empty, GOFLAGS=-mod=readonly, -pgo=off;
#   - -trimpath leaves out the paths of this machine, -buildvcs=false what
#     differs between checkouts of one commit.
# The Go version of a binary: `go version ponderosa-…`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if dirty=$(git status --porcelain --untracked-files=all) && [ -n "$dirty" ]; then
	echo "release.sh: the working tree has changes or untracked files; commit or remove them first:" >&2
	echo "$dirty" >&2
	exit 1
fi

export GOTOOLCHAIN=local CGO_ENABLED=0 GOAMD64=v1 GOARM64=v8.0 GOEXPERIMENT= GOFLAGS=-mod=readonly
want=go$(awk '$1 == "go" { print $2; exit }' go.mod)
have=$(go env GOVERSION)
echo "go.mod wants $want; the local Go is $have" >&2
if [ "$have" != "$want" ]; then
	echo "release.sh: build with $want (go.mod's go line), not $have" >&2
	exit 1
fi

VERSION=${VERSION:-$(git describe --tags --always --abbrev=12 --dirty 2>/dev/null || echo dev)}
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
DIST=$root/dist

src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git archive --format=tar HEAD | tar -xf - -C "$src"

rm -rf "$DIST"
mkdir -p "$DIST"
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	out="$DIST/ponderosa-$VERSION-$os-$arch"
	[ "$os" = windows ] && out="$out.exe"
	echo "build ${out#"$root"/}" >&2
	(cd "$src" && GOOS=$os GOARCH=$arch \
		go build -trimpath -buildvcs=false -pgo=off -ldflags "-s -w -X main.version=$VERSION" -o "$out" ./cmd/ponderosa)
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
