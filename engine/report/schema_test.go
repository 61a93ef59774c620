package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The committed schema and its documentation, at the repository root.
const (
	schemaPath = "../../docs/results.schema.json"
	docsPath   = "../../docs/results.md"
)

// updating reports whether the test binary runs with -update (the flag is
// registered by charmbracelet/x/exp/golden, which these tests use too).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestSchemaIsCurrent regenerates the schema from the Go types and fails
// when the committed docs/results.schema.json differs: the schema cannot
// drift from the code. Run with -update to rewrite it.
func TestSchemaIsCurrent(t *testing.T) {
	got, err := ResultsSchema()
	if err != nil {
		t.Fatal(err)
	}
	if updating() {
		if err := os.WriteFile(schemaPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/report -run TestSchemaIsCurrent -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: the results types changed; run go test ./engine/report -run TestSchemaIsCurrent -update and document the change in %s", schemaPath, docsPath)
	}
}

// TestSchemaFieldsAreDocumented fails when a field of the schema is not
// mentioned (as `name`) in docs/results.md.
func TestSchemaFieldsAreDocumented(t *testing.T) {
	schema, err := ResultsSchema()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	for def, d := range doc.Defs {
		for name := range d.Properties {
			if !bytes.Contains(docs, []byte("`"+name+"`")) {
				t.Errorf("%s.%s is not documented in %s", def, name, docsPath)
			}
		}
	}
}

// TestFixturesValidate checks the committed results files against the
// committed schema.
func TestFixturesValidate(t *testing.T) {
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateJSON(schema, data); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestValidatorRejects makes sure the validator is not vacuous: each
// mutation of a valid file must be caught, naming the path.
func TestValidatorRejects(t *testing.T) {
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	valid, err := os.ReadFile("testdata/results.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"missing required", func(m map[string]any) { delete(m, "seed") }, `$: required property "seed" is missing`},
		{"unknown property", func(m map[string]any) { m["extra"] = 1 }, `$: property "extra" is not allowed`},
		{"wrong type", func(m map[string]any) { m["partial"] = "no" }, `$.partial: string "no" is not of type [boolean]`},
		{"fraction in integer", func(m map[string]any) { m["seed"] = 1.5 }, `$.seed: number 1.5 is not of type [integer]`},
		{"wrong schema constant", func(m map[string]any) { m["schema"] = "kneepoint.results/v2" }, `$.schema: string "kneepoint.results/v2" is not the constant`},
		{"bad date", func(m map[string]any) { m["started_at"] = "yesterday" }, `$.started_at: "yesterday" is not an RFC 3339 date-time`},
		{"null where not nullable", func(m map[string]any) { m["target"] = nil }, `$.target: null is not of type [object]`},
		{"nested unknown", func(m map[string]any) { level(m)["latency_ms"].(map[string]any)["p42"] = 1 }, `$.levels[0].latency_ms: property "p42" is not allowed`},
		{"map value type", func(m map[string]any) { level(m)["errors"] = map[string]any{"timeout": "x"} }, `$.levels[0].errors.timeout: string "x" is not of type [integer]`},
		{"array item type", func(m map[string]any) { m["warnings"] = []any{1} }, `$.warnings[0]: number 1 is not of type [string]`},
		{"bad knee", func(m map[string]any) { m["knee"] = map[string]any{"concurrency": 1} }, `$.knee: matches no alternative of anyOf`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(valid, &m); err != nil {
				t.Fatal(err)
			}
			tc.mutate(m)
			doc, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			err = validateJSON(schema, doc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
	t.Run("keyword outside the subset", func(t *testing.T) {
		err := validateJSON([]byte(`{"type":"object","minProperties":1}`), []byte(`{}`))
		if err == nil || !strings.Contains(err.Error(), `"minProperties" is outside`) {
			t.Fatalf("got %v", err)
		}
	})
}

func level(m map[string]any) map[string]any { return m["levels"].([]any)[0].(map[string]any) }

// TestSchemaMapping pins the encoding/json rules the generator follows.
func TestSchemaMapping(t *testing.T) {
	schema, err := ResultsSchema()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Ref  string                    `json:"$ref"`
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Ref != "#/$defs/Results" {
		t.Errorf("root $ref %q", doc.Ref)
	}
	prop := func(def, name string) string {
		p, ok := doc.Defs[def]["properties"].(map[string]any)[name]
		if !ok {
			t.Fatalf("%s.%s missing", def, name)
		}
		b, _ := json.Marshal(p)
		return string(b)
	}
	required := func(def string) []string {
		var out []string
		for _, r := range doc.Defs[def]["required"].([]any) {
			out = append(out, r.(string))
		}
		return out
	}
	tests := []struct{ def, field, want string }{
		{"Results", "knee", `{"anyOf":[{"$ref":"#/$defs/Knee"},{"type":"null"}]}`}, // pointer, no omitempty
		{"Results", "slo", `{"$ref":"#/$defs/SLO"}`},                               // pointer, omitempty
		{"Results", "warnings", `{"items":{"type":"string"},"type":["array","null"]}`},
		{"Results", "started_at", `{"format":"date-time","type":"string"}`},
		{"Results", "schema", `{"const":"kneepoint.results/v1","type":"string"}`},
		{"LevelResult", "errors", `{"additionalProperties":{"type":"integer"},"type":["object","null"]}`},
		{"LevelResult", "slo_misses", `{"items":{"type":"string"},"type":"array"}`},
		{"LevelResult", "slo_met", `{"type":"boolean"}`},
		{"Dist", "p95", `{"type":"number"}`},
	}
	for _, tc := range tests {
		if got := prop(tc.def, tc.field); got != tc.want {
			t.Errorf("%s.%s = %s, want %s", tc.def, tc.field, got, tc.want)
		}
	}
	if r := required("Results"); !slices.Contains(r, "knee") || slices.Contains(r, "slo") {
		t.Errorf("Results.required = %v: want knee (no omitempty) and not slo (omitempty)", r)
	}
	for def, d := range doc.Defs {
		if d["additionalProperties"] != false {
			t.Errorf("%s is not closed", def)
		}
	}
}

// docs/results.md must name the schema version it documents.
func TestDocsNameTheSchema(t *testing.T) {
	docs, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile("kneepoint\\.results/v1").Match(docs) {
		t.Errorf("%s does not name kneepoint.results/v1", docsPath)
	}
}
