package configs

import (
	"encoding/json"
	"testing"
)

func TestNewConfigParses(t *testing.T) {
	b := NewConfig([]ConfigSetting{{"session_cap_usd", 20.0, "stop the turn at this spend"}, {"warn_at", 0.8, ""}})
	d, err := ParseDoc("config.json", b, false)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var v map[string]float64
	if err := d.Value(&v); err != nil || v["session_cap_usd"] != 20 || v["warn_at"] != 0.8 {
		t.Fatalf("%v %v", v, err)
	}
}

func TestSetConfigKeepsEverythingElse(t *testing.T) {
	in := "// mine\n{\n\t\"session_cap_usd\": 5, // too low\n\t\"prices\": {\"x\": 1},\n}\n"
	d, err := ParseDoc("config.json", []byte(in), false)
	if err != nil {
		t.Fatal(err)
	}
	if !SetConfig(d, []ConfigSetting{{Key: "session_cap_usd", Value: 12.5}, {Key: "repeat_run", Value: 4}}) {
		t.Fatal("no change reported")
	}
	want := "// mine\n{\n\t\"session_cap_usd\": 12.5, // too low\n\t\"prices\": {\"x\": 1},\n\t\"repeat_run\": 4,\n}\n"
	if got := string(d.Pack()); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if SetConfig(d, []ConfigSetting{{Key: "session_cap_usd", Value: 12.5}}) {
		t.Fatal("setting the same value reported a change")
	}
	var v map[string]any
	if err := d.Value(&v); err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(v); err != nil {
		t.Fatal(err)
	}
}
