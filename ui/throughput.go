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
// best finished level so far, with req/s, the best level, the highest
// concurrency meeting the SLOs so far and, with an hourly price, what a
// million output tokens cost at the current rate. On a narrow terminal the
// extras give way (last listed first) before the bar does.
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
	sep := st.Subtle.Render(" · ")
	head := " " + st.Value.Render(fmtRate(cur)) + st.Subtle.Render(" tok/s")
	// extras in order of display, with the rank at which each gives way
	// (highest first).
	type extra struct {
		text string
		rank int
	}
	extras := []extra{{st.Value.Render(fmtRate(m.snap.RequestsPerS)) + st.Subtle.Render(" req/s"), 4}}
	if bestC > 0 {
		extras = append(extras, extra{st.Subtle.Render("best ") + st.Good.Render(fmtRate(best)) + st.Subtle.Render(" @ c="+strconv.Itoa(bestC)), 3})
	}
	if !m.opts.SLO.IsZero() && len(m.curve.levels) > 0 {
		txt := "SLO met nowhere yet"
		if c := sloMax(m.curve.levels); c > 0 {
			txt = "SLO ok to c=" + strconv.Itoa(c)
		}
		extras = append(extras, extra{st.SLO.Render(txt), 1})
	}
	if v, ok := liveCostPerMOut(m.opts.Cost, cur); ok {
		extras = append(extras, extra{st.Value.Render(currencySymbol(m.opts.Cost.Currency)+fmtMoney(v)) + st.Subtle.Render("/M out"), 2})
	}
	compose := func(upTo int) string {
		text := head
		for _, e := range extras {
			if e.rank <= upTo {
				text += sep + e.text
			}
		}
		return text
	}
	for rank := 4; rank >= 0; rank-- {
		text := compose(rank)
		barW := min(w-ansi.StringWidth(label)-ansi.StringWidth(text), maxBarCells)
		if barW >= 8 {
			return label + bar(cur, math.Max(cur, best), barW, st) + text
		}
	}
	return ellipsize(label+compose(4), w)
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
