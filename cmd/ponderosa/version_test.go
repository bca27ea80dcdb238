package main

import (
	"runtime/debug"
	"testing"
)

// formatVersion from fake build information: the -ldflags version wins,
// then the module version of `go install …@vX`, else "dev"; the revision,
// its time and "+dirty" come from the VCS settings of a checkout's build.
func TestFormatVersion(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "720c8b0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708"},
		{Key: "vcs.time", Value: "2026-11-24T21:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	clean := append([]debug.BuildSetting(nil), vcs...)
	clean[4].Value = "false"
	for _, tc := range []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    string
	}{
		{"go install @v1.2.3", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/ponderosa-chess/ponderosa", Version: "v1.2.3"}},
			"ponderosa v1.2.3 (go1.26.8 linux/amd64)"},
		{"checkout, uncommitted changes", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"ponderosa dev (go1.26.8 linux/amd64, revision 720c8b0e1f2a+dirty, 2026-11-24T21:00:00Z)"},
		{"checkout, pseudo-version", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261124210000-720c8b0e1f2a"}, Settings: clean},
			"ponderosa v0.0.0-20261124210000-720c8b0e1f2a (go1.26.8 linux/amd64, revision 720c8b0e1f2a, 2026-11-24T21:00:00Z)"},
		{"-ldflags wins", "v1.3.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: clean},
			"ponderosa v1.3.0 (go1.26.8 linux/amd64, revision 720c8b0e1f2a, 2026-11-24T21:00:00Z)"},
		{"no VCS, devel", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"ponderosa dev (go1.26.8 linux/amd64)"},
	} {
		if got := formatVersion(tc.ldflags, tc.info, "linux", "amd64"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	if got := versionOf("", nil); got != "dev" {
		t.Errorf("versionOf without build information = %q", got)
	}
	if got := formatVersion("v2", nil, "darwin", "arm64"); len(got) < len("ponderosa v2 (go darwin/arm64)") || got[:len("ponderosa v2 (go")] != "ponderosa v2 (go" || got[len(got)-len(" darwin/arm64)"):] != " darwin/arm64)" {
		t.Errorf("formatVersion without build information = %q", got)
	}
}
