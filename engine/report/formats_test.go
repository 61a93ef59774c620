package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kneepoint/kneepoint/engine"
)

func TestForPath(t *testing.T) {
	res := fixture(t, "results.json")
	tests := []struct {
		path    string
		starts  string // the output begins with this
		wantErr string
	}{
		{path: "out/r.json", starts: "{\n  \"schema\": \"kneepoint.results/v1\""},
		{path: "R.MD", starts: "# kneepoint: "},
		{path: "r.csv", starts: "index,concurrency,source"},
		{path: "sweep.svg", starts: "<?xml"},
		{path: "sweep.png", starts: "\x89PNG"},
		{path: "r.txt", wantErr: `r.txt: unsupported output format ".txt" (want .json, .md, .csv, .svg or .png)`},
		{path: "results", wantErr: "results: no file extension to choose the format from"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			rep, err := ForPath(tc.path, res)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out := render(t, rep); !bytes.HasPrefix(out, []byte(tc.starts)) {
				t.Errorf("output starts %q, want %q", out[:min(len(out), 40)], tc.starts)
			}
		})
	}
}

func TestCompareForPath(t *testing.T) {
	runs := []engine.Results{fixture(t, "results.json"), fixture(t, "results-ratelimited.json")}
	for path, starts := range map[string]string{"c.md": "# kneepoint comparison", "c.csv": "run,concurrency", "c.svg": "<?xml", "c.png": "\x89PNG"} {
		rep, err := CompareForPath(path, runs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out := render(t, rep); !bytes.HasPrefix(out, []byte(starts)) {
			t.Errorf("%s: output starts %q", path, out[:min(len(out), 40)])
		}
	}
	if _, err := CompareForPath("c.json", runs, nil); err == nil || !strings.Contains(err.Error(), "c.json") {
		t.Errorf("want an error naming c.json, got %v", err)
	}
}

// JSON round-trips: what it writes reads back equal.
func TestJSONRoundTrip(t *testing.T) {
	res := fixture(t, "results.json")
	back, err := engine.DecodeResults("round-trip", render(t, JSON(res)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(render(t, JSON(back)), render(t, JSON(res))) {
		t.Error("the results changed on a round trip")
	}
}
