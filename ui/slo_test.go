package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/kneepoint/kneepoint/engine"
)

func TestSLOBound(t *testing.T) {
	tests := []struct {
		name   string
		slo    engine.SLO
		m      metric
		want   float64
		label  string
		wantOK bool
	}{
		{"e2e p95", engine.SLO{LatencyP95Ms: 500, LatencyP99Ms: 900}, metricE2E, 500, "SLO p95 500ms", true},
		{"e2e p99 only", engine.SLO{LatencyP99Ms: 1500}, metricE2E, 1500, "SLO p99 1.50s", true},
		{"ttft p95", engine.SLO{TTFTP95Ms: 200, LatencyP95Ms: 500}, metricTTFT, 200, "SLO p95 200ms", true},
		{"ttft p99 only", engine.SLO{TTFTP99Ms: 300}, metricTTFT, 300, "SLO p99 300ms", true},
		{"itl p95", engine.SLO{ITLP95Ms: 7.5}, metricITL, 7.5, "SLO p95 7.5ms", true},
		{"itl p99 only", engine.SLO{ITLP99Ms: 12}, metricITL, 12, "SLO p99 12ms", true},
		{"no bound on the metric", engine.SLO{TTFTP95Ms: 200, TPOTP95Ms: 20}, metricE2E, 0, "", false},
		{"nonsense is no bound", engine.SLO{LatencyP95Ms: math.Inf(1), LatencyP99Ms: math.NaN()}, metricE2E, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, label, ok := sloBound(tt.slo, tt.m)
			if got != tt.want || label != tt.label || ok != tt.wantOK {
				t.Errorf("sloBound = %v %q %v, want %v %q %v", got, label, ok, tt.want, tt.label, tt.wantOK)
			}
		})
	}
}

// latencyRows is the left pane of a side-by-side frame.
func latencyRows(v string, w int) []string {
	var out []string
	lw := (w - 1) * 11 / 20
	for _, l := range strings.Split(v, "\n") {
		out = append(out, ansi.Truncate(l, lw, ""))
	}
	return out
}

// TestSLOLineOnLatencyChart checks the bound is drawn, labelled, and kept
// in range when every sample is far below it, and follows the metric.
func TestSLOLineOnLatencyChart(t *testing.T) {
	opts := scriptOpts
	opts.SLO = engine.SLO{TTFTP99Ms: 300, LatencyP95Ms: 2000}
	m := sized(New(nil, &fakeCtl{}, opts), 120, 40)
	for i := range 20 {
		m = feed(m, snapAt(time.Duration(i)*250*time.Millisecond, 100))
	}
	pane := strings.Join(latencyRows(m.View(), 120), "\n")
	if !strings.Contains(pane, "SLO p95 2.00s") || !strings.Contains(pane, "╌╌╌") {
		t.Fatalf("no labelled bound on the latency chart:\n%s", pane)
	}
	// The axis reaches past the bound: the top label is at least 2 s.
	top := strings.TrimSpace(strings.SplitN(latencyRows(m.View(), 120)[3], "│", 2)[0])
	if top != "2.50s" && top != "2.20s" && top != "3.00s" {
		t.Errorf("top y label %q does not cover a 2 s bound over 100 ms data", top)
	}

	next, _ := m.Update(keyRunes("m")) // TTFT: only a p99 bound
	pane = strings.Join(latencyRows(next.(Model).View(), 120), "\n")
	if !strings.Contains(pane, "SLO p99 300ms") || strings.Contains(pane, "SLO p95") {
		t.Errorf("TTFT pane does not show its own p99 bound:\n%s", pane)
	}
	next, _ = next.Update(keyRunes("m")) // ITL: no bound
	pane = strings.Join(latencyRows(next.(Model).View(), 120), "\n")
	if strings.Contains(pane, "SLO") || strings.Contains(pane, "╌") {
		t.Errorf("ITL pane draws a bound it does not have:\n%s", pane)
	}

	// Without objectives nothing is drawn at all.
	plain := feed(sized(New(nil, &fakeCtl{}, scriptOpts), 120, 40), snapAt(time.Second, 100))
	if strings.Contains(plain.View(), "SLO") || strings.Contains(plain.View(), "╌") {
		t.Errorf("a bound without objectives:\n%s", plain.View())
	}
}

