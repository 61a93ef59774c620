package ui

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

func keyRunes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// run executes a Cmd the way Bubble Tea would and returns its message.
func run(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	return cmd()
}

// midRun is the scripted sweep's model mid-run, built once: Update is
// pure, so tests can start from the same value.
var midRun = sync.OnceValue(func() Model {
	return feed(sized(New(nil, &fakeCtl{}, scriptOpts), 120, 40), script(6, true, false)...)
})

// running is a model in the middle of the scripted sweep with its own fake
// Controller.
func running(t *testing.T) (Model, *fakeCtl) {
	t.Helper()
	ctl := &fakeCtl{}
	m := midRun()
	m.ctl = ctl
	return m, ctl
}

func TestSteeringKeysCallTheController(t *testing.T) {
	tests := []struct {
		name string
		key  tea.KeyMsg
		want string
	}{
		{"up", tea.KeyMsg{Type: tea.KeyUp}, "AddConcurrency(1)"},
		{"plus", keyRunes("+"), "AddConcurrency(1)"},
		{"equals", keyRunes("="), "AddConcurrency(1)"},
		{"down", tea.KeyMsg{Type: tea.KeyDown}, "AddConcurrency(-1)"},
		{"minus", keyRunes("-"), "AddConcurrency(-1)"},
		{"double", keyRunes("]"), "ScaleConcurrency(2)"},
		{"halve", keyRunes("["), "ScaleConcurrency(0.5)"},
		{"resume", keyRunes("a"), "Resume()"},
		{"pause", tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}, "TogglePause()"},
		{"next", keyRunes("n"), "NextLevel()"},
		{"quit", keyRunes("q"), "Stop"},
		{"ctrl+c", tea.KeyMsg{Type: tea.KeyCtrlC}, "Stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ctl := running(t)
			before := m.View()
			next, cmd := m.Update(tt.key)
			if got := ctl.Calls(); len(got) != 0 {
				t.Fatalf("Update called the Controller itself: %v", got)
			}
			if m.View() != before {
				t.Error("Update changed the model it was given")
			}
			if cmd == nil {
				t.Fatal("no Cmd returned")
			}
			msg := run(cmd)
			if got := ctl.Calls(); !reflect.DeepEqual(got, []string{tt.want}) {
				t.Errorf("Cmd called %v, want [%s]", got, tt.want)
			}
			if _, ok := msg.(controlMsg); !ok {
				t.Errorf("Cmd returned %T, want controlMsg", msg)
			}
			nm := next.(Model)
			if nm.status == m.status {
				t.Error("status line did not acknowledge the key")
			}
		})
	}
}

func TestQuitStopsThenQuits(t *testing.T) {
	m, ctl := running(t)
	next, cmd := m.Update(keyRunes("q"))
	m = next.(Model)
	run(cmd)
	if !m.stopping {
		t.Fatal("first q should put the dashboard in stopping state")
	}
	if lbl, _ := m.state(); lbl != "STOPPING" {
		t.Errorf("badge %q, want STOPPING", lbl)
	}
	// Steering keys do nothing while stopping.
	if _, cmd := m.Update(keyRunes("+")); cmd != nil {
		t.Error("+ while stopping returned a Cmd")
	}
	// The channel closing after Finished quits.
	m = feed(m, script(6, false, true)[len(script(6, false, false)):]...)
	next, cmd = m.Update(closedMsg{})
	if _, ok := run(cmd).(tea.QuitMsg); !ok {
		t.Fatal("closing the channel after a stop request should quit")
	}
	if _, ok := next.(Model).Results(); !ok {
		t.Error("results lost")
	}
	if got := ctl.Calls(); !reflect.DeepEqual(got, []string{"Stop"}) {
		t.Errorf("calls %v, want one Stop", got)
	}

	// A second q quits at once.
	m, ctl = running(t)
	next, _ = m.Update(keyRunes("q"))
	_, cmd = next.(Model).Update(tea.KeyMsg{Type: tea.KeyCtrlC})
	if _, ok := run(cmd).(tea.QuitMsg); !ok {
		t.Fatal("second q should quit at once")
	}
	if len(ctl.Calls()) != 0 {
		t.Errorf("second q called the Controller: %v", ctl.Calls())
	}
}

