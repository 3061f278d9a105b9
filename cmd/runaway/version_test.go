package main

import "testing"

func TestVersionText(t *testing.T) {
	stamped := build{version: "v1.2.3", commit: "0123456789ab", date: "2026-12-01T10:00:00Z", goVersion: "go1.26.8", platform: "windows/arm64"}
	want := "runaway v1.2.3\ncommit  0123456789ab\nbuilt   2026-12-01T10:00:00Z\ngo      go1.26.8 windows/arm64\n"
	if got := versionText(stamped); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := (build{}).filled(); got.version != "devel" || got.commit != "unknown" || got.date != "unknown" {
		t.Errorf("unstamped: %+v", got)
	}
}

// Release builds stamp the variables the release config names.
func TestStampedValuesWin(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "v9.9.9", "abc", "2026-01-02T03:04:05Z"
	if b := buildInfo(); b.version != "v9.9.9" || b.commit != "abc" || b.date != "2026-01-02T03:04:05Z" {
		t.Errorf("%+v", b)
	}
}
