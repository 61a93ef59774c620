package ui

import (
	"fmt"
	"runtime/debug"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

// PanicError is a panic recovered while rendering. The dashboard quits
// cleanly on it (restoring the terminal) and Run returns it.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("dashboard panic: %v\n\n%s", e.Value, e.Stack)
}

// Update applies one message. It does no I/O: Controller calls are
// returned as Cmds, and the frame is rendered here and cached for View.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := m.update(msg)
	if m.err != nil {
		return m, tea.Quit
	}
	return m, cmd
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.redraw()
		return m, nil
	case tea.KeyMsg:
		return m.updateKey(msg)
	case eventMsg:
		m.apply(msg.ev)
		m.redraw()
		return m, waitForEvent(m.events)
	case closedMsg:
		m.closed = true
		m.events = nil
		if m.stopping {
			return m, tea.Quit
		}
		if !m.done {
			m.status = "the run ended without results"
			m.keys.setControl(false)
		}
		m.redraw()
		return m, nil
	}
	return m, nil
}

// updateKey maps a key to a state change and, for steering keys, to a
// Cmd calling the Controller.
func (m Model) updateKey(k tea.KeyMsg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch {
	case key.Matches(k, m.keys.Quit):
		if m.stopping || m.done || m.closed || m.ctl == nil {
			return m, tea.Quit
		}
		m.stopping = true
		m.keys.setControl(false)
		m.status = "stopping: in-flight requests are finishing (q again quits now)"
		cmd = control(m.ctl, "stop", func(c engine.Controller) { c.Stop("stopped from the dashboard") })
	case key.Matches(k, m.keys.Help):
		m.showHelp = !m.showHelp
	case key.Matches(k, m.keys.Metric):
		m.metric = m.metric.next()
	case key.Matches(k, m.keys.Theme):
		th, err := themes.Lookup(themes.Next(m.theme.Name))
		if err != nil {
			return m, nil
		}
		m.setTheme(th)
		m.status = "theme: " + th.Name
	case key.Matches(k, m.keys.Up):
		m.status = "concurrency +1: manual hold (a resumes the sweep)"
		cmd = control(m.ctl, "add+1", func(c engine.Controller) { c.AddConcurrency(1) })
	case key.Matches(k, m.keys.Down):
		m.status = "concurrency -1: manual hold (a resumes the sweep)"
		cmd = control(m.ctl, "add-1", func(c engine.Controller) { c.AddConcurrency(-1) })
	case key.Matches(k, m.keys.Double):
		m.status = "concurrency x2: manual hold (a resumes the sweep)"
		cmd = control(m.ctl, "scale2", func(c engine.Controller) { c.ScaleConcurrency(2) })
	case key.Matches(k, m.keys.Halve):
		m.status = "concurrency /2: manual hold (a resumes the sweep)"
		cmd = control(m.ctl, "scale0.5", func(c engine.Controller) { c.ScaleConcurrency(0.5) })
	case key.Matches(k, m.keys.Resume):
		m.status = "resuming the planned sweep"
		cmd = control(m.ctl, "resume", func(c engine.Controller) { c.Resume() })
	case key.Matches(k, m.keys.Pause):
		if m.snap.Paused {
			m.status = "resuming"
		} else {
			m.status = "pausing: in-flight requests finish, none are sent"
		}
		cmd = control(m.ctl, "pause", func(c engine.Controller) { c.TogglePause() })
	case key.Matches(k, m.keys.Next):
		m.status = "ending this level now"
		cmd = control(m.ctl, "next", func(c engine.Controller) { c.NextLevel() })
	default:
		return m, nil
	}
	m.redraw()
	return m, cmd
}

// apply folds one engine event into the model.
func (m *Model) apply(ev engine.Event) {
	switch e := ev.(type) {
	case engine.Snapshot:
		m.snap, m.haveSnap = e, true
		m.latency.push(e)
		m.curve.target = e.Target
	case engine.LevelStarted:
		m.latency.startLevel(e)
		m.curve.target = e.Concurrency
		if e.Source == engine.SourceManual {
			m.status = fmt.Sprintf("manual hold at c=%d", e.Concurrency)
		} else {
			m.status = fmt.Sprintf("level %d/%d started: c=%d", e.PlanIndex+1, m.planLen(), e.Concurrency)
		}
	case engine.LevelDone:
		// The engine judges SLOs only in the final results, so live the
		// level is judged here with the same objectives.
		l := judge(m.opts.SLO, e.Level)
		m.curve.addLevel(l)
		m.status = fmt.Sprintf("c=%d done: %s tok/s · p95 %s · %s errors",
			l.Concurrency, fmtRate(l.OutputTokPerS), fmtMs(l.Latency.P95), fmtPct(l.ErrorShare()))
		switch {
		case l.SLOMet == nil:
		case *l.SLOMet:
			m.status += " · SLO met"
		case len(l.SLOMisses) > 0:
			m.status += " · SLO missed: " + l.SLOMisses[0]
		default:
			m.status += " · SLO missed"
		}
	case engine.KneeFound:
		k := e.Knee
		m.knee = &k
		m.curve.setKnee(&k)
		m.status = fmt.Sprintf("knee at c=%d (%s)", k.Concurrency, k.Cause)
	case engine.ConcurrencyChanged:
		m.snap.Target = e.Change.To
		m.curve.target = e.Change.To
		m.status = fmt.Sprintf("concurrency %d → %d (%s)", e.Change.From, e.Change.To, e.Change.Source)
	case engine.Finished:
		m.finish(e.Results)
	}
}

// finish switches to the finished view; the results are authoritative for
// levels and knee.
func (m *Model) finish(res engine.Results) {
	// Objectives and prices recorded with the results stand in for
	// options that did not give them (a replay, usually).
	if m.opts.SLO.IsZero() && res.SLO != nil {
		m.setSLO(*res.SLO)
	}
	if m.opts.Cost.IsZero() && res.Cost != nil {
		m.opts.Cost = *res.Cost
	}
	if res.SLO == nil && !m.opts.SLO.IsZero() {
		// Results judged without objectives: judge them here, on a copy.
		levels := make([]engine.LevelResult, len(res.Levels))
		for i, l := range res.Levels {
			levels[i] = judge(m.opts.SLO, l)
		}
		res.Levels = levels
	}
	m.results = &res
	m.done = true
	m.curve.setLevels(res.Levels)
	m.curve.done = true
	m.knee = res.Knee
	m.curve.setKnee(res.Knee)
	m.keys.setControl(false)
	switch {
	case res.Partial && res.PartialReason != "":
		m.status = "done (partial: " + res.PartialReason + ")"
	case res.Partial:
		m.status = "done (partial)"
	default:
		m.status = "done"
	}
}

// redraw renders the frame into the cache. A panic while rendering is
// recovered into m.err so the program can quit and restore the terminal.
func (m *Model) redraw() {
	defer func() {
		if r := recover(); r != nil {
			m.err = &PanicError{Value: r, Stack: debug.Stack()}
			m.frame = fmt.Sprintf("dashboard panic: %v", r)
		}
	}()
	if m.beforeRender != nil {
		m.beforeRender()
	}
	m.frame = m.render()
}

// planLen is the number of planned levels, from the engine when it has
// said, else from the options.
func (m *Model) planLen() int {
	if m.haveSnap && m.snap.PlanLen > 0 {
		return m.snap.PlanLen
	}
	return len(m.opts.Plan.Levels)
}