func TestViewKeys(t *testing.T) {
	m, ctl := running(t)

	next, cmd := m.Update(keyRunes("m"))
	if cmd != nil || next.(Model).metric != metricTTFT || m.metric != metricE2E {
		t.Errorf("m: metric %v (was %v), cmd %v", next.(Model).metric, m.metric, cmd)
	}
	if !strings.Contains(next.(Model).View(), "Time to first token") {
		t.Error("m did not redraw the latency pane for TTFT")
	}
	for range 2 {
		next, _ = next.Update(keyRunes("m"))
	}
	if next.(Model).metric != metricE2E {
		t.Error("m does not cycle back to end-to-end latency")
	}

	next, cmd = m.Update(keyRunes("t"))
	if cmd != nil || next.(Model).theme.Name != themes.Next(themes.Default) {
		t.Errorf("t: theme %q, cmd %v", next.(Model).theme.Name, cmd)
	}

	next, cmd = m.Update(keyRunes("?"))
	if cmd != nil || !next.(Model).showHelp {
		t.Error("? did not open the full help")
	}
	if !strings.Contains(next.(Model).View(), "auto sweep") {
		t.Error("full help does not list the resume key")
	}
	next, _ = next.Update(keyRunes("?"))
	if next.(Model).showHelp {
		t.Error("? did not close the full help")
	}

	next, cmd = m.Update(keyRunes("x"))
	if cmd != nil || next.(Model).View() != m.View() {
		t.Error("an unbound key changed something")
	}
	if len(ctl.Calls()) != 0 {
		t.Errorf("view keys called the Controller: %v", ctl.Calls())
	}
}

func TestEvents(t *testing.T) {
	ch := make(chan engine.Event)
	m := New(ch, &fakeCtl{}, scriptOpts)
	if m.Init() == nil {
		t.Fatal("Init does not listen to the engine")
	}
	step := func(ev engine.Event) Model {
		t.Helper()
		next, cmd := m.Update(eventMsg{ev})
		if cmd == nil {
			t.Fatalf("%T: the listener was not re-armed", ev)
		}
		return next.(Model)
	}

	m = step(engine.LevelStarted{Index: 0, Concurrency: 4, Source: engine.SourcePlan, PlanIndex: 2})
	if len(m.latency.bounds) != 1 || m.curve.target != 4 || !strings.Contains(m.status, "level 3/10") {
		t.Errorf("LevelStarted: bounds %v target %d status %q", m.latency.bounds, m.curve.target, m.status)
	}

	s := engine.Snapshot{At: time.Second, Phase: engine.PhaseMeasuring, PlanIndex: 2, PlanLen: 10, Target: 4, InFlight: 3,
		Latency: engine.Dist{Count: 9, P50: 800, P95: 1200}, OutputTokPerS: 500, Succeeded: 9}
	m = step(s)
	if !m.haveSnap || m.snap.Target != 4 || len(m.latency.samples) != 1 {
		t.Errorf("Snapshot not recorded: %+v", m.snap)
	}
	if lbl, _ := m.state(); lbl != "MEASURING" {
		t.Errorf("badge %q", lbl)
	}
	if !strings.Contains(m.View(), "level 3/10") || !strings.Contains(m.View(), "in flight 3") {
		t.Errorf("header does not show the plan position:\n%s", m.View())
	}

	m = step(engine.ConcurrencyChanged{Change: engine.Change{From: 4, To: 5, Source: engine.SourceManual}})
	if m.snap.Target != 5 || !strings.Contains(m.status, "4 → 5") {
		t.Errorf("ConcurrencyChanged: target %d status %q", m.snap.Target, m.status)
	}

	l := engine.LevelResult{Concurrency: 4, Source: engine.SourcePlan, Succeeded: 50, Requests: 50, OutputTokPerS: 480,
		Latency: engine.Dist{P95: 1250}}
	m = step(engine.LevelDone{Level: l})
	if len(m.curve.levels) != 1 || !strings.Contains(m.status, "480") {
		t.Errorf("LevelDone: levels %d status %q", len(m.curve.levels), m.status)
	}

	m = step(engine.KneeFound{Knee: engine.Knee{Concurrency: 4, Cause: "capacity"}})
	if m.knee == nil || m.curve.knee == nil || !strings.Contains(m.View(), "knee c=4") {
		t.Error("KneeFound not shown")
	}

	for _, ph := range []struct {
		s    engine.Snapshot
		want string
	}{
		{engine.Snapshot{Phase: engine.PhaseWarmup}, "WARMING UP"},
		{engine.Snapshot{Phase: engine.PhaseManual, Source: engine.SourceManual}, "MANUAL HOLD"},
		{engine.Snapshot{Phase: engine.PhasePaused, Paused: true}, "PAUSED"},
		{engine.Snapshot{Phase: engine.PhaseStopping}, "STOPPING"},
	} {
		pm := step(ph.s)
		if lbl, _ := pm.state(); lbl != ph.want {
			t.Errorf("phase %q: badge %q, want %q", ph.s.Phase, lbl, ph.want)
		}
	}

	res := engine.Results{Levels: []engine.LevelResult{l}, Knee: &engine.Knee{Concurrency: 4, Level: 0}}
	m = step(engine.Finished{Results: res})
	if got, ok := m.Results(); !ok || len(got.Levels) != 1 {
		t.Fatal("Finished: results not kept")
	}
	if lbl, _ := m.state(); lbl != "DONE" || !strings.Contains(m.View(), "◀ knee") {
		t.Errorf("finished view: badge %q\n%s", lbl, m.View())
	}
	if _, cmd := m.Update(keyRunes("+")); cmd != nil {
		t.Error("steering keys still work after Finished")
	}

	next, cmd := m.Update(closedMsg{})
	if cmd != nil {
		t.Error("the channel closing on its own must not quit: the summary stays")
	}
	if _, cmd = next.Update(keyRunes("q")); run(cmd) != tea.Quit() {
		t.Error("q after the run should quit at once")
	}
}

