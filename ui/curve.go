package ui

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/charmbracelet/lipgloss"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

// curvePane draws the sweep curve as it forms: output throughput (left
// axis) and p95 end-to-end latency (right axis) against concurrency on a
// log2 axis, one point per finished level, with the knee marked.
type curvePane struct {
	width, height int
	levels        []engine.LevelResult
	knee          *engine.Knee
	target        int  // current target concurrency, marked while running
	done          bool // the run is over: no "now" marker
	// sloP95 is the p95 end-to-end latency objective in ms (0: none),
	// drawn against the right axis; a p99 bound is not, as the curve
	// plots p95.
	sloP95 float64

	// The curve changes only when a level finishes, so its rendering is
	// kept with the key it was drawn for.
	version int // bumped on every change to levels or knee
	key     curveKey
	cached  []string
}

// curveKey is everything a rendering of the curve depends on.
type curveKey struct {
	w, h, version, target int
	slo                   float64
	done, mono            bool
	theme                 string
}

func (p *curvePane) setSize(w, h int) { p.width, p.height = w, h }

func (p *curvePane) addLevel(l engine.LevelResult) {
	p.levels = append(p.levels, l)
	p.version++
}

func (p *curvePane) setKnee(k *engine.Knee) {
	p.knee = k
	p.version++
}

func (p *curvePane) setLevels(levels []engine.LevelResult) {
	p.levels = levels
	p.version++
}

// curvePoint is one level on the chart.
type curvePoint struct {
	conc   int
	tok    float64
	p95    float64
	manual bool
}

// points are the levels that produced figures, sorted by concurrency.
// Planned levels form the line (a later level at the same concurrency
// replaces an earlier one); manual holds are drawn as loose markers.
func (p *curvePane) points() (plan, manual []curvePoint) {
	byConc := map[int]curvePoint{}
	for _, l := range p.levels {
		if l.Succeeded == 0 || l.Concurrency < 1 || !finite(l.OutputTokPerS) || !finite(l.Latency.P95) {
			continue
		}
		cp := curvePoint{conc: l.Concurrency, tok: l.OutputTokPerS, p95: l.Latency.P95, manual: l.Source == engine.SourceManual}
		if cp.manual {
			manual = append(manual, cp)
			continue
		}
		byConc[cp.conc] = cp
	}
	for _, cp := range byConc {
		plan = append(plan, cp)
	}
	sort.Slice(plan, func(i, j int) bool { return plan[i].conc < plan[j].conc })
	return plan, manual
}

// view renders the title line and the chart: exactly height lines of
// width cells.
func (p *curvePane) view(sc *scratch, th themes.Theme, st themes.Styles) []string {
	w, h := p.width, p.height
	if w <= 0 || h <= 0 {
		return nil
	}
	key := curveKey{w: w, h: h, version: p.version, target: p.target, slo: p.sloP95, done: p.done, mono: th.Mono, theme: th.Name}
	if p.cached != nil && p.key == key {
		return p.cached
	}
	p.key, p.cached = key, p.render(sc, st)
	return p.cached
}

// render draws the pane for view.
func (p *curvePane) render(sc *scratch, st themes.Styles) []string {
	w, h := p.width, p.height
	title := st.PaneTitle.Render("Sweep") + st.Subtle.Render(" · vs concurrency")
	legend := st.Good.Render("━ tok/s") + " " + st.P95.Render("━ p95")
	if p.knee != nil {
		legend = st.Knee.Render("│ knee c="+strconv.Itoa(p.knee.Concurrency)) + "  " + legend
	}
	lines := []string{spread(title, legend, w)}
	if h < 4 || w < 24 {
		return box(lines, w, h)
	}
	return box(append(lines, p.chart(sc, w, h-1, st)...), w, h)
}

