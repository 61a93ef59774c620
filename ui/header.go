package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/kneepoint/kneepoint/engine"
)

// headerView is two lines: what is measured and the state badge, then
// where the sweep is (level, concurrency, time).
func (m *Model) headerView(w int) []string {
	st := m.styles
	t := m.opts.Target
	var target []string
	for _, s := range []string{t.Provider, t.Model, safeURL(t.BaseURL), t.Profile} {
		if s != "" {
			target = append(target, s)
		}
	}
	left := st.Title.Render("kneepoint")
	if len(target) > 0 {
		left += "  " + st.Text.Render(strings.Join(target, " · "))
	}
	label, badge := m.state()
	line1 := spread(left, badge.Render(label), w)
	return []string{line1, ellipsize(m.progressLine(), w)}
}

// state names what the run is doing and how to draw it.
func (m *Model) state() (string, lipgloss.Style) {
	st := m.styles
	switch {
	case m.done:
		return "DONE", st.BadgeDone
	case m.stopping || m.snap.Phase == engine.PhaseStopping:
		return "STOPPING", st.BadgeStop
	case m.closed:
		return "ENDED", st.BadgeStop
	case !m.haveSnap:
		return "STARTING", st.BadgeWarm
	case m.snap.Paused || m.snap.Phase == engine.PhasePaused:
		return "PAUSED", st.BadgeHold
	case m.snap.Phase == engine.PhaseManual:
		return "MANUAL HOLD", st.BadgeHold
	case m.snap.Phase == engine.PhaseWarmup:
		return "WARMING UP", st.BadgeWarm
	case m.snap.Phase == engine.PhaseDone:
		return "DONE", st.BadgeDone
	}
	return "MEASURING", st.BadgeRun
}

// progressLine is the second header line.
func (m *Model) progressLine() string {
	st := m.styles
	sep := st.Subtle.Render(" · ")
	kv := func(k, v string) string { return st.Subtle.Render(k+" ") + st.Value.Render(v) }
	var parts []string
	if m.done && m.results != nil {
		r := m.results
		parts = append(parts, kv("levels", strconv.Itoa(len(r.Levels))),
			kv("took", fmtClock(seconds(r.DurationS))))
		if r.Knee != nil {
			parts = append(parts, st.Knee.Render("knee c="+strconv.Itoa(r.Knee.Concurrency)))
		} else {
			parts = append(parts, st.Subtle.Render("no knee"))
		}
		if !m.opts.SLO.IsZero() {
			if c := m.sloMaxConc(); c > 0 {
				parts = append(parts, st.SLO.Render("SLO ok to c="+strconv.Itoa(c)))
			} else {
				parts = append(parts, st.Warn.Render("SLO met nowhere"))
			}
		}
		if m.opts.OutPath != "" {
			parts = append(parts, kv("results →", m.opts.OutPath))
		}
		return strings.Join(parts, sep)
	}
	s := m.snap
	n := m.planLen()
	switch {
	case !m.haveSnap:
		if n > 0 {
			parts = append(parts, kv("plan", strconv.Itoa(n)+" levels"))
		}
	case s.Source == engine.SourceManual || s.Phase == engine.PhaseManual:
		parts = append(parts, st.Knee.Render("manual hold"))
		if n > 0 && s.PlanIndex < n {
			parts = append(parts, kv("resumes at level", strconv.Itoa(s.PlanIndex+1)+"/"+strconv.Itoa(n)))
		}
	default:
		k := s.PlanIndex + 1
		if n > 0 {
			k = min(k, n)
		}
		parts = append(parts, kv("level", strconv.Itoa(k)+"/"+strconv.Itoa(max(n, k))))
	}
	if m.haveSnap {
		inflight := strconv.Itoa(s.InFlight)
		if s.SegMeanInFlight > 0 {
			inflight += " (mean " + strconv.FormatFloat(s.SegMeanInFlight, 'f', 1, 64) + ")"
		}
		parts = append(parts, kv("target c", strconv.Itoa(s.Target)), kv("in flight", inflight))
		// Warnings come before the clock so a narrow header keeps them.
		if s.ClientBound {
			parts = append(parts, st.Warn.Render("client-bound"))
		}
		if s.BackingOff > 0 {
			parts = append(parts, st.Warn.Render(strconv.Itoa(s.BackingOff)+" backing off"))
		}
		parts = append(parts, kv("elapsed", fmtClock(s.At)))
		if s.Remaining > 0 {
			parts = append(parts, kv("left", "~"+fmtClock(s.Remaining)))
		}
		switch s.Phase {
		case engine.PhaseWarmup:
			parts = append(parts, kv("warmup", fmtSeconds(s.PhaseLeft)+" left"))
		case engine.PhaseMeasuring:
			if s.PhaseLeft > 0 {
				parts = append(parts, kv("window", fmtSeconds(s.PhaseLeft)+" left"))
			}
		}
	}
	if wl := m.opts.Workload; wl.PromptTokens > 0 || wl.MaxTokens > 0 {
		parts = append(parts, st.Subtle.Render("prompt "+strconv.Itoa(wl.PromptTokens)+" / max "+strconv.Itoa(wl.MaxTokens)+" tok"))
	}
	return strings.Join(parts, sep)
}
