package tamper

// The programs the wire knows, as data: what each does to the paths it is
// handed, and which of its short options take the next word as a value
// (so that word is not read as a path). A row with a run function has a
// grammar of its own (git, find, sed and awk scripts, archives,
// interpreters, the agents) and is read by code. Each row names the
// documentation its facts come from.

// pathsRule says which words of a command line are the paths it changes.
type pathsRule uint8

const (
	noPaths         pathsRule = iota
	allOperands               // every operand (rm a b c)
	firstOperand              // only the first operand (flock FILE CMD)
	optionValue               // the values of the options in outputs (sort -o FILE)
	inPlaceOperands           // every operand, but only with -i / --in-place (sed -i)
	copyOperands              // cp/mv/ln: the destination, the sources when they move (see copyLike)
)

// program is one row of the table.
type program struct {
	paths      pathsRule
	op         pathOp   // what it does to those paths
	valueFlags string   // short options whose value is the next word
	outputs    []string // optionValue: the options that name a file it writes
	dryRun     bool     // --dry-run or --list-only makes it only show
	run        func(sh *shell, c *call) *stdin
	doc        string // where the row's facts come from
}

// call is one command as a program row's code sees it.
type call struct {
	name     string
	args     []string // after the program's name
	env      map[string]string
	in       *stdin
	viaXargs bool // its operands came from xargs: a folder named is only a name
}

// Option letters shared by a family of rows.
const (
	// cp -t DIR, -S SUFFIX; install -m MODE, -o OWNER, -g GROUP; rsync -e
	// RSH, -f RULE, -B SIZE; scp -o OPTION, -S PROGRAM.
	copyValues = "tSmogefB"
	// truncate -s SIZE; vim -c CMD, -S FILE, -u VIMRC, -w FILE, -t TAG,
	// -W FILE, -i VIMINFO, -T TERM (editors that share vi's options).
	editorValues = "scSuwtWiT"
)

// programs is filled by init: its rows' code reaches run, which reads it.
var programs map[string]program