// chart draws axes with ntcharts' linechart and the data, knee and "now"
// markers with its canvas. The data is placed with the same mapping the
// axis labels use, so a point sits on the row its label names.
func (p *curvePane) chart(sc *scratch, w, h int, st themes.Styles) []string {
	plan, manual := p.points()
	all := append(append([]curvePoint(nil), plan...), manual...)

	lo, hi := math.Inf(1), math.Inf(-1)
	maxTok, maxP95 := 0.0, 0.0
	for _, cp := range all {
		x := math.Log2(float64(cp.conc))
		lo, hi = math.Min(lo, x), math.Max(hi, x)
		maxTok, maxP95 = math.Max(maxTok, cp.tok), math.Max(maxP95, cp.p95)
	}
	if p.target > 0 && !p.done {
		x := math.Log2(float64(p.target))
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if p.knee != nil && p.knee.Concurrency > 0 {
		x := math.Log2(float64(p.knee.Concurrency))
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 3
	}
	if hi-lo < 3 {
		hi = lo + 3
	}
	haveSLO := p.sloP95 > 0 && finite(p.sloP95)
	if haveSLO {
		maxP95 = math.Max(maxP95, p.sloP95)
	}
	maxTok, maxP95 = niceCeil(maxTok*1.1), niceCeil(maxP95*1.1)

	ystep := 2
	if h > 16 {
		ystep = 3
	}
	// Right axis: p95 labels on the rows the left axis labels. They depend
	// only on the graph's height (the chart keeps two rows for the x axis),
	// so they are made first and the axis takes the width of the longest.
	right := make([]string, h)
	rightW := 0
	last := ""
	for i := range right {
		if up := h - 2 - i; up >= 0 && up%ystep == 0 && h > 2 {
			if s := fmtMs(maxP95 * float64(up) / float64(h-2)); s != last {
				right[i], last = s, s
				rightW = max(rightW, len(s))
			}
		}
	}
	cw := w - rightW - 1
	// Leave room right of the last point for its concurrency label
	// (estimating the graph width before ntcharts lays out the y labels).
	lastLabel := len(strconv.Itoa(1<<int(math.Floor(hi)))) + 1
	gwGuess := float64(max(cw-len(fmtCompact(maxTok))-1, 8))
	margin := math.Max(0.5, float64(lastLabel)*(hi-lo+0.75)/math.Max(gwGuess-float64(lastLabel), 1))
	minX, maxX := lo-0.25, hi+margin
	xLabels := map[int]string{} // column offset from the origin -> label
	lc := sc.curve.chart(cw, h, 1, ystep)
	lc.AxisStyle, lc.LabelStyle = st.Axis, st.AxisLabel
	lc.YLabelFormatter = func(_ int, v float64) string { return fmtCompact(v) }
	lc.XLabelFormatter = func(i int, _ float64) string { return xLabels[i] }
	setRanges(lc, minX, maxX, 0, maxTok)
	o := lc.Origin()
	gw, gh := lc.GraphWidth(), lc.GraphHeight()
	col := func(x float64) int {
		c := o.X + int(math.Round((x-minX)/(maxX-minX)*float64(gw)))
		return min(max(c, o.X+1), o.X+gw)
	}
	row := func(v, top float64) int {
		r := o.Y - int(math.Round(v/top*float64(gh)))
		return min(max(r, 0), o.Y-1)
	}
	// Label every power of two, or every other one when they would crowd.
	every := max(1, int(math.Ceil(4.5*(maxX-minX)/float64(gw))))
	for k := math.Ceil(minX); k <= hi; k++ {
		if int(k)%every == 0 {
			xLabels[col(k)-o.X] = strconv.Itoa(1 << int(k))
		}
	}
	lc.DrawXYAxisAndLabel()

	cv := &lc.Canvas
	if p.knee != nil && p.knee.Concurrency > 0 {
		vline(cv, col(math.Log2(float64(p.knee.Concurrency))), o.Y, '│', st.Knee)
	}
	if p.target > 0 && !p.done {
		vline(cv, col(math.Log2(float64(p.target))), o.Y, '┊', st.Boundary)
	}
	sloRow := row(p.sloP95, maxP95)
	if haveSLO {
		hline(cv, o.X+1, o.X+gw, sloRow, st.SLO)
	}
	series := func(val func(curvePoint) float64, top float64, s lipgloss.Style, mark rune) {
		var prev canvas.Point
		for i, cp := range plan {
			pt := canvas.Point{X: col(math.Log2(float64(cp.conc))), Y: row(val(cp), top)}
			if i > 0 {
				graph.DrawLinePoints(cv, graph.GetLinePoints(prev, pt), runes.ArcLineStyle, s)
			}
			prev = pt
		}
		for _, cp := range plan {
			cv.SetCell(canvas.Point{X: col(math.Log2(float64(cp.conc))), Y: row(val(cp), top)}, canvas.NewCellWithStyle(mark, s))
		}
		for _, cp := range manual {
			cv.SetCell(canvas.Point{X: col(math.Log2(float64(cp.conc))), Y: row(val(cp), top)}, canvas.NewCellWithStyle('×', s))
		}
	}
	series(func(cp curvePoint) float64 { return cp.p95 }, maxP95, st.P95, '◆')
	series(func(cp curvePoint) float64 { return cp.tok }, maxTok, st.Good, '●')
	if haveSLO {
		boundLabel(cv, o.X+1, o.X+gw, sloRow, o.Y-1, "SLO p95 "+fmtMs(p.sloP95), st.SLO)
	}
	if p.knee != nil && p.knee.Concurrency > 0 {
		kneeLabel(cv, col(math.Log2(float64(p.knee.Concurrency))), o.X+1, "knee c="+strconv.Itoa(p.knee.Concurrency), st.Knee)
	}
	if len(all) == 0 {
		msg := "waiting for the first level…"
		if len([]rune(msg)) < gw {
			cv.SetStringWithStyle(canvas.Point{X: o.X + 1 + (gw-len([]rune(msg)))/2, Y: o.Y / 2}, msg, st.Subtle)
		}
	}

	lines := strings.Split(canvasView(cv), "\n")
	for i := range lines {
		lbl := right[min(i, len(right)-1)]
		lines[i] += " " + st.P95.Render(lbl+strings.Repeat(" ", max(rightW-len(lbl), 0)))
	}
	return lines
}

// vline draws a vertical marker at column x above the x axis, over cells
// that are still empty so data stays visible.
func vline(cv *canvas.Model, x, axisY int, r rune, s lipgloss.Style) {
	for y := 0; y < axisY; y++ {
		pt := canvas.Point{X: x, Y: y}
		if cv.Cell(pt).Rune == runes.Null {
			cv.SetCell(pt, canvas.NewCellWithStyle(r, s))
		}
	}
}

// kneeLabel writes the knee's label on the top row, right of the marker,
// or left of it when it would not fit.
func kneeLabel(cv *canvas.Model, x, minX int, label string, s lipgloss.Style) {
	n := len([]rune(label))
	at := x + 1
	if at+n > cv.Width() {
		at = x - n
	}
	if at < minX {
		return
	}
	cv.SetStringWithStyle(canvas.Point{X: at, Y: 0}, label, s)
}
