package nnue

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
)

// EmbeddedPath is where a net built into the binary lives (under this
// package's directory): engine/nnue/embedded/default.nnue.
const EmbeddedPath = "embedded/default.nnue"

//go:embed embedded
var embedded embed.FS

// ErrNoEmbeddedNet is returned by Embedded when the binary was built
// without a net.
var ErrNoEmbeddedNet = errors.New("no NNUE net is embedded in this build (engine/nnue/" + EmbeddedPath + " absent)")

// Embedded returns the net built into the binary, read afresh (callers keep
// the result), or an error wrapping ErrNoEmbeddedNet when there is none.
func Embedded() (*Net, error) {
	return embeddedNet(embedded, EmbeddedPath)
}

func embeddedNet(fsys fs.FS, path string) (*Net, error) {
	b, err := fs.ReadFile(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoEmbeddedNet
	}
	if err != nil {
		return nil, fmt.Errorf("read embedded net: %w", err)
	}
	n, err := Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("embedded net %s: %w", path, err)
	}
	return n, nil
}

// Choose returns the net that the engine options UseNNUE (use) and EvalFile
// (path) ask for: nil without error when use is false (the hand-crafted
// evaluation), the net file at path when one is given, otherwise the
// embedded net. Each error says which it was and why.
func Choose(use bool, path string) (*Net, error) {
	switch {
	case !use:
		return nil, nil
	case path != "":
		return Load(path)
	}
	n, err := Embedded()
	if errors.Is(err, ErrNoEmbeddedNet) {
		return nil, fmt.Errorf("NNUE asked for without a net file: %w", err)
	}
	return n, err
}
