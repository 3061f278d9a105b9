package configs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Claude Code's own permission rules keep its file tools away from
// runaway's files whatever the hook says: `permissions.deny` rules such as
// `Edit(//home/u/.config/runaway/**)`. Claude Code applies Edit rules to
// every tool that edits files, and to the commands of its sandboxed Bash
// when the person turns the sandbox on. setup adds them; remove takes out
// exactly the ones setup added (a rule the person already had stays).

// RulesUndo records what AddDenyRules created, so RemoveDenyRules can give
// the file back byte for byte. It is stored in installed.json.
type RulesUndo struct {
	// Rules are the rules setup added (not ones already there).
	Rules []string `json:"rules,omitempty"`
	// Created: "permissions" (the whole object), "deny" (the array), or "".
	Created string `json:"created,omitempty"`
	// EmptyInner holds the inner bytes of the container that received the
	// new content, when it was empty.
	EmptyInner *string `json:"empty_inner,omitempty"`
}

// ClaudeEditRule is the deny rule for one absolute path: `//` anchors it at
// the filesystem root (a single `/` would anchor it at the settings file's
// folder); a folder gets `/**` for everything in it. On Windows Claude Code
// matches paths in POSIX form, `C:\x` as `/c/x`.
func ClaudeEditRule(path string, dir bool, goos string) string {
	p := path
	if goos == "windows" {
		p = strings.ReplaceAll(p, `\`, "/")
		if len(p) >= 2 && p[1] == ':' {
			p = "/" + strings.ToLower(p[:1]) + p[2:]
		}
	}
	p = strings.TrimRight(p, "/")
	if dir {
		p += "/**"
	}
	return "Edit(/" + p + ")"
}

// permissionsObject returns the top-level "permissions" object, nil when
// there is none, or an error when it is not an object.
func (d *Doc) permissionsObject() (*hujson.Value, error) {
	root := d.rootObject()
	i := findMember(root, "permissions")
	if i < 0 {
		return nil, nil
	}
	v := &root.Members[i].Value
	if asObject(v) == nil {
		return nil, d.errAt(v, `"permissions" is not an object`)
	}
	return v, nil
}

// denyArray returns permissions.deny, nil when there is none.
func (d *Doc) denyArray(perms *hujson.Value) (*hujson.Value, error) {
	obj := asObject(perms)
	i := findMember(obj, "deny")
	if i < 0 {
		return nil, nil
	}
	v := &obj.Members[i].Value
	if asArray(v) == nil {
		return nil, d.errAt(v, `"permissions.deny" is not an array`)
	}
	return v, nil
}

// DenyRules lists the string rules in permissions.deny.
func (d *Doc) DenyRules() ([]string, error) {
	perms, err := d.permissionsObject()
	if err != nil || perms == nil {
		return nil, err
	}
	deny, err := d.denyArray(perms)
	if err != nil || deny == nil {
		return nil, err
	}
	var out []string
	for _, e := range asArray(deny).Elements {
		if lit, ok := e.Value.(hujson.Literal); ok && lit.Kind() == '"' {
			out = append(out, lit.String())
		}
	}
	return out, nil
}

// AddDenyRules appends the rules missing from permissions.deny, creating
// "permissions" and "deny" when needed. Nothing else moves.
func (d *Doc) AddDenyRules(rules []string) (RulesUndo, error) {
	var u RulesUndo
	have, err := d.DenyRules()
	if err != nil {
		return u, err
	}
	for _, r := range rules {
		if !slices.Contains(have, r) && !slices.Contains(u.Rules, r) {
			u.Rules = append(u.Rules, r)
		}
	}
	if len(u.Rules) == 0 {
		return u, nil
	}
	values := make(jsonArray, len(u.Rules))
	for i, r := range u.Rules {
		values[i] = r
	}
	perms, _ := d.permissionsObject()
	if perms == nil {
		u.Created = "permissions"
		u.EmptyInner = d.appendMember(&d.root, "permissions", jsonObject{{"deny", values}})
		return u, nil
	}
	deny, _ := d.denyArray(perms)
	if deny == nil {
		u.Created = "deny"
		u.EmptyInner = d.appendMember(perms, "deny", values)
		return u, nil
	}
	for i, r := range u.Rules {
		inner := d.appendElement(deny, r)
		if i == 0 {
			u.EmptyInner = inner
		}
	}
	return u, nil
}

// RemoveDenyRules takes the rules setup added out of permissions.deny and,
// once they are empty, what setup created for them. It returns how many
// rules it removed.
func (d *Doc) RemoveDenyRules(u RulesUndo) (int, error) {
	perms, err := d.permissionsObject()
	if err != nil || perms == nil {
		return 0, err
	}
	deny, err := d.denyArray(perms)
	if err != nil || deny == nil {
		return 0, err
	}
	arr := asArray(deny)
	n := 0
	for i := len(arr.Elements) - 1; i >= 0; i-- {
		lit, ok := arr.Elements[i].Value.(hujson.Literal)
		if ok && lit.Kind() == '"' && slices.Contains(u.Rules, lit.String()) {
			deleteElement(arr, i)
			n++
		}
	}
	if n == 0 || len(arr.Elements) > 0 {
		return n, nil
	}
	switch u.Created {
	case "":
		restoreEmpty(deny, u.EmptyInner)
	case "deny", "permissions":
		obj := asObject(perms)
		deleteMember(obj, findMember(obj, "deny"))
		if u.Created == "deny" {
			restoreEmpty(perms, u.EmptyInner)
			break
		}
		if len(obj.Members) == 0 {
			root := d.rootObject()
			deleteMember(root, findMember(root, "permissions"))
			restoreEmpty(&d.root, u.EmptyInner)
		}
	default:
		return n, fmt.Errorf("unknown record of created rules %q", u.Created)
	}
	return n, nil
}
