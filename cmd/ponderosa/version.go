package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release version, set at build time with
// -ldflags "-X main.version=v1.2.3" (the release recipe does). When it is
// empty, the version comes from the build information (see versionOf).
var version = ""

// versionCmd prints the version, the Go version and platform, and the
// source revision and time when the build recorded them.
func versionCmd(e env, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "usage: ponderosa version")
		return exitUsage
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, formatVersion(version, info, runtime.GOOS, runtime.GOARCH))
	return exitOK
}

// appVersion is the short version, for the User-Agent, the UCI name and
// the log: see versionOf.
func appVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(version, info)
}

// versionOf is the short version: the -ldflags value when one was given;
// else the module version that `go install …@v1.2.3` records (also the
// pseudo-version Go 1.24+ derives from a checkout's commit); else "dev".
func versionOf(ldflags string, info *debug.BuildInfo) string {
	if ldflags != "" {
		return ldflags
	}
	if info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// formatVersion is what `ponderosa version` prints, from the -ldflags
// version and the build information (nil when the binary has none):
//
//	ponderosa v1.2.3 (go1.26.8 linux/amd64, revision 720c8b0abcde+dirty, 2026-11-24T21:00:00Z)
//
// The revision and its time are those of the checkout the binary was built
// from (vcs.revision, vcs.time; "+dirty" when vcs.modified: uncommitted
// changes went in). go install of a module version and builds outside a
// repository (or with -buildvcs=false, or in a git worktree, which Go does
// not stamp) have none.
func formatVersion(ldflags string, info *debug.BuildInfo, goos, goarch string) string {
	goVersion := runtime.Version()
	if info != nil && info.GoVersion != "" {
		goVersion = info.GoVersion
	}
	parts := []string{goVersion + " " + goos + "/" + goarch}
	if info != nil {
		var rev, when, dirty string
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.time":
				when = kv.Value
			case "vcs.modified":
				if kv.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			parts = append(parts, "revision "+rev+dirty)
			if when != "" {
				parts = append(parts, when)
			}
		}
	}
	return fmt.Sprintf("ponderosa %s (%s)", versionOf(ldflags, info), strings.Join(parts, ", "))
}
