package engine

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestGCLimit(t *testing.T) {
	for _, tt := range []struct {
		conc int
		want int64
	}{
		{1, 512 << 20}, {1000, 512 << 20}, {8192, 512 << 20}, {10000, 10000 * 64 << 10}, {100000, 100000 * 64 << 10},
	} {
		if got := GCLimit(tt.conc); got != tt.want {
			t.Errorf("GCLimit(%d) = %d, want %d", tt.conc, got, tt.want)
		}
	}
}

func TestTuneGCLeavesUserSettings(t *testing.T) {
	prevPct := debug.SetGCPercent(100)
	prevLim := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(prevPct); debug.SetMemoryLimit(prevLim) })

	env := map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}
	if got := TuneGC(64, func(k string) string { return env[k] }); got != "" {
		t.Errorf("TuneGC with GOGC and GOMEMLIMIT set = %q, want nothing set", got)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GC percent changed to %d", p)
	}
	if got := TuneGC(64, func(string) string { return "" }); got != "[GOGC=400 GOMEMLIMIT=512MiB]" {
		t.Errorf("TuneGC = %q", got)
	}
	if p := debug.SetGCPercent(100); p != 400 {
		t.Errorf("GC percent %d, want 400", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 512<<20 {
		t.Errorf("memory limit %d, want 512 MiB", l)
	}
}
