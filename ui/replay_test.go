package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

// recorded is a judged and priced results file, as the engine writes it.
func recorded(t *testing.T) engine.Results {
	t.Helper()
	evs := judgedScript(9, false, true, sloOpts.SLO, sloOpts.Cost)
	return evs[len(evs)-1].(engine.Finished).Results
}

// step applies one message through Update and checks the frame fits.
func step(t *testing.T, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	next, cmd := m.Update(msg)
	nm := next.(Model)
	if nm.err != nil {
		t.Fatalf("%v: %v", msg, nm.err)
	}
	lines := strings.Split(nm.View(), "\n")
	if len(lines) > nm.height {
		t.Fatalf("%v: %d lines for height %d", msg, len(lines), nm.height)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > nm.width {
			t.Fatalf("%v: line %d is %d cells for width %d", msg, i, ansi.StringWidth(l), nm.width)
		}
	}
	return nm, cmd
}

// TestReplayThroughUpdate drives a replay of a judged, priced run the way
// Bubble Tea would: it shows the recorded curve, knee, table, SLO and cost
// figures from the results alone (no options), and m, t, ?, resize and q
// behave as in the live dashboard without ever steering anything.
func TestReplayThroughUpdate(t *testing.T) {
	res := recorded(t)
	m := NewReplay(res, Options{})
	if m.Init() != nil {
		t.Fatal("a replay has nothing to listen to")
	}
	m, _ = step(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	v := m.View()
	for _, want := range []string{
		"DONE", "llama3-8b", "Sweep", "knee c=64", "◀ knee", "c256", // curve, knee, table, latency steps
		"SLO ok to c=16", "SLO met up to c=16", "at c=64: missed", "goodput", "2,987", " miss ", // SLO
		"SLO p95 1.50s", "╌╌╌", // the bound on both charts
		"$/Mout", "4.74", // cost per million output tokens at c=1: $3.50/h over 205 tok/s
	} {
		if !strings.Contains(v, want) {
			t.Errorf("replay lacks %q:\n%s", want, v)
		}
	}
	if got, ok := m.Results(); !ok || len(got.Levels) != 9 {
		t.Fatal("replay does not hold its results")
	}

	// m cycles the metric: TTFT has a p95 bound of 500 ms.
	m, cmd := step(t, m, keyRunes("m"))
	if cmd != nil || !strings.Contains(m.View(), "Time to first token") || !strings.Contains(m.View(), "SLO p95 500ms") {
		t.Errorf("m in a replay:\n%s", m.View())
	}
	m, _ = step(t, m, keyRunes("m"))
	m, _ = step(t, m, keyRunes("m"))
	if m.metric != metricE2E {
		t.Error("m does not cycle back")
	}

	// t switches theme.
	m, cmd = step(t, m, keyRunes("t"))
	if cmd != nil || m.theme.Name != themes.Next(themes.Default) {
		t.Errorf("t: theme %q", m.theme.Name)
	}

	// ? opens and closes the help; steering keys are not offered.
	m, _ = step(t, m, keyRunes("?"))
	if !m.showHelp || strings.Contains(m.View(), "auto sweep") || !strings.Contains(m.View(), "metric") {
		t.Errorf("? in a replay:\n%s", m.View())
	}
	m, _ = step(t, m, keyRunes("?"))
	if m.showHelp {
		t.Error("? did not close the help")
	}

	// Steering keys do nothing.
	for _, k := range []tea.KeyMsg{keyRunes("+"), keyRunes("]"), keyRunes("n"), keyRunes("a"), {Type: tea.KeySpace, Runes: []rune{' '}}} {
		if _, cmd := step(t, m, k); cmd != nil {
			t.Errorf("%q returned a Cmd in a replay", k.String())
		}
	}

	// Resizing keeps the essentials at 80x24 and fills 200x50.
	small, _ := step(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, want := range []string{"knee c=64", "SLO ok to c=16", "SLO met up to c=16", "SLO"} {
		if !strings.Contains(small.View(), want) {
			t.Errorf("80x24 replay lacks %q:\n%s", want, small.View())
		}
	}
	big, _ := step(t, small, tea.WindowSizeMsg{Width: 200, Height: 50})
	if n := len(strings.Split(big.View(), "\n")); n != 50 {
		t.Errorf("200x50 replay has %d lines", n)
	}
	for _, want := range []string{"$/req", "good/s"} {
		if !strings.Contains(big.View(), want) {
			t.Errorf("200x50 replay lacks %q:\n%s", want, big.View())
		}
	}

	// q quits at once.
	if _, cmd := step(t, big, keyRunes("q")); run(cmd) != tea.Quit() {
		t.Error("q should quit a replay at once")
	}
}

// TestReplayOptionsWin checks objectives and prices given as options
// replace the recorded ones (e.g. judging an old run against a new SLO).
func TestReplayOptionsWin(t *testing.T) {
	res := recorded(t)
	res.SLO, res.SLOVerdict, res.SLOMaxConcurrency = nil, nil, 0
	for i := range res.Levels {
		res.Levels[i].SLOMet, res.Levels[i].SLOMisses = nil, nil
	}
	m := sized(NewReplay(res, Options{SLO: engine.SLO{LatencyP95Ms: 3000}}), 120, 40)
	if v := m.View(); !strings.Contains(v, "SLO met up to c=128") || !strings.Contains(v, "SLO p95 3.00s") {
		t.Errorf("replay ignores the SLO option:\n%s", v)
	}
	// A replay without any objectives shows none.
	res.Cost = nil
	for i := range res.Levels {
		res.Levels[i].CostPerRequest, res.Levels[i].CostPerMOutput = 0, 0
	}
	plain := sized(NewReplay(res, Options{}), 120, 40)
	if v := plain.View(); strings.Contains(v, "SLO") || strings.Contains(v, "/Mout") {
		t.Errorf("replay without objectives or prices:\n%s", v)
	}
}
