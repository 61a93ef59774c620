package ui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

// maxSamples bounds the latency history: past it, neighbouring samples are
// merged, so a run of any length costs the same to draw (a TUI that keeps
// every sample slows down over minutes).
const maxSamples = 1200

// sample is one snapshot's p50/p95 of every plottable metric, in ms.
type sample struct {
	at  time.Duration
	val [metricCount][2]float64 // [metric][p50, p95]
	ok  [metricCount]bool       // the window held completions
}

// boundary is where a segment (a level or a manual hold) began.
type boundary struct {
	at     time.Duration
	conc   int
	manual bool
}

// latencyPane draws p50 and p95 of the selected metric over the whole run
// with the level boundaries drawn over it.
type latencyPane struct {
	width, height int
	samples       []sample
	bounds        []boundary
	slo           engine.SLO // objectives: the plotted metric's bound is drawn
}

func (p *latencyPane) setSize(w, h int) { p.width, p.height = w, h }

// push records a snapshot's live percentiles.
func (p *latencyPane) push(s engine.Snapshot) {
	var smp sample
	smp.at = s.At
	for m := metric(0); m < metricCount; m++ {
		d := m.of(s)
		if d.Count > 0 && finite(d.P50) && finite(d.P95) {
			smp.val[m] = [2]float64{d.P50, d.P95}
			smp.ok[m] = true
		}
	}
	if n := len(p.samples); n > 0 && smp.at < p.samples[n-1].at {
		return // out of order: the engine never does this, a replay might
	}
	if len(p.samples) >= maxSamples {
		p.samples = compact(p.samples)
	}
	p.samples = append(p.samples, smp)
}

// compact halves the history by merging neighbours into a new slice (the
// old one may still be shared with an earlier Model value).
func compact(in []sample) []sample {
	out := make([]sample, 0, len(in)/2+1)
	for i := 0; i < len(in); i += 2 {
		if i+1 == len(in) {
			out = append(out, in[i])
			break
		}
		a, b := in[i], in[i+1]
		var m sample
		m.at = b.at
		for k := metric(0); k < metricCount; k++ {
			switch {
			case a.ok[k] && b.ok[k]:
				m.val[k] = [2]float64{(a.val[k][0] + b.val[k][0]) / 2, (a.val[k][1] + b.val[k][1]) / 2}
				m.ok[k] = true
			case b.ok[k]:
				m.val[k], m.ok[k] = b.val[k], true
			case a.ok[k]:
				m.val[k], m.ok[k] = a.val[k], true
			}
		}
		out = append(out, m)
	}
	return out
}

// startLevel records a segment boundary.
func (p *latencyPane) startLevel(ls engine.LevelStarted) {
	p.bounds = append(p.bounds, boundary{at: ls.At, conc: ls.Concurrency, manual: ls.Source == engine.SourceManual})
}

// fromLevels rebuilds the pane from finished levels (replay): each level
// becomes a flat step at its measured percentiles over its window.
func (p *latencyPane) fromLevels(levels []engine.LevelResult) {
	p.samples, p.bounds = nil, nil
	for _, l := range levels {
		start := seconds(l.StartS)
		p.bounds = append(p.bounds, boundary{at: start, conc: l.Concurrency, manual: l.Source == engine.SourceManual})
		var smp sample
		for m := metric(0); m < metricCount; m++ {
			d := m.ofLevel(l)
			if d.Count > 0 && finite(d.P50) && finite(d.P95) {
				smp.val[m] = [2]float64{d.P50, d.P95}
				smp.ok[m] = true
			}
		}
		from := start + seconds(l.WarmupS)
		to := from + seconds(l.DurationS)
		a, b := smp, smp
		a.at, b.at = from, to
		p.samples = append(p.samples, a, b)
	}
}