func init() {
	removes := program{paths: allOperands, op: opUnlink, doc: "rm(1), rmdir(1), unlink(1) GNU coreutils; trash-cli"}
	shreds := program{paths: allOperands, op: opDeep, doc: "shred(1) GNU coreutils; srm(1)"}
	copies := program{paths: copyOperands, valueFlags: copyValues, dryRun: true, doc: "cp(1), install(1), ln(1), link(1) GNU coreutils; rsync(1); scp(1); ditto(1) macOS"}
	modes := program{paths: allOperands, op: opDeep, doc: "chmod(1), chown(1), chgrp(1) GNU coreutils; chattr(1) e2fsprogs; setfacl(1); xattr(1) macOS"}
	writes := program{paths: allOperands, op: opWrite, valueFlags: editorValues, doc: "tee(1), truncate(1), mkfifo(1), mknod(1) GNU coreutils; sponge(1) moreutils; patch(1); vim(1) and the editors"}
	awks := program{run: (*shell).awkCall, doc: "gawk(1): -i inplace, print > FILE, system()"}
	shells := program{run: (*shell).shellCall, doc: "bash(1): -c STRING, a script file, a script on stdin"}
	interps := program{run: (*shell).interpreterCall, doc: "python(1) -c, -m zipfile|tarfile -e; deno eval, php -r, lua -e, Rscript -e, julia -e, osascript -e; tclsh(1), expect(1) -c"}
	// vim(1): -c CMD, +CMD, --cmd CMD, -s/-e scripts on stdin: :!CMD runs a shell.
	editors := program{paths: allOperands, op: opWrite, valueFlags: editorValues, run: (*shell).vimCall, doc: "vim(1) -c, +cmd, --cmd, :!; ex(1)"}

	programs = map[string]program{
		"rm": removes, "unlink": removes, "rmdir": removes, "trash": removes, "trash-put": removes, "gio-trash": removes,
		"shred": shreds, "srm": shreds,
		"mv": {paths: copyOperands, valueFlags: "tS", doc: "mv(1) GNU coreutils: -t DIR, -S SUFFIX"},
		"cp": copies, "install": copies, "ln": copies, "link": copies, "scp": copies, "ditto": copies,
		"rsync": {paths: copyOperands, valueFlags: copyValues, dryRun: true, run: (*shell).rsyncCall, doc: "rsync(1): --remove-source-files, --dry-run, -e RSH, -f RULE, -B SIZE"},
		"chmod": modes, "chown": modes, "chgrp": modes, "chattr": modes, "setfacl": modes, "xattr": modes,
		"tee": writes, "truncate": writes, "sponge": writes, "patch": writes, "ed": writes, "ex": editors,
		"vi": editors, "vim": editors, "nvim": editors, "view": editors, "nano": writes, "pico": writes,
		"emacs": writes, "emacsclient": writes, "kak": writes, "hx": writes, "micro": writes, "joe": writes,
		"mcedit": writes, "code": writes, "subl": writes, "gedit": writes, "mkfifo": writes, "mknod": writes,
		"sort": {paths: optionValue, op: opWrite, outputs: []string{"-o", "--output"}, doc: "sort(1) GNU coreutils: -o FILE"},
		"curl": {paths: optionValue, op: opWrite, outputs: []string{"-o", "--output", "-O", "--output-document"}, doc: "curl(1) -o FILE; wget(1) -O FILE"},
		"wget": {paths: optionValue, op: opWrite, outputs: []string{"-o", "--output", "-O", "--output-document"}, doc: "curl(1) -o FILE; wget(1) -O FILE"},
		// Holding a session's lock makes every hook answer "no decision".
		"flock": {paths: firstOperand, op: opWrite, valueFlags: "wEc", doc: "flock(1) util-linux: -w SECONDS, -E CODE, -c COMMAND"},
		"sed":   {paths: inPlaceOperands, op: opWrite, valueFlags: "ef", run: (*shell).sedCall, doc: "sed(1) GNU sed: -i, -e SCRIPT, -f FILE, the w command"},
		"perl":  {paths: inPlaceOperands, op: opWrite, valueFlags: "ef", run: (*shell).perlCall, doc: "perlrun(1): -i, -e CODE, -E CODE"},
		"ruby":  {paths: inPlaceOperands, op: opWrite, valueFlags: "ef", run: (*shell).perlCall, doc: "ruby(1): -i, -e CODE"},
		"yq":    {paths: inPlaceOperands, op: opWrite, valueFlags: "ef", doc: "yq (mikefarah): -i, --inplace"},
		"awk":   awks, "gawk": awks, "mawk": awks, "nawk": awks,
		"dd":          {run: (*shell).ddCall, doc: "dd(1) GNU coreutils: of=FILE"},
		"zip":         {run: (*shell).zipCall, doc: "zip(1): -m, --move"},
		"unzip":       {run: (*shell).unzipCall, doc: "unzip(1): -d DIR"},
		"tar":         {run: (*shell).tarCall, doc: "tar(1) GNU tar and bsdtar: -x, -C DIR, --remove-files, --strip-components"},
		"bsdtar":      {run: (*shell).tarCall, doc: "bsdtar(1)"},
		"gtar":        {run: (*shell).tarCall, doc: "tar(1) GNU tar"},
		"go":          {run: (*shell).goCall, doc: "go help run, go help build"},
		"find":        {run: (*shell).findCall, doc: "find(1) GNU findutils"},
		"git":         {run: (*shell).gitCall, doc: "git(1) and its subcommands' pages"},
		"runaway":     {run: (*shell).runawayCall, doc: "runaway's own commands"},
		"runaway.exe": {run: (*shell).runawayCall, doc: "runaway's own commands"},
		"npx":         {run: (*shell).npxCall, doc: "npx(1), bunx, pnpx"},
		"bunx":        {run: (*shell).npxCall, doc: "npx(1), bunx, pnpx"},
		"pnpx":        {run: (*shell).npxCall, doc: "npx(1), bunx, pnpx"},
		"npm":         {run: (*shell).npmCall, doc: "npm-exec(1), pnpm dlx, yarn dlx, bun x"},
		"pnpm":        {run: (*shell).npmCall, doc: "npm-exec(1), pnpm dlx, yarn dlx, bun x"},
		"yarn":        {run: (*shell).npmCall, doc: "npm-exec(1), pnpm dlx, yarn dlx, bun x"},
		"bun":         {run: (*shell).npmCall, doc: "npm-exec(1), pnpm dlx, yarn dlx, bun x"},
		"sh":          shells, "bash": shells, "zsh": shells, "dash": shells, "ksh": shells, "mksh": shells,
		"ash": shells, "fish": shells, "busybox-sh": shells,
		"apply_patch": {run: (*shell).applyPatchCall, doc: "Codex's apply_patch (codex-rs/apply-patch)"},
		"applypatch":  {run: (*shell).applyPatchCall, doc: "Codex's apply_patch (codex-rs/apply-patch)"},
		"python":      interps, "deno": interps, "php": interps, "lua": interps, "osascript": interps,
		"Rscript": interps, "julia": interps, "tclsh": interps, "wish": interps, "expect": interps,
		"sqlite3":    {run: (*shell).sqliteCall, doc: "sqlite3(1): -cmd, -init, the dot-commands .shell, .system, .once and .output '|cmd'"},
		"cargo":      {run: (*shell).cargoCall, doc: "cargo-install(1): --root, --path, --git, --bin"},
		"pwsh":       {run: (*shell).pwshCall, doc: "pwsh(1): -Command, -c"},
		"powershell": {run: (*shell).pwshCall, doc: "pwsh(1): -Command, -c"},
		"node":       {run: (*shell).nodeCall, doc: "node(1): -e, -p, --eval, --print, a script file"},
		"nodejs":     {run: (*shell).nodeCall, doc: "node(1): -e, -p, --eval, --print, a script file"},
	}
}

