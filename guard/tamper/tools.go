package tamper

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/configs"
)

// The tools a call can come through, and what each hands the wire: a
// command line, a file and its new content, a patch, or (MCP) arguments
// that name paths and commands.

// looksAt reports the tools the wire looks at: the rest only read.
func looksAt(tool string) bool {
	switch tool {
	case "Bash", "Shell", "exec_command", "shell", "local_shell", "container.exec", "shell_command", "bash",
		"run_shell_command", "write_stdin", "PowerShell", "powershell", "Write", "Edit", "MultiEdit", "NotebookEdit",
		"write", "edit", "multiedit", "create", "write_file", "replace", "apply_patch":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}

// call checks one tool call by its tool's input.
func (t *checker) call(tool string, input json.RawMessage) {
	switch tool {
	case "Bash", "Shell", "exec_command", "shell", "local_shell", "container.exec", "shell_command", "bash", "run_shell_command":
		t.shellInput(input)
	case "write_stdin":
		// Text typed into a running command, most often a shell.
		var in struct {
			Chars string `json:"chars"`
		}
		if json.Unmarshal(input, &in) == nil && in.Chars != "" {
			t.shell(in.Chars, t.cwd)
			t.deny(t.code(in.Chars))
		}
	case "PowerShell", "powershell": // Claude Code's, Copilot CLI's on Windows
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(input, &in) == nil {
			t.powershell(in.Command, t.cwd)
		}
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		t.deny(t.fileTool(tool, input))
	case "write", "edit", "multiedit", "create": // OpenCode's; edit and create Copilot CLI's too
		if tool == "edit" && claudeFields(input) {
			// Qwen Code's edit, with Edit's fields.
			t.deny(t.fileTool("Edit", input))
		} else {
			t.deny(t.openCodeFileTool(tool, input))
		}
	case "write_file": // Gemini CLI's, with Write's fields
		t.deny(t.fileTool("Write", input))
	case "replace": // Gemini CLI's, with Edit's fields
		t.deny(t.fileTool("Edit", input))
	case "apply_patch":
		var in struct {
			Command   string `json:"command"`
			Input     string `json:"input"`
			PatchText string `json:"patchText"` // OpenCode
		}
		if json.Unmarshal(input, &in) == nil {
			t.deny(t.patch(in.Command+in.Input+in.PatchText, t.cwd))
		}
	default:
		if strings.HasPrefix(tool, "mcp__") {
			t.mcp(tool, input)
		}
	}
}

// shellInput reads a shell call's command: a string (Claude Code, Codex
// Bash) or an argv (Codex's older shell tool).
func (t *checker) shellInput(input json.RawMessage) {
	var in struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
		Workdir string          `json:"workdir"`
		DirPath string          `json:"dir_path"` // Gemini CLI's
	}
	if json.Unmarshal(input, &in) != nil {
		return
	}
	raw := in.Command
	if len(raw) == 0 {
		raw = in.Cmd
	}
	cwd := t.cwd
	if in.Workdir != "" {
		cwd = t.abs(in.Workdir, t.cwd)
	} else if in.DirPath != "" {
		cwd = t.abs(in.DirPath, t.cwd)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t.shell(s, cwd)
		return
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		q := make([]string, len(argv))
		for i, a := range argv {
			q[i] = configs.ShellQuote(a)
		}
		t.shell(strings.Join(q, " "), cwd)
	}
}

// fileTool checks Claude Code's file tools.
func (t *checker) fileTool(tool string, input json.RawMessage) *finding {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Content      string `json:"content"`
		OldString    string `json:"old_string"`
		NewString    string `json:"new_string"`
		ReplaceAll   bool   `json:"replace_all"`
		Edits        []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	p := t.abs(in.FilePath, t.cwd)
	if tool == "NotebookEdit" {
		p = t.abs(in.NotebookPath, t.cwd)
	}
	if p == "" {
		return nil
	}
	if tool == "NotebookEdit" {
		if kind := t.classify(p); kind != notProtected {
			return &finding{action: kind.action(opWrite), path: filepath.Clean(p)}
		}
		return nil
	}
	if tool == "Write" {
		return t.writeFile(p, func(string, bool) (string, bool) { return in.Content, true }, nil)
	}
	edits := []textEdit{{in.OldString, in.NewString, in.ReplaceAll}}
	if tool == "MultiEdit" {
		edits = edits[:0]
		for _, e := range in.Edits {
			edits = append(edits, textEdit{e.OldString, e.NewString, e.ReplaceAll})
		}
	}
	apply := func(old string, exists bool) (string, bool) {
		if !exists {
			return "", false
		}
		return applyEdits(old, edits)
	}
	// When the edit cannot be tried on the file, judge its strings alone.
	fallback := func(kind *fileKind, path string) *finding {
		for _, e := range edits {
			if f := editTouchesHooks(kind, path, e.old, e.new); f != nil {
				return f
			}
		}
		return nil
	}
	return t.writeFile(p, apply, fallback)
}

