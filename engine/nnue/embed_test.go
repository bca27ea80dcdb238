package nnue

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestEmbeddedNet(t *testing.T) {
	// This build ships no net: Embedded says so.
	if _, err := os.Stat(EmbeddedPath); err == nil {
		t.Skip(EmbeddedPath + " exists: a net is embedded")
	}
	if n, err := Embedded(); n != nil || !errors.Is(err, ErrNoEmbeddedNet) {
		t.Fatalf("Embedded() = %v, %v; want ErrNoEmbeddedNet", n, err)
	}
	good := RandomNet(8, SCReLU, 1)
	b, err := good.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		EmbeddedPath:        {Data: b},
		"embedded/bad.nnue": {Data: b[:100]},
	}
	n, err := embeddedNet(fsys, EmbeddedPath)
	if err != nil || n.Hidden != 8 || n.OutputBias != good.OutputBias {
		t.Fatalf("embedded good net: %v, %v", n, err)
	}
	if _, err := embeddedNet(fsys, "embedded/bad.nnue"); !errors.Is(err, ErrFormat) {
		t.Fatalf("embedded truncated net: %v, want ErrFormat", err)
	}
}

func TestChoose(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.nnue")
	if err := RandomNet(8, CReLU, 2).Save(good); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.nnue")
	if err := os.WriteFile(bad, []byte("PNDRNNUE but not a net"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := Choose(false, good); n != nil || err != nil {
		t.Errorf("Choose(false, file) = %v, %v; want nil, nil (hand-crafted)", n, err)
	}
	if n, err := Choose(true, good); err != nil || n == nil || n.Act != CReLU {
		t.Errorf("Choose(true, good) = %v, %v", n, err)
	}
	if n, err := Choose(true, bad); n != nil || !errors.Is(err, ErrFormat) {
		t.Errorf("Choose(true, bad) = %v, %v; want ErrFormat", n, err)
	}
	if n, err := Choose(true, filepath.Join(dir, "missing.nnue")); n != nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Choose(true, missing) = %v, %v; want ErrNotExist", n, err)
	}
	if _, err := os.Stat(EmbeddedPath); err != nil {
		if n, err := Choose(true, ""); n != nil || !errors.Is(err, ErrNoEmbeddedNet) {
			t.Errorf("Choose(true, \"\") = %v, %v; want ErrNoEmbeddedNet", n, err)
		}
	}
}
