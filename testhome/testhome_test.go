package testhome

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
)

func TestMain(m *testing.M) { os.Exit(Main(m.Run)) }

// Every package with tests runs them through Main: a package without it
// would run with the developer's real homes.
func TestEveryTestPackageIsolated(t *testing.T) {
	root := filepath.Join("..")
	packages := map[string]bool{} // folder -> has a TestMain calling testhome.Main
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		packages[dir] = packages[dir] || callsMain(f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(packages) < 10 {
		t.Fatalf("found only %d test packages under %s: %v", len(packages), root, packages)
	}
	for dir, ok := range packages {
		if !ok {
			t.Errorf("%s: its tests run with the real homes: add\n\tfunc TestMain(m *testing.M) { os.Exit(testhome.Main(m.Run)) }", dir)
		}
	}
}

// callsMain reports whether f has a TestMain that calls testhome.Main (or
// Main, inside this package).
func callsMain(f *ast.File) bool {
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "TestMain" || fn.Recv != nil || fn.Body == nil {
			continue
		}
		found := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := fun.X.(*ast.Ident); ok && x.Name == "testhome" && fun.Sel.Name == "Main" {
					found = true
				}
			case *ast.Ident:
				if f.Name.Name == "testhome" && fun.Name == "Main" {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// Under Main, and again under Isolate, every home variable and adrg/xdg's
// folders are inside a temporary folder.
func TestHomesAreTemporary(t *testing.T) {
	check := func(t *testing.T, home string) {
		t.Helper()
		for k, want := range Vars(home) {
			if got := os.Getenv(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		for name, dir := range map[string]string{
			"xdg.ConfigHome": xdg.ConfigHome, "xdg.StateHome": xdg.StateHome,
			"xdg.DataHome": xdg.DataHome, "xdg.CacheHome": xdg.CacheHome, "xdg.BinHome": xdg.BinHome,
		} {
			if !strings.HasPrefix(dir, home+string(filepath.Separator)) {
				t.Errorf("%s = %s, outside %s", name, dir, home)
			}
		}
		if h, err := os.UserHomeDir(); err != nil || h != home {
			t.Errorf("os.UserHomeDir() = %q, %v; want %q", h, err, home)
		}
	}
	mainHome := os.Getenv("HOME")
	if !strings.HasPrefix(filepath.Base(mainHome), "runaway-testhome-") {
		t.Fatalf("HOME = %s under Main, want a runaway-testhome- folder", mainHome)
	}
	check(t, mainHome)
	t.Run("Isolate", func(t *testing.T) {
		home := Isolate(t)
		if home == mainHome {
			t.Fatal("Isolate gave the package's home, not a new one")
		}
		check(t, home)
		if info, err := os.Stat(os.Getenv("XDG_RUNTIME_DIR")); err != nil || !info.IsDir() {
			t.Errorf("XDG_RUNTIME_DIR: %v", err)
		}
	})
	// Isolate's homes end with its test: the package's come back.
	check(t, mainHome)
}

func TestEnvReplacesEveryHome(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/root", "XDG_CONFIG_HOME=/root/.config", "OPENCODE_CONFIG=/root/oc.json", "LANG=C"}
	env := Env(base, "/tmp/h")
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := got[k]; dup {
			t.Errorf("%s twice in %v", k, env)
		}
		got[k] = v
	}
	if got["PATH"] != "/bin" || got["LANG"] != "C" {
		t.Errorf("lost the other variables: %v", env)
	}
	if got["HOME"] != "/tmp/h" || got["XDG_CONFIG_HOME"] != filepath.Join("/tmp/h", ".config") {
		t.Errorf("homes not replaced: %v", env)
	}
	if _, ok := got["OPENCODE_CONFIG"]; ok {
		t.Errorf("OPENCODE_CONFIG kept: %v", env)
	}
}