// claudeFields reports an input that names its file as Claude Code's file
// tools do (file_path), not as OpenCode's (filePath, path).
func claudeFields(input json.RawMessage) bool {
	var in struct {
		FilePath *string `json:"file_path"`
	}
	return json.Unmarshal(input, &in) == nil && in.FilePath != nil
}

// openCodeFileTool checks OpenCode's file tools by their Claude Code
// counterparts: write, edit and multiedit name the file filePath (or path,
// in OpenCode's newer tools) and the strings in camel case. Copilot CLI's
// edit and create name it path, with old_str, new_str and file_text.
func (t *checker) openCodeFileTool(tool string, input json.RawMessage) *finding {
	type edit struct {
		FilePath   string `json:"filePath"`
		OldString  string `json:"oldString"`
		NewString  string `json:"newString"`
		ReplaceAll bool   `json:"replaceAll"`
	}
	var in struct {
		edit
		Path    string `json:"path"`
		Content string `json:"content"`
		Edits   []edit `json:"edits"`
		// Copilot CLI's edit and create.
		OldStr   string `json:"old_str"`
		NewStr   string `json:"new_str"`
		FileText string `json:"file_text"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	if in.OldString == "" && in.NewString == "" {
		in.OldString, in.NewString = in.OldStr, in.NewStr
	}
	if in.Content == "" {
		in.Content = in.FileText
	}
	type claudeEdit struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	out := struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content,omitempty"`
		claudeEdit
		Edits []claudeEdit `json:"edits,omitempty"`
	}{FilePath: in.FilePath, Content: in.Content, claudeEdit: claudeEdit{in.OldString, in.NewString, in.ReplaceAll}}
	if out.FilePath == "" {
		out.FilePath = in.Path
	}
	for _, e := range in.Edits {
		out.Edits = append(out.Edits, claudeEdit{e.OldString, e.NewString, e.ReplaceAll})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return t.fileTool(map[string]string{"write": "Write", "create": "Write", "edit": "Edit", "multiedit": "MultiEdit"}[tool], b)
}

// textEdit is one old → new replacement of Edit or MultiEdit.
type textEdit struct {
	old, new string
	all      bool
}

func applyEdits(s string, edits []textEdit) (string, bool) {
	for _, e := range edits {
		if e.old == "" || !strings.Contains(s, e.old) {
			return "", false
		}
		if e.all {
			s = strings.ReplaceAll(s, e.old, e.new)
		} else {
			s = strings.Replace(s, e.old, e.new, 1)
		}
	}
	return s, true
}

// mcpPathKeys are the argument names MCP tools use for a file or folder
// they act on (lower case, without _ and -).
var mcpPathKeys = map[string]bool{
	"path": true, "filepath": true, "file": true, "filename": true, "source": true, "destination": true,
	"dest": true, "target": true, "targetpath": true, "src": true, "dst": true, "from": true, "to": true,
	"newpath": true, "oldpath": true, "directory": true, "dir": true, "folder": true, "paths": true,
	"sourcepath": true, "destinationpath": true, "uri": true, "notebookpath": true, "output": true,
	"outputpath": true,
}

// mcpCommandKeys name an argument that is a command line.
var mcpCommandKeys = map[string]bool{"command": true, "cmd": true, "script": true, "shellcommand": true}

// mcp: an MCP tool whose arguments name a protected path is denied,
// unless the tool's name says it only reads; an argument that is a
// command line is checked as one.
func (t *checker) mcp(tool string, input json.RawMessage) {
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return
	}
	op := tool[strings.LastIndex(tool, "__")+2:]
	reads := false
	for _, p := range []string{"read", "get", "list", "search", "find", "stat", "view", "head", "tail", "glob", "grep", "directory_tree", "describe", "info", "query"} {
		if strings.HasPrefix(strings.ToLower(op), p) {
			reads = true
		}
	}
	var walk func(key string, v any, depth int)
	walk = func(key string, v any, depth int) {
		if t.done() || depth > 4 {
			return
		}
		switch x := v.(type) {
		case string:
			k := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(key))
			switch {
			case mcpCommandKeys[k]:
				t.shell(x, t.cwd)
			case mcpPathKeys[k] && !reads:
				p := t.abs(strings.TrimPrefix(x, "file://"), t.cwd)
				if p == "" || !known(p) {
					return
				}
				if kind := t.classify(p); kind != notProtected {
					t.deny(&finding{action: kind.action(opWrite) + " through " + tool, path: filepath.Clean(p)})
				} else if lop := strings.ToLower(op); strings.Contains(lop, "move") || strings.Contains(lop, "delete") || strings.Contains(lop, "remove") {
					if in := t.inside(p); len(in) > 0 {
						t.deny(&finding{action: "remove or move a folder that holds " + in[0].kind.noun() + " through " + tool, path: in[0].path})
					}
				}
			}
		case []any:
			for _, e := range x {
				walk(key, e, depth+1)
			}
		case map[string]any:
			for k, e := range x {
				walk(k, e, depth+1)
			}
		}
	}
	for k, v := range args {
		walk(k, v, 0)
	}
}
