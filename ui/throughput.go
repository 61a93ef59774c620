package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/charmbracelet/x/ansi"
	"github.com/kneepoint/kneepoint/themes"
)

// maxBarCells keeps the bar readable on a wide screen: past this the eye
// cannot compare lengths anyway.
const maxBarCells = 72

// throughputView is one line: the live output tok/s as a bar against the
// best finished level so far, with req/s.
func (m *Model) throughputView(w int) string {
	st := m.styles
	cur := m.snap.OutputTokPerS
	best, bestC := 0.0, 0
	for _, l := range m.curve.levels {
		if l.OutputTokPerS > best {
			best, bestC = l.OutputTokPerS, l.Concurrency
		}
	}
	label := st.PaneTitle.Render("Throughput ")
	text := " " + st.Value.Render(fmtRate(cur)) + st.Subtle.Render(" tok/s · ") +
		st.Value.Render(fmtRate(m.snap.RequestsPerS)) + st.Subtle.Render(" req/s")
	if bestC > 0 {
		text += st.Subtle.Render(" · best ") + st.Good.Render(fmtRate(best)) + st.Subtle.Render(" @ c="+strconv.Itoa(bestC))
	}
	barW := min(w-ansi.StringWidth(label)-ansi.StringWidth(text), maxBarCells)
	if barW < 8 {
		return ellipsize(label+text, w)
	}
	return label + bar(cur, math.Max(cur, best), barW, st) + text
}

// bar draws v out of top in w cells with eighth-block precision.
func bar(v, top float64, w int, st themes.Styles) string {
	if !finite(v) || !finite(top) || top <= 0 || v <= 0 {
		return st.BarEmpty.Render(strings.Repeat("░", w))
	}
	cells := math.Min(v/top, 1) * float64(w)
	full := int(cells)
	frac := cells - float64(full)
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	empty := w - full
	if full < w && frac >= 1.0/8 {
		b.WriteRune(runes.LeftBlockElementFromFloat64(frac))
		empty--
	}
	return st.BarFill.Render(b.String()) + st.BarEmpty.Render(strings.Repeat("░", max(empty, 0)))
}