func TestClosedWithoutFinished(t *testing.T) {
	m, _ := running(t)
	next, cmd := m.Update(closedMsg{})
	if cmd != nil {
		t.Error("closing without a stop request should not quit")
	}
	nm := next.(Model)
	if lbl, _ := nm.state(); lbl != "ENDED" {
		t.Errorf("badge %q, want ENDED", lbl)
	}
}

func TestReplay(t *testing.T) {
	done := feed(New(nil, nil, scriptOpts), script(9, false, true)...)
	m := sized(NewReplay(*done.results, Options{}), 120, 40)
	v := m.View()
	for _, want := range []string{"DONE", "◀ knee", "knee c=64", "llama3-8b", "c256"} {
		if !strings.Contains(v, want) {
			t.Errorf("replay view lacks %q", want)
		}
	}
	if m.Init() != nil {
		t.Error("a replay has nothing to listen to")
	}
	for _, k := range []tea.KeyMsg{keyRunes("+"), keyRunes("n"), keyRunes("a"), {Type: tea.KeySpace, Runes: []rune{' '}}} {
		if _, cmd := m.Update(k); cmd != nil {
			t.Errorf("%q returned a Cmd in a replay", k.String())
		}
	}
	if _, cmd := m.Update(keyRunes("q")); run(cmd) != tea.Quit() {
		t.Error("q should quit a replay at once")
	}
}

func TestErrorRateWarns(t *testing.T) {
	m := sized(New(nil, &fakeCtl{}, Options{ErrorWarnShare: 0.05}), 120, 40)
	// The "now" rate is the engine's live-window share, not a difference
	// of whole-run counters (which say 25% here).
	m = feed(m, engine.Snapshot{At: 6 * time.Second, Succeeded: 150, Failed: 50, ErrorShare: 0.5,
		Latency: engine.Dist{Count: 50, P50: 100, P95: 200}, Errors: map[string]int64{"server_error": 50}})
	if !strings.Contains(m.View(), "50% now, 25% run") || !strings.Contains(m.View(), "server_error 50") {
		t.Errorf("counters do not show the error rate and class:\n%s", m.View())
	}
	// Everything failing leaves no latency but a share of 1.
	m = feed(m, engine.Snapshot{At: 7 * time.Second, Succeeded: 150, Failed: 60, ErrorShare: 1})
	if !strings.Contains(m.View(), "100% now") {
		t.Errorf("all failures in the window are not shown as 100%% now:\n%s", m.View())
	}
	// No completions in the window: the run's share stands alone.
	m = feed(m, engine.Snapshot{At: 8 * time.Second, Succeeded: 150, Failed: 60})
	if v := m.View(); strings.Contains(v, " now") || !strings.Contains(v, "errors 29%") {
		t.Errorf("an empty window should show the run's share only:\n%s", v)
	}
}

func TestNoColorStaysMonoAcrossThemes(t *testing.T) {
	m := New(nil, &fakeCtl{}, Options{NoColor: true, Theme: "okabe-ito"})
	if !m.theme.Mono || m.theme.Name != "okabe-ito" {
		t.Fatalf("theme %+v, want mono okabe-ito", m.theme)
	}
	for range themes.Names() {
		next, _ := m.Update(keyRunes("t"))
		m = next.(Model)
		if !m.theme.Mono {
			t.Fatalf("t switched to a colour theme (%s) under NO_COLOR", m.theme.Name)
		}
	}
}

func TestUnknownThemeFallsBack(t *testing.T) {
	m := New(nil, nil, Options{Theme: "solarized"})
	if m.theme.Name != themes.Default || !strings.Contains(m.status, "unknown theme") {
		t.Errorf("theme %q, status %q", m.theme.Name, m.status)
	}
}
