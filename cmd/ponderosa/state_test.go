package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// makeStateDir creates missing parents too, closed to others, and accepts
// a directory that is already there.
func TestMakeStateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "ponderosa")
	for range 2 {
		if err := makeStateDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("%s: %v, %v", dir, fi, err)
	}
	// 0750, less what the umask takes: never writable by the group, never
	// open to others.
	if p := fi.Mode().Perm(); p&0o027 != 0 {
		t.Errorf("mode %v, want at most 0750", p)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("the write check left %v (%v)", entries, err)
	}
}

// A state directory that cannot be made is an error naming it.
func TestMakeStateDirErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "state")} {
		err := makeStateDir(dir)
		if err == nil || !strings.Contains(err.Error(), "state directory "+dir+": cannot create it") || !strings.Contains(err.Error(), "set state_dir") {
			t.Errorf("makeStateDir(%s) = %v", dir, err)
		}
	}
	if os.Geteuid() == 0 {
		t.Skip("root writes in a read-only directory")
	}
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	if err := makeStateDir(ro); err == nil || !strings.Contains(err.Error(), "state directory "+ro+": cannot write in it") {
		t.Errorf("read-only directory: %v", err)
	}
}