// TestSLOJudgedLive checks levels are judged as they finish (the engine
// judges only the final results) and the best concurrency meeting them is
// on the throughput line.
func TestSLOJudgedLive(t *testing.T) {
	m := sized(New(nil, &fakeCtl{}, sloOpts), 120, 40)
	m = feed(m, script(6, true, false)...)
	if len(m.curve.levels) != 6 {
		t.Fatalf("%d levels", len(m.curve.levels))
	}
	for _, l := range m.curve.levels {
		want := l.Latency.P95 <= 1500
		if l.SLOMet == nil || *l.SLOMet != want {
			t.Errorf("c=%d: SLOMet %v, want %v", l.Concurrency, l.SLOMet, want)
		}
	}
	if v := m.View(); !strings.Contains(v, "SLO ok to c=16") {
		t.Errorf("throughput line lacks the SLO concurrency:\n%s", v)
	}
	// The status after a missed level names the miss.
	done := feed(m, engineLevel(64, 9000))
	done = feed(done, engine.LevelDone{Level: engine.LevelResult{Concurrency: 128, Source: engine.SourcePlan,
		Succeeded: 10, Requests: 10, OutputTokPerS: 9500, Latency: engine.Dist{Count: 10, P50: 1800, P95: 2400}}})
	if !strings.Contains(done.status, "SLO missed: latency p95 2400.0 ms > 1500.0 ms") {
		t.Errorf("status %q", done.status)
	}
	met := feed(m, engineLevel(64, 9000)) // p95 120 ms, no TTFT figures: met
	if !strings.HasSuffix(met.status, "SLO met") {
		t.Errorf("status %q", met.status)
	}
	// The event's own level is not modified (it may be shared).
	ev := engineLevel(2, 10)
	feed(m, ev)
	if ev.Level.SLOMet != nil {
		t.Error("judging changed the event")
	}
}

// TestSLOFinished checks the finished view: SLO and goodput columns, the
// highest concurrency meeting the objectives next to the knee, the
// verdict, and the UI's own judgement when the results carry none.
func TestSLOFinished(t *testing.T) {
	judged := feed(sized(New(nil, &fakeCtl{}, sloOpts), 120, 40), judgedScript(9, false, true, sloOpts.SLO, sloOpts.Cost)...)
	v := judged.View()
	for _, want := range []string{"SLO ok to c=16", " SLO ", "goodput", "2,987", "miss", "SLO met up to c=16",
		"at c=64: missed (latency p95 1780.0 ms > 1500.0 ms)", "SLO p95 1.50s"} {
		if !strings.Contains(v, want) {
			t.Errorf("finished view lacks %q:\n%s", want, v)
		}
	}

	// Results judged without objectives: the UI judges them, but cannot
	// know goodput.
	unjudged := feed(sized(New(nil, &fakeCtl{}, sloOpts), 120, 40), script(9, false, true)...)
	v = unjudged.View()
	if !strings.Contains(v, "SLO met up to c=16") || !strings.Contains(v, "goodput") || strings.Contains(v, "2,987") {
		t.Errorf("unjudged results:\n%s", v)
	}
	res, _ := unjudged.Results()
	for _, l := range res.Levels {
		if l.SLOMet == nil {
			t.Fatalf("c=%d not judged in the kept results", l.Concurrency)
		}
	}

	// No level meets them.
	strict := sloOpts
	strict.SLO = engine.SLO{LatencyP95Ms: 10}
	none := feed(sized(New(nil, &fakeCtl{}, strict), 120, 40), script(9, false, true)...)
	if v := none.View(); !strings.Contains(v, "no planned level met every SLO") || !strings.Contains(v, "SLO met nowhere") {
		t.Errorf("strict SLO:\n%s", v)
	}
}
