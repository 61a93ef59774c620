package ui

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
	"github.com/muesli/termenv"
)

// states are the dashboard's typical screens, built from the script.
func states() map[string]Model {
	base := New(nil, &fakeCtl{}, scriptOpts)
	running := feed(base, script(6, true, false)...)
	withHelp, _ := running.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'?'}})
	done := feed(base, script(9, false, true)...)
	rl := feed(base, script(8, true, false)...)
	slo := New(nil, &fakeCtl{}, sloOpts)
	bound := feed(running, engine.Snapshot{At: running.snap.At + time.Second, Phase: engine.PhaseMeasuring, Target: 64,
		InFlight: 64, LastError: "HTTP 503: overloaded", Errors: map[string]int64{"overloaded": 4},
		LastRetryAfter: time.Second, DispatchLagP99: 31 * time.Millisecond, CPUShare: 0.97, OpenConns: 64,
		ClientBound: true, HarnessNote: "client-bound: workers dispatch 31ms late (p99)"})
	return map[string]Model{
		"running_slo":  feed(slo, script(6, true, false)...),
		"done_slo":     feed(slo, judgedScript(9, false, true, sloOpts.SLO, sloOpts.Cost)...),
		"replay_slo":   NewReplay(*feed(slo, judgedScript(9, false, true, sloOpts.SLO, sloOpts.Cost)...).results, Options{}),
		"client_bound": bound,
		"empty":        base,
		"running":      running,
		"help":         withHelp.(Model),
		"ratelimit":    rl,
		"done":         done,
		"replay":       NewReplay(*done.results, Options{OutPath: "x.json"}),
	}
}

// TestViewFitsEverySize checks the frame never exceeds the terminal: every
// line at most width cells, at most height lines, for several sizes and
// every screen, in colour and without.
func TestViewFitsEverySize(t *testing.T) {
	sizes := [][2]int{{80, 24}, {120, 40}, {200, 50}, {100, 30}, {69, 20}, {60, 20}, {40, 12}, {30, 8}, {20, 5}, {10, 3}, {1, 1}, {250, 80}}
	for _, profile := range []termenv.Profile{termenv.Ascii, termenv.TrueColor} {
		lipgloss.SetColorProfile(profile)
		for name, m := range states() {
			for _, sz := range sizes {
				w, h := sz[0], sz[1]
				t.Run(fmt.Sprintf("%s/%dx%d/%d", name, w, h, profile), func(t *testing.T) {
					v := sized(m, w, h).View()
					lines := strings.Split(v, "\n")
					if len(lines) > h {
						t.Errorf("%d lines for height %d", len(lines), h)
					}
					for i, l := range lines {
						if cw := ansi.StringWidth(l); cw > w {
							t.Errorf("line %d is %d cells wide for width %d: %q", i, cw, w, ansi.Strip(l))
						}
					}
				})
			}
		}
	}
	lipgloss.SetColorProfile(termenv.Ascii)
}

// TestResizeRedraws checks a resize re-renders at the new size.
func TestResizeRedraws(t *testing.T) {
	m := states()["running"]
	big := sized(m, 200, 50)
	small := sized(big, 80, 24)
	if got := len(strings.Split(big.View(), "\n")); got != 50 {
		t.Errorf("200x50 frame has %d lines, want it to fill 50", got)
	}
	if got := len(strings.Split(small.View(), "\n")); got != 24 {
		t.Errorf("80x24 frame has %d lines, want 24", got)
	}
	if small.View() != sized(m, 80, 24).View() {
		t.Error("resizing down does not give the same frame as starting at that size")
	}
}

// TestCurveAxisLabelsAnyScale sweeps p95 scales and heights: right-axis
// labels vary in width (9.96 ms prints as 10.0ms), and no combination may
// break the layout or panic.
func TestCurveAxisLabelsAnyScale(t *testing.T) {
	sc := &scratch{}
	th, _ := themes.Lookup("")
	st := th.Styles()
	for p95 := 0.01; p95 < 1e6; p95 *= 1.13 {
		for _, h := range []int{5, 7, 11, 17, 24, 40} {
			p := curvePane{levels: []engine.LevelResult{
				{Concurrency: 1, Succeeded: 1, OutputTokPerS: 9.96, Latency: engine.Dist{P95: p95 / 3}},
				{Concurrency: 8, Succeeded: 1, OutputTokPerS: 99.6, Latency: engine.Dist{P95: p95}},
			}}
			p.setSize(50, h)
			lines := p.view(sc, th, st)
			if len(lines) != h {
				t.Fatalf("p95 %g h %d: %d lines", p95, h, len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) != 50 {
					t.Fatalf("p95 %g h %d: line %q is %d wide", p95, h, l, ansi.StringWidth(l))
				}
			}
		}
	}
}

// TestRandomFiguresNeverBreakTheFrame drives the model with random (seeded)
// figures over many magnitudes at random sizes: no render may panic or
// overflow the terminal.
func TestRandomFiguresNeverBreakTheFrame(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mag := func() float64 { return math.Pow(10, rng.Float64()*9-3) }
	opts := sloOpts
	opts.SLO.TTFTP99Ms, opts.SLO.ITLP95Ms = 0.7, 31
	m := New(nil, &fakeCtl{}, opts)
	at := time.Duration(0)
	for i := range 400 {
		if i%40 == 0 {
			m = sized(m, 20+rng.IntN(200), 5+rng.IntN(60))
			c := 1 << rng.IntN(12)
			m = feed(m, engine.LevelStarted{Index: i / 40, Concurrency: c, PlanIndex: i / 40, At: at})
		}
		at += time.Duration(rng.IntN(2000)) * time.Millisecond
		d := engine.Dist{Count: int64(rng.IntN(3)), P50: mag(), P95: mag()}
		m = feed(m, engine.Snapshot{At: at, Phase: engine.PhaseMeasuring, Target: rng.IntN(5000), InFlight: rng.IntN(5000),
			Latency: d, TTFT: d, ITL: d, OutputTokPerS: mag(), RequestsPerS: mag(),
			Succeeded: int64(i * 10), Failed: int64(rng.IntN(i + 1)), Errors: map[string]int64{"server_error": int64(i)},
			ErrorShare: rng.Float64(), DispatchLagP99: time.Duration(mag() * float64(time.Millisecond)), CPUShare: rng.Float64(),
			OpenConns: int64(rng.IntN(100000)) - 1, ClientBound: rng.IntN(3) == 0, HarnessNote: "client-bound: workers dispatch late"})
		if i%40 == 39 {
			m = feed(m, engine.LevelDone{Level: engine.LevelResult{Index: i / 40, Concurrency: 1 << rng.IntN(12),
				Succeeded: 5, Requests: 6, Failed: 1, OutputTokPerS: mag(), RequestsPerS: mag(),
				OutputTokens: int64(rng.IntN(1e6)), InputTokens: int64(rng.IntN(1e6)), DurationS: mag(),
				Latency: engine.Dist{P50: mag(), P95: mag(), P99: mag()}}})
		}
		if m.err != nil {
			t.Fatalf("step %d: %v", i, m.err)
		}
		lines := strings.Split(m.View(), "\n")
		if len(lines) > m.height {
			t.Fatalf("step %d: %d lines for %d", i, len(lines), m.height)
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > m.width {
				t.Fatalf("step %d: line wider than %d: %q", i, m.width, l)
			}
		}
	}
}
