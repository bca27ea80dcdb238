package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every documented function of the package has a doc comment that begins
// with its own name, so a comment left above the wrong function (as
// externalOptions's once was, above book) is found.
func TestFuncDocsNameTheirFunc(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Doc == nil {
				continue
			}
			checked++
			text := fd.Doc.Text()
			first, _, _ := strings.Cut(text, " ")
			if first != fd.Name.Name {
				t.Errorf("%s: the doc comment of %s begins %q", fset.Position(fd.Pos()), fd.Name.Name, strings.SplitN(text, "\n", 2)[0])
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d documented functions checked", checked)
	}
}
