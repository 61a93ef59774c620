package ui

import (
	"math"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"ms tiny", fmtMs(0.42), "0.42ms"},
		{"ms small", fmtMs(4.63), "4.6ms"},
		{"ms", fmtMs(230.4), "230ms"},
		{"ms to s", fmtMs(999.6), "1.00s"},
		{"s", fmtMs(1234), "1.23s"},
		{"tens of s", fmtMs(12345), "12.3s"},
		{"minutes", fmtMs(123456), "123s"},
		{"ms zero", fmtMs(0), "0ms"},
		{"ms NaN", fmtMs(math.NaN()), "0ms"},
		{"compact frac", fmtCompact(7.5), "7.5"},
		{"compact int", fmtCompact(920), "920"},
		{"compact k", fmtCompact(4210), "4.21k"},
		{"compact 10k", fmtCompact(13348), "13.3k"},
		{"compact M", fmtCompact(1.2e6), "1.2M"},
		{"int", fmtInt(12345), "12,345"},
		{"int small", fmtInt(999), "999"},
		{"int million", fmtInt(-1234567), "-1,234,567"},
		{"rate small", fmtRate(38.26), "38.3"},
		{"rate", fmtRate(9804.4), "9,804"},
		{"clock", fmtClock(83 * time.Second), "1:23"},
		{"clock hours", fmtClock(3723 * time.Second), "1:02:03"},
		{"clock negative", fmtClock(-time.Second), "0:00"},
		{"seconds", fmtSeconds(1500 * time.Millisecond), "1.5s"},
		{"seconds whole", fmtSeconds(18 * time.Second), "18s"},
		{"seconds minutes", fmtSeconds(80 * time.Second), "1m20s"},
		{"pct zero", fmtPct(0), "0%"},
		{"pct tiny", fmtPct(0.0004), "<0.1%"},
		{"pct", fmtPct(0.034), "3.4%"},
		{"pct big", fmtPct(0.5), "50%"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// The redaction cases live in engine/redact_test.go; safeURL only
// delegates to engine.RedactURL.

func TestNiceCeil(t *testing.T) {
	for _, tt := range []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {math.NaN(), 1}, {math.Inf(1), 1},
		{0.7, 0.8}, {1, 1}, {1.1, 1.2}, {6272, 8000}, {10784, 12000}, {2.1, 2.5},
	} {
		if got := niceCeil(tt.in); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("niceCeil(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestHistoryIsBounded feeds hours of snapshots: the history stays under
// maxSamples and in time order, so a long run costs the same to draw.
func TestHistoryIsBounded(t *testing.T) {
	var p latencyPane
	for i := range 20000 {
		at := time.Duration(i) * 250 * time.Millisecond
		p.push(snapAt(at, float64(i%100)))
	}
	if len(p.samples) > maxSamples {
		t.Fatalf("%d samples kept, want at most %d", len(p.samples), maxSamples)
	}
	for i := 1; i < len(p.samples); i++ {
		if p.samples[i].at < p.samples[i-1].at {
			t.Fatalf("samples out of order at %d", i)
		}
	}
	if last := p.samples[len(p.samples)-1].at; last != 19999*250*time.Millisecond {
		t.Errorf("newest sample at %v, lost the latest snapshot", last)
	}
}

// TestBadFiguresAreIgnored feeds NaN, infinite and negative figures: they
// are dropped, not drawn.
func TestBadFiguresAreIgnored(t *testing.T) {
	m := sized(New(nil, &fakeCtl{}, scriptOpts), 120, 40)
	for _, v := range []float64{math.NaN(), math.Inf(1), -5} {
		m = feed(m, snapAt(time.Second, v))
	}
	if _, ok := m.latency.latest(metricE2E); ok {
		t.Error("a bad figure entered the latency history")
	}
	l := scriptLevels[0]
	m = feed(m, engineLevel(l.c, math.NaN()), engineLevel(2, 100))
	plan, _ := m.curve.points()
	if len(plan) != 1 || plan[0].conc != 2 {
		t.Errorf("curve points %+v, want only c=2", plan)
	}
}

func TestRateHint(t *testing.T) {
	got := rateHint(time.Second, map[string]string{"retry-after": "1", "Retry-After-Ms": "1000",
		"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1.2s\n"})
	want := "retry-after 1.0s · remaining-requests=0 · reset-requests=1.2s"
	if got != want {
		t.Errorf("rateHint = %q, want %q", got, want)
	}
	if rateHint(0, nil) != "" {
		t.Error("no hints should give an empty string")
	}
}
