package ui

import (
	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/charmbracelet/lipgloss"
	"github.com/kneepoint/kneepoint/engine"
)

// sloRune draws objective bounds: dashed, so the line reads as a limit and
// not as data even without colour.
const sloRune = '╌'

// sloBound is the objective on the plotted metric: the p95 bound when set,
// since p95 is the tail line drawn, else the p99 bound. ok is false when
// the metric has no bound.
func sloBound(s engine.SLO, m metric) (ms float64, label string, ok bool) {
	p95, p99 := s.LatencyP95Ms, s.LatencyP99Ms
	switch m {
	case metricTTFT:
		p95, p99 = s.TTFTP95Ms, s.TTFTP99Ms
	case metricITL:
		p95, p99 = s.ITLP95Ms, s.ITLP99Ms
	}
	switch {
	case p95 > 0 && finite(p95):
		return p95, "SLO p95 " + fmtMs(p95), true
	case p99 > 0 && finite(p99):
		return p99, "SLO p99 " + fmtMs(p99), true
	}
	return 0, "", false
}

// hline draws a dashed horizontal bound on row y from column x0 to x1
// (inclusive) over cells that are still empty.
func hline(cv *canvas.Model, x0, x1, y int, s lipgloss.Style) {
	if y < 0 || y >= cv.Height() {
		return
	}
	for x := max(x0, 0); x <= x1 && x < cv.Width(); x++ {
		pt := canvas.Point{X: x, Y: y}
		if cv.Cell(pt).Rune == runes.Null {
			cv.SetCell(pt, canvas.NewCellWithStyle(sloRune, s))
		}
	}
}

// boundLabel writes label next to the bound on row y, between columns x0
// and x1: at the right end of the line, else just above or below it, else
// at its left end, wherever it covers nothing but the line itself. It
// reports whether the label found room.
func boundLabel(cv *canvas.Model, x0, x1, y, maxY int, label string, s lipgloss.Style) bool {
	n := len([]rune(label))
	if x1-x0+1 < n+2 {
		return false
	}
	right, left := x1-n, x0+1
	for _, at := range []canvas.Point{{X: right, Y: y}, {X: right, Y: y - 1}, {X: right, Y: y + 1}, {X: left, Y: y}, {X: left, Y: y - 1}, {X: left, Y: y + 1}} {
		if at.Y < 0 || at.Y > maxY || !onlyLine(cv, at, n) {
			continue
		}
		cv.SetStringWithStyle(at, label, s)
		return true
	}
	return false
}

// onlyLine reports whether the n cells from at hold nothing but blanks or
// the bound's own dashes.
func onlyLine(cv *canvas.Model, at canvas.Point, n int) bool {
	for i := range n {
		r := cv.Cell(canvas.Point{X: at.X + i, Y: at.Y}).Rune
		if r != runes.Null && r != sloRune {
			return false
		}
	}
	return true
}

// judge returns l with its SLO verdict filled in, when objectives are set
// and the level has none yet (the engine fills it only in the results).
func judge(s engine.SLO, l engine.LevelResult) engine.LevelResult {
	if s.IsZero() || l.SLOMet != nil {
		return l
	}
	ok, misses := s.Check(l)
	l.SLOMet, l.SLOMisses = &ok, misses
	return l
}

// sloMax is the highest planned concurrency whose level met every
// objective (0: none), as the engine defines Results.SLOMaxConcurrency.
func sloMax(levels []engine.LevelResult) int {
	best := 0
	for _, l := range levels {
		if l.SLOMet != nil && *l.SLOMet && l.Source == engine.SourcePlan && l.Concurrency > best {
			best = l.Concurrency
		}
	}
	return best
}
