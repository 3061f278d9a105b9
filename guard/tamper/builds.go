package tamper

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Build and install tools whose output lands on runaway's program: go
// install into GOBIN, npm install -g --prefix, cargo install --root. The
// folder they install into is known; the names of the programs they put
// there are known only for a package named by its path (go) or by its
// name. An install into the folder holding runaway's program is denied
// when what it installs is, or may be, named runaway.

// installsOver judges installing programs named names into dir (a name
// "" is one the wire cannot know).
func (sh *shell) installsOver(tool, dir string, names []string) {
	p := sh.abs(dir)
	if p == "" || !known(p) {
		return
	}
	for _, n := range names {
		if n != "" && known(n) {
			if target := filepath.Join(p, n); sh.t.classify(target) == ownBinary {
				sh.t.deny(&finding{action: "install a program over runaway's program with " + tool, path: target})
				return
			}
			continue
		}
		if sh.holdsOwnBinary(p) {
			sh.t.deny(&finding{action: "install programs runaway cannot name into " + filepath.Clean(p) + " with " + tool, path: filepath.Join(filepath.Clean(p), "runaway"), why: "which holds runaway's program"})
			return
		}
	}
}

// holdsOwnBinary reports a folder that holds runaway's program.
func (sh *shell) holdsOwnBinary(dir string) bool {
	for _, pp := range sh.t.inside(dir) {
		if pp.kind == ownBinary && filepath.Dir(pp.path) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// goInstall: go install PACKAGES with GOBIN set; each program is named
// after its package's last element ("." after the folder, "./..." any).
func (sh *shell) goInstall(args []string, cmdEnv map[string]string) {
	gobin, ok := cmdEnv["GOBIN"]
	if v, set := sh.env.vars["GOBIN"]; !ok && set && v.Exported {
		gobin, ok = v.Str, true
	}
	if !ok || gobin == "" {
		return
	}
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && goValueFlags[strings.TrimLeft(a, "-")] {
				i++
			}
			continue
		}
		pkg, _, _ := strings.Cut(strings.TrimRight(a, "/"), "@")
		switch {
		case strings.Contains(pkg, "..."), !known(pkg):
			names = append(names, "")
		case pkg == ".":
			names = append(names, filepath.Base(sh.cwd))
		default:
			names = append(names, filepath.Base(pkg))
		}
	}
	if len(names) == 0 {
		names = []string{filepath.Base(sh.cwd)}
	}
	sh.installsOver("go install", gobin, names)
}

// npmGlobal: npm install -g with --prefix (or npm_config_prefix): the
// programs go into PREFIX/bin, named as each package's "bin" says; a
// local folder's package.json is read, a tarball's or a registry
// package's names are not known, but for one named runaway.
func (sh *shell) npmGlobal(args []string, cmdEnv map[string]string) {
	if len(args) == 0 || !(args[0] == "install" || args[0] == "i" || args[0] == "add" || args[0] == "link") {
		return
	}
	rest := args[1:]
	global := false
	var prefix string
	for i, a := range rest {
		switch {
		case a == "-g" || a == "--global" || a == "--location=global":
			global = true
		case a == "--prefix" && i+1 < len(rest):
			prefix = rest[i+1]
		case strings.HasPrefix(a, "--prefix="):
			prefix = a[len("--prefix="):]
		}
	}
	for _, k := range []string{"npm_config_prefix", "NPM_CONFIG_PREFIX"} {
		if v, ok := cmdEnv[k]; ok && prefix == "" {
			prefix = v
		}
	}
	if !global || prefix == "" {
		return
	}
	var names []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--prefix" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		names = append(names, sh.npmBins(a)...)
	}
	sh.installsOver("npm install -g --prefix", filepath.Join(prefix, "bin"), names)
}

// npmBins are the programs a package spec installs ("" where unknown).
func (sh *shell) npmBins(spec string) []string {
	local := strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "~") || strings.HasPrefix(spec, "file:")
	if !local {
		name := spec
		if at := strings.LastIndexByte(name, '@'); at > 0 {
			name = name[:at]
		}
		return []string{filepath.Base(name)}
	}
	f := sh.fileText(filepath.Join(strings.TrimPrefix(spec, "file:"), "package.json"))
	if f == nil {
		return []string{""}
	}
	var pkg struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if json.Unmarshal([]byte(f.text), &pkg) != nil {
		return []string{""}
	}
	var one string
	var many map[string]string
	switch {
	case json.Unmarshal(pkg.Bin, &one) == nil:
		return []string{filepath.Base(pkg.Name)}
	case json.Unmarshal(pkg.Bin, &many) == nil:
		var out []string
		for k := range many {
			out = append(out, k)
		}
		return out
	}
	return nil // no programs
}

// cargoInstall: cargo install --root ROOT (or CARGO_INSTALL_ROOT): the
// programs go into ROOT/bin; a crate from a path or a repository has
// programs runaway cannot name, a crate from the registry is named.
func (sh *shell) cargoInstall(args []string, cmdEnv map[string]string) {
	if len(args) == 0 || args[0] != "install" {
		return
	}
	rest := args[1:]
	root := cmdEnv["CARGO_INSTALL_ROOT"]
	if v := optionValues(rest, "--root"); len(v) > 0 {
		root = v[len(v)-1]
	}
	if root == "" {
		return
	}
	var names []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--path" || a == "--git" || strings.HasPrefix(a, "--path=") || strings.HasPrefix(a, "--git="):
			names = append(names, "")
			if !strings.Contains(a, "=") {
				i++
			}
		case a == "--bin" && i+1 < len(rest):
			i++
			names = append(names, rest[i])
		case strings.HasPrefix(a, "-"):
			if cargoValueFlag(a) {
				i++
			}
		default:
			name, _, _ := strings.Cut(a, "@")
			names = append(names, name)
		}
	}
	sh.installsOver("cargo install --root", filepath.Join(root, "bin"), names)
}

// cargoValueFlag reports cargo install's options that take a value
// (cargo-install(1)).
func cargoValueFlag(a string) bool {
	switch a {
	case "--root", "--branch", "--tag", "--rev", "--version", "--vers", "--registry", "--index",
		"--features", "-F", "--target", "--target-dir", "--profile", "-j", "--jobs", "--config", "-Z",
		"--example", "--color":
		return true
	}
	return false
}