// finite reports whether v is a figure that can be drawn: bad input from
// a provider or a results file must not reach the chart's arithmetic.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// seconds converts a results-file duration, treating nonsense as zero.
func seconds(s float64) time.Duration {
	if !finite(s) || s > maxSeconds {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

// maxSeconds bounds durations read from a results file (a year).
const maxSeconds = 365 * 24 * 3600

// latest returns the newest sample holding the metric.
func (p *latencyPane) latest(m metric) (sample, bool) {
	for i := len(p.samples) - 1; i >= 0; i-- {
		if p.samples[i].ok[m] {
			return p.samples[i], true
		}
	}
	return sample{}, false
}

// view renders the pane: a title line with the legend and current values,
// then the chart. It returns exactly height lines of width cells.
func (p *latencyPane) view(sc *scratch, m metric, now time.Duration, st themes.Styles) []string {
	w, h := p.width, p.height
	if w <= 0 || h <= 0 {
		return nil
	}
	title := st.PaneTitle.Render(m.title())
	legend := st.P50.Render("━ p50") + " " + st.P95.Render("━ p95")
	if s, ok := p.latest(m); ok {
		legend = st.P50.Render("━ p50 "+fmtMs(s.val[m][0])) + "  " + st.P95.Render("━ p95 "+fmtMs(s.val[m][1]))
	}
	lines := []string{spread(title, legend, w)}
	if h < 4 || w < 16 {
		return box(lines, w, h)
	}
	return box(append(lines, p.chart(sc, m, now, w, h-1, st)...), w, h)
}

// chart draws the time series on an ntcharts linechart: axes and labels
// by linechart, each series as a line sequence (one averaged point per
// column, as timeserieslinechart does, but at full time resolution and
// into a reused canvas), then the level boundaries over it (ntcharts has
// no marker API, so they are drawn after each draw).
func (p *latencyPane) chart(sc *scratch, m metric, now time.Duration, w, h int, st themes.Styles) []string {
	end := max(now, 10*time.Second)
	for _, s := range p.samples {
		end = max(end, s.at)
	}
	for _, b := range p.bounds {
		end = max(end, b.at)
	}
	maxX := end.Seconds()
	ymax := 0.0
	for _, s := range p.samples {
		if s.ok[m] {
			ymax = math.Max(ymax, s.val[m][1])
		}
	}
	bound, boundText, haveBound := sloBound(p.slo, m)
	if haveBound {
		ymax = math.Max(ymax, bound) // the bound is always in view
	}
	ymax = niceCeil(ymax * 1.1)

	ystep := 2
	if h > 16 {
		ystep = 3
	}
	lc := sc.latency.chart(w, h, max(8, w/8), ystep)
	lc.XLabelFormatter = func(_ int, v float64) string { return fmtClock(seconds(v)) }
	lc.YLabelFormatter = func(_ int, v float64) string { return fmtMs(v) }
	lc.AxisStyle, lc.LabelStyle = st.Axis, st.AxisLabel
	setRanges(lc, 0, maxX, 0, ymax)
	lc.DrawXYAxisAndLabel()

	o := lc.Origin()
	gw, gh := lc.GraphWidth(), lc.GraphHeight()
	xs, ys := float64(gw)/maxX, float64(gh)/ymax
	boundRow := o.Y - int(math.Round(bound*ys))
	if haveBound {
		hline(&lc.Canvas, o.X+1, o.X+gw, boundRow, st.SLO)
	}
	for _, ds := range []struct {
		pct   int
		line  runes.LineStyle
		style lipgloss.Style
	}{{1, runes.ArcLineStyle, st.P95}, {0, runes.ThinLineStyle, st.P50}} {
		first, seq := p.lineSequence(m, ds.pct, xs, ys, gw)
		if len(seq) == 0 {
			continue
		}
		for i, y := range seq {
			seq[i] = min(max(o.Y-y, 0), o.Y)
		}
		graph.DrawLineSequence(&lc.Canvas, first == 0, o.X+first, seq, ds.line, ds.style)
	}
	if haveBound {
		// After the data (which may cross the line) and before the level
		// boundaries, so the label only ever covers its own line.
		boundLabel(&lc.Canvas, o.X+1, o.X+gw, boundRow, o.Y-1, boundText, st.SLO)
	}
	p.drawBounds(lc, xs, st)
	return strings.Split(canvasView(&lc.Canvas), "\n")
}

// lineSequence maps the samples of one percentile to graph columns
// 0..gw: every column a line between consecutive samples crosses gets the
// mean height of the points falling in it. It returns the first column
// with data and the heights from there on.
func (p *latencyPane) lineSequence(m metric, pct int, xs, ys float64, gw int) (int, []int) {
	type acc struct {
		sum float64
		n   int
	}
	buckets := make([]acc, gw+1)
	var prev canvas.Point
	have := false
	for _, s := range p.samples {
		if !s.ok[m] {
			continue
		}
		pt := canvas.Point{X: int(math.Round(s.at.Seconds() * xs)), Y: int(math.Round(s.val[m][pct] * ys))}
		if !have {
			prev, have = pt, true
		}
		for _, q := range graph.GetLinePoints(prev, pt) {
			if q.X >= 0 && q.X <= gw {
				buckets[q.X].sum += float64(q.Y)
				buckets[q.X].n++
			}
		}
		prev = pt
	}
	first, last := -1, -1
	for i, b := range buckets {
		if b.n > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, nil
	}
	seq := make([]int, 0, last-first+1)
	y := 0
	for _, b := range buckets[first : last+1] {
		if b.n > 0 {
			y = int(math.Round(b.sum / float64(b.n)))
		}
		seq = append(seq, y)
	}
	return first, seq
}

// drawBounds draws a dotted vertical line at each segment start, labelled
// with its concurrency where there is room, over cells the data left empty.
func (p *latencyPane) drawBounds(lc *linechart.Model, xs float64, st themes.Styles) {
	o := lc.Origin()
	cv := &lc.Canvas
	nextFree := 0 // first column the next label may use
	for _, b := range p.bounds {
		col := o.X + int(math.Round(b.at.Seconds()*xs))
		if col > o.X && col < cv.Width() {
			vline(cv, col, o.Y, '┊', st.Boundary)
		}
		label := "c" + strconv.Itoa(b.conc)
		if b.manual {
			label += "*"
		}
		x := col + 1
		if x < nextFree || x+len(label) > cv.Width() {
			continue
		}
		free := true
		for i := range len(label) {
			if cv.Cell(canvas.Point{X: x + i, Y: 0}).Rune != runes.Null {
				free = false
				break
			}
		}
		if free {
			cv.SetStringWithStyle(canvas.Point{X: x, Y: 0}, label, st.AxisLabel)
			nextFree = x + len(label) + 1
		}
	}
}

// niceCeil rounds v up to a round multiple of a power of ten, so axis
// labels stay short and the range does not jitter with every snapshot.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	exp := math.Pow(10, math.Floor(math.Log10(v)))
	for _, f := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if f*exp >= v {
			return f * exp
		}
	}
	return 10 * exp
}