// readers are programs that only read the files they are given, print
// them, or create what is missing (mkdir, touch): a protected file handed
// to them passes. Sources: their GNU coreutils, findutils, grep and
// util-linux pages; rg, ag, ack, jq and bat's own.
var readers = map[string]bool{
	"cat": true, "less": true, "more": true, "head": true, "tail": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "ag": true, "ack": true, "jq": true, "diff": true, "cmp": true, "wc": true,
	"stat": true, "file": true, "ls": true, "tree": true, "du": true, "md5sum": true, "sha1sum": true,
	"sha256sum": true, "sha512sum": true, "shasum": true, "b2sum": true, "cksum": true, "bat": true,
	"xxd": true, "od": true, "hexdump": true, "strings": true, "realpath": true, "readlink": true,
	"dirname": true, "basename": true, "test": true, "[": true, "echo": true, "printf": true,
	"base64": true, "column": true, "fold": true, "tr": true, "cut": true, "paste": true, "nl": true,
	"tac": true, "rev": true, "type": true, "which": true, "whereis": true, "true": true, "false": true,
	":": true, "zcat": true, "zless": true, "lsattr": true, "getfacl": true, "namei": true, "mkdir": true,
	"touch": true, "command-v": true, "export": true, "local": true, "declare": true,
}

// apply runs one program row on a command.
func (sh *shell) apply(p program, c *call) *stdin {
	if p.dryRun && dryRun(c.args) {
		return nil
	}
	switch p.paths {
	case allOperands:
		// A folder named by xargs is only a name: its contents are not
		// handed over.
		sh.paths(operands(c.args, p.valueFlags), p.op, !c.viaXargs)
	case firstOperand:
		if ops := operands(c.args, p.valueFlags); len(ops) > 0 {
			sh.pathArg(ops[0], p.op, false)
		}
	case optionValue:
		sh.paths(optionValues(c.args, p.outputs...), p.op, true)
	case inPlaceOperands:
		if inPlace(c.args) {
			sh.paths(operands(c.args, p.valueFlags), p.op, true)
		}
	case copyOperands:
		sh.copyLike(c.name, c.args, p.valueFlags, c.viaXargs)
	}
	if p.run != nil {
		return p.run(sh, c)
	}
	return nil
}
