package report

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kneepoint/kneepoint/engine"
)

func compareRuns(t *testing.T) []engine.Results {
	return []engine.Results{fixture(t, "results.json"), fixture(t, "results-ratelimited.json")}
}

func TestCompare(t *testing.T) {
	golden.RequireEqual(t, render(t, Compare(compareRuns(t), []string{"h200", "hosted"})))
}

func TestCompareCSV(t *testing.T) {
	golden.RequireEqual(t, render(t, CompareCSV(compareRuns(t), []string{"h200", "hosted"})))
}

func TestCompareDetails(t *testing.T) {
	runs := compareRuns(t)
	longer := fixture(t, "results.json")
	longer.Workload.PromptTokens = 1000
	tests := []struct {
		name   string
		runs   []engine.Results
		names  []string
		want   []string
		absent []string
	}{
		{"default names", runs, nil, []string{"run 1 tok/s", "run 2/run 1 tok/s"}, nil},
		{"blank name", runs, []string{"a", " "}, []string{"| a |", "run 2/a p95"}, nil},
		{"ratio to itself", []engine.Results{runs[0], runs[0]}, []string{"x", "y"}, []string{"| 512 | 19524 | 3625 | 19524 | 3625 | ×1.00 | ×1.00 |"}, []string{"differ"}},
		{"ratio at shared levels only", runs, []string{"a", "b"}, []string{"| 16 | 3106 | 665 | 1067 | 743 | ×0.34 | ×1.12 |", "| 2 | 426 | 628 | - | - | - | - |"}, nil},
		{"different shapes warned", []engine.Results{runs[0], longer}, nil, []string{"Prompt shapes differ"}, nil},
		{"one run", runs[:1], []string{"solo"}, []string{"| c | solo tok/s | solo p95 ms |"}, []string{"×"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := string(render(t, Compare(tc.runs, tc.names)))
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("unexpected %q in:\n%s", a, out)
				}
			}
		})
	}
	for name, r := range map[string]Reporter{"Compare": Compare(nil, nil), "CompareCSV": CompareCSV(nil, nil)} {
		if err := r(io.Discard); err == nil {
			t.Errorf("%s: want an error for no runs", name)
		}
	}
}
