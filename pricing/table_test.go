package pricing

import (
	_ "embed"
	"encoding/json"
	"reflect"
	"testing"
)

//go:embed prices.json
var pricesJSON []byte

// table.go is prices.json compiled in: it must say exactly what the JSON
// says, and map every id and alias. After editing prices.json, run
// `go generate ./pricing`.
func TestBuiltinTableIsPricesJSON(t *testing.T) {
	var doc struct {
		Models []Price `json:"models"`
	}
	if err := json.Unmarshal(pricesJSON, &doc); err != nil {
		t.Fatalf("prices.json: %v", err)
	}
	if !reflect.DeepEqual(doc.Models, builtin) {
		for i := range min(len(doc.Models), len(builtin)) {
			if !reflect.DeepEqual(doc.Models[i], builtin[i]) {
				t.Errorf("entry %d: prices.json %+v\ntable.go %+v", i, doc.Models[i], builtin[i])
			}
		}
		t.Fatalf("table.go (%d models) is not prices.json (%d models): run go generate ./pricing", len(builtin), len(doc.Models))
	}
	if want := newTable(doc.Models).byID; !reflect.DeepEqual(want, builtinIDs) {
		t.Fatalf("table.go's id map is not prices.json's: run go generate ./pricing")
	}
}
