package ui

import (
	"strconv"
	"strings"
	"time"
)

// healthView is one line on the load generator itself: p99 dispatch lag,
// the process's CPU share and open connections, led by a warning when the
// engine judges the harness to be the bottleneck. A generator that
// saturates first reports its own limits as the server's, so this line is
// what makes a knee trustworthy.
func (m *Model) healthView() string {
	st := m.styles
	s := m.snap
	sep := st.Subtle.Render(" · ")
	kv := func(k, v string) string { return st.Subtle.Render(k+" ") + st.Value.Render(v) }
	var parts []string
	if s.ClientBound {
		note := oneLine(s.HarnessNote)
		if !strings.HasPrefix(note, "client-bound") {
			note = strings.TrimSpace("client-bound: " + note)
			note = strings.TrimSuffix(note, ":")
		}
		parts = append(parts, st.Warn.Render("⚠ "+note))
	}
	parts = append(parts,
		kv("dispatch lag p99", fmtMs(float64(s.DispatchLagP99)/float64(time.Millisecond))),
		kv("CPU", fmtPct(max(s.CPUShare, 0))))
	if s.OpenConns >= 0 {
		parts = append(parts, kv("conns", strconv.FormatInt(s.OpenConns, 10)))
	}
	return st.PaneTitle.Render("Harness    ") + strings.Join(parts, sep)
}
