package ui

// Layout constants: below these sizes a pane is left out rather than
// drawn unreadably.
const (
	minChartRows   = 6  // a chart pane needs a title, a few rows and an axis
	sideBySideCols = 70 // narrower than this, the charts stack
)

// render composes the whole frame at the current size: header, charts,
// live figures (or the summary once the run is over) and the footer.
func (m *Model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	header := m.headerView(w)
	footer := m.footerView(w)
	if len(header)+len(footer) >= h {
		return frame(append(header, footer...), w, h)
	}
	bodyH := h - len(header) - len(footer)
	lines := append(header, m.bodyView(w, bodyH)...)
	return frame(append(lines, footer...), w, h)
}

// bodyView fills h lines: the charts take what the figures below leave.
func (m *Model) bodyView(w, h int) []string {
	var info []string
	if m.done {
		room := h
		if h >= 2*minChartRows {
			room = h - max(minChartRows+2, h/3)
		}
		info = m.summaryView(w, room)
	} else {
		room := min(max(h/4, 2), 7)
		if h < minChartRows+2 {
			room = h
		}
		info = append([]string{m.throughputView(w)}, m.countersView(w, room-1)...)
		if len(info) > room {
			info = info[:room]
		}
	}
	chartsH := h - len(info)
	if chartsH < minChartRows {
		return box(info, w, h)
	}
	return append(m.chartsView(w, chartsH), info...)
}

// chartsView puts the latency chart and the sweep curve side by side, or
// stacks them on a narrow terminal.
func (m *Model) chartsView(w, h int) []string {
	if w >= sideBySideCols {
		lw := (w - 1) * 11 / 20
		rw := w - 1 - lw
		m.latency.setSize(lw, h)
		m.curve.setSize(rw, h)
		return beside(m.latency.view(m.scratch, m.metric, m.snap.At, m.styles), m.curve.view(m.scratch, m.theme, m.styles), " ")
	}
	if h < 2*minChartRows {
		m.curve.setSize(w, h)
		return m.curve.view(m.scratch, m.theme, m.styles)
	}
	top := h / 2
	m.latency.setSize(w, top)
	m.curve.setSize(w, h-top)
	return append(m.latency.view(m.scratch, m.metric, m.snap.At, m.styles), m.curve.view(m.scratch, m.theme, m.styles)...)
}
