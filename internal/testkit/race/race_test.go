package race_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunAgainWithoutDetector checks that every test reading Enabled is
// in the list test.sh runs without the race detector, so that what the
// detector turns off still runs somewhere.
func TestRunAgainWithoutDetector(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	script, err := os.ReadFile(filepath.Join(root, "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-run '\^\(([A-Za-z0-9_|]+)\)\$'`).FindSubmatch(script)
	if m == nil {
		t.Fatal("test.sh has no -run '^(TestA|TestB)$' list")
	}
	listed := map[string]bool{}
	for _, name := range strings.Split(string(m[1]), "|") {
		listed[name] = true
	}
	users := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if ok && sel.Sel.Name == "Enabled" && isIdent(sel.X, "race") {
					users++
					if !listed[fn.Name.Name] {
						t.Errorf("%s: %s reads race.Enabled but test.sh does not run it without the race detector", path, fn.Name.Name)
					}
					return false
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if users == 0 {
		t.Error("no test reads race.Enabled: the walk found nothing")
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
