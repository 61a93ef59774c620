package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

func TestHealthLine(t *testing.T) {
	busy := engine.Snapshot{At: time.Second, Phase: engine.PhaseMeasuring, Target: 8, InFlight: 8,
		Latency: engine.Dist{Count: 10, P50: 100, P95: 200}, Succeeded: 10, Failed: 5, RateLimited: 2,
		Errors:         map[string]int64{"server_error": 3, "rate_limited": 2},
		LastRetryAfter: time.Second, LastError: "HTTP 500: boom",
		DispatchLagP99: 14 * time.Millisecond, CPUShare: 0.93, OpenConns: -1,
		ClientBound: true, HarnessNote: "client-bound: workers dispatch 14ms late (p99)"}
	healthy := busy
	healthy.DispatchLagP99, healthy.CPUShare, healthy.OpenConns = 400*time.Microsecond, 0.042, 8
	healthy.ClientBound, healthy.HarnessNote = false, ""
	bare := healthy
	bare.HarnessNote, bare.ClientBound = "dispatch lag", true

	tests := []struct {
		name    string
		snap    engine.Snapshot
		w, h    int
		want    []string
		notWant []string
	}{
		{"client-bound wins the room at 80x24", busy, 80, 24,
			[]string{"⚠ client-bound: workers dispatch 14ms late", "client-bound", "Errors"},
			[]string{"conns", "Last error"}},
		{"client-bound at 120x40 shows every figure", busy, 120, 40,
			[]string{"dispatch lag p99 14ms", "CPU 93%", "Last error"}, []string{"conns"}},
		{"healthy at 120x40", healthy, 120, 40,
			[]string{"Harness    dispatch lag p99 0.40ms · CPU 4.2% · conns 8"}, []string{"client-bound"}},
		{"a note without the prefix gets it", bare, 120, 40, []string{"⚠ client-bound: dispatch lag"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := feed(sized(New(nil, &fakeCtl{}, scriptOpts), tt.w, tt.h), tt.snap)
			v := m.View()
			for _, s := range tt.want {
				if !strings.Contains(v, s) {
					t.Errorf("view lacks %q:\n%s", s, v)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(v, s) {
					t.Errorf("view has %q:\n%s", s, v)
				}
			}
		})
	}

	// Before the first snapshot there is nothing to say about the harness.
	if v := sized(New(nil, &fakeCtl{}, scriptOpts), 120, 40).View(); strings.Contains(v, "Harness") {
		t.Errorf("health line before any snapshot:\n%s", v)
	}
}

func TestKeepByPriority(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e"}
	prios := []int{0, 1, 5, 2, 3}
	tests := []struct {
		n    int
		want string
	}{{5, "abcde"}, {9, "abcde"}, {4, "abde"}, {3, "abd"}, {1, "a"}, {0, ""}}
	for _, tt := range tests {
		if got := strings.Join(keepByPriority(lines, prios, tt.n), ""); got != tt.want {
			t.Errorf("n=%d: %q, want %q", tt.n, got, tt.want)
		}
	}
}
