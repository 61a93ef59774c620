package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kneepoint/kneepoint/engine"
)

// Files given to report, plot or compare that are not kneepoint results
// must give a clear one-line error naming the file, never a panic.
func TestReadResultsRejectsBadFiles(t *testing.T) {
	valid, err := os.ReadFile("testdata/results.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"truncated", string(valid[:len(valid)/2]), "not a kneepoint results file (invalid JSON"},
		{"empty", "", "not a kneepoint results file (invalid JSON"},
		{"array", `[{"schema":"kneepoint.results/v1"}]`, "not a kneepoint results file (invalid JSON"},
		{"missing schema", `{"levels":[]}`, `not a kneepoint results file (no "schema" field)`},
		{"wrong schema", `{"schema":"kneepoint.results/v9"}`, `schema "kneepoint.results/v9" is not supported (want "kneepoint.results/v1")`},
		{"other tool", `{"schema":"vegeta"}`, `schema "vegeta" is not supported`},
		{"unknown field", strings.Replace(string(valid), `"seed": 1,`, `"seed": 1, "sneaky": true,`, 1), `does not match kneepoint.results/v1: json: unknown field "sneaky"`},
		{"wrong type", strings.Replace(string(valid), `"seed": 1,`, `"seed": "one",`, 1), "does not match kneepoint.results/v1"},
		{"broken invariant", strings.Replace(string(valid), `"concurrency": 1,`, `"concurrency": 0,`, 1), "levels[0].concurrency 0 is not positive"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := engine.ReadResults(path)
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+": ") || !strings.Contains(msg, tc.want) {
				t.Errorf("got %q, want it to name %s and say %q", msg, path, tc.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("the error spans lines: %q", msg)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(dir, "nope.json")
		if _, err := engine.ReadResults(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("want an error naming %s, got %v", path, err)
		}
	})
}
