package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// versionCmd prints the version, the Go version and platform, and the
// source revision when the build recorded one.
func versionCmd(e env, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "usage: ponderosa version")
		return 2
	}
	fmt.Fprintln(e.stdout, versionString())
	return 0
}

func versionString() string {
	s := fmt.Sprintf("ponderosa %s (%s %s/%s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				if kv.Value == "true" {
					modified = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			s += ", revision " + rev + modified
		}
	}
	return s + ")"
}
