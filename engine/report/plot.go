package report

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/kneepoint/kneepoint/engine"
)

// Plot draws a run as one figure of two panels sharing a log2 concurrency
// axis: output throughput on top, p50 and p95 latency below, with the knee
// marked on both. Two stacked panels read more clearly than twin y axes,
// whose scales invite false crossings. format is "svg" or "png".
func Plot(res engine.Results, format string) Reporter {
	return func(w io.Writer) error {
		curves := []curve{{name: "", levels: planned(res), knee: kneeConcurrency(res)}}
		title := targetName(res.Target) + "\n" + shapePhrase(res.Workload)
		if res.Partial {
			title += " (partial run)"
		}
		return drawCurves(w, format, title, curves, true)
	}
}

// ComparePlot draws several runs on one figure: throughput and p95 latency
// against concurrency, one line per run, each run's knee marked.
func ComparePlot(runs []engine.Results, names []string, format string) Reporter {
	return func(w io.Writer) error {
		if len(runs) == 0 {
			return fmt.Errorf("compare: no runs")
		}
		names = runNames(runs, names)
		curves := make([]curve, len(runs))
		for i, r := range runs {
			curves[i] = curve{name: names[i], levels: planned(r), knee: kneeConcurrency(r)}
		}
		title := "Comparison: " + joinNames(names) + "\n" + shapePhrase(runs[0].Workload)
		if !sameShape(runs) {
			title += " (prompt shapes differ between runs)"
		}
		return drawCurves(w, format, title, curves, false)
	}
}

// curve is one run's planned levels and its knee (0: none).
type curve struct {
	name   string
	levels []engine.LevelResult
	knee   int
}

// kneeConcurrency is the knee's concurrency, 0 when there is none.
func kneeConcurrency(res engine.Results) int {
	if res.Knee == nil {
		return 0
	}
	return res.Knee.Concurrency
}

// Figure size: wide enough for twelve power-of-two tick labels.
const (
	figWidth  = 8 * vg.Inch
	figHeight = 7 * vg.Inch
)

// drawCurves renders the two-panel figure. With single set, the latency
// panel shows p50 (dashed) and p95 of the one run; otherwise p95 of each.
func drawCurves(w io.Writer, format, title string, curves []curve, single bool) error {
	canvas, err := newCanvas(format)
	if err != nil {
		return err
	}
	minC, maxC := math.Inf(1), math.Inf(-1)
	var maxTok, maxLat float64
	for _, c := range curves {
		for _, l := range c.levels {
			minC, maxC = math.Min(minC, float64(l.Concurrency)), math.Max(maxC, float64(l.Concurrency))
			maxTok = math.Max(maxTok, l.OutputTokPerS)
			maxLat = math.Max(maxLat, l.Latency.P95)
		}
	}
	empty := math.IsInf(minC, 1)
	if empty {
		minC, maxC = 1, 2
		title += "\n(no planned levels measured)"
	}
	unit, scale := "ms", 1.0
	if maxLat >= 2000 {
		unit, scale = "s", 1.0/1000
	}

	top, bottom := plot.New(), plot.New()
	top.Title.Text = title
	top.Y.Label.Text = "output throughput (tok/s)"
	bottom.Y.Label.Text = fmt.Sprintf("end-to-end latency (%s)", unit)
	bottom.X.Label.Text = "concurrency (requests in flight, log2 scale)"
	// x is log2(concurrency) on a linear axis, labelled in concurrency:
	// gonum's LogScale misplaces the centred axis label's padding.
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = math.Log2(minC)-0.3, math.Log2(maxC)+0.3
		p.X.Tick.Marker = plot.ConstantTicks(powerOfTwoTicks(p.X.Min, p.X.Max))
		p.Y.Min = 0
		p.Add(plotter.NewGrid())
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
		sansSerif(p)
	}
	top.Y.Max = niceMax(maxTok)
	top.Y.Tick.Marker = plot.TickerFunc(thousandsTicks)
	bottom.Y.Max = niceMax(maxLat * scale)

	for i, c := range curves {
		col := palette(i)
		if single {
			col = palette(0)
		}
		if err := addLine(top, c.levels, func(l engine.LevelResult) float64 { return l.OutputTokPerS },
			col, nil, legendName(c.name, "output tok/s", single)); err != nil {
			return err
		}
		if single {
			// p50 last, dashed, so it shows where the two coincide.
			if err := addLine(bottom, c.levels, func(l engine.LevelResult) float64 { return l.Latency.P95 * scale },
				palette(2), nil, "p95 latency"); err != nil {
				return err
			}
			if err := addLine(bottom, c.levels, func(l engine.LevelResult) float64 { return l.Latency.P50 * scale },
				palette(3), []vg.Length{vg.Points(5), vg.Points(3)}, "p50 latency"); err != nil {
				return err
			}
		} else if err := addLine(bottom, c.levels, func(l engine.LevelResult) float64 { return l.Latency.P95 * scale },
			col, nil, c.name+" p95"); err != nil {
			return err
		}
	}
	for i, c := range curves {
		if c.knee <= 0 {
			continue
		}
		label := fmt.Sprintf("knee c=%d", c.knee)
		if !single {
			label += " (" + c.name + ")"
		}
		col := color.Color(color.Gray{Y: 0x40})
		if !single {
			col = palette(i)
		}
		x := math.Log2(float64(c.knee))
		top.Add(kneeMark{x: x, label: label, row: i, color: col})
		bottom.Add(kneeMark{x: x, color: col})
	}

	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 3 * vg.Millimeter, PadBottom: 3 * vg.Millimeter, PadLeft: 3 * vg.Millimeter, PadRight: 5 * vg.Millimeter}
	plots := [][]*plot.Plot{{top}, {bottom}}
	cs := plot.Align(plots, tiles, dc)
	top.Draw(cs[0][0])
	bottom.Draw(cs[1][0])
	_, err = canvas.WriteTo(w)
	return err
}

// newCanvas is a blank figure in the given format.
func newCanvas(format string) (vg.CanvasWriterTo, error) {
	switch format {
	case "svg":
		return vgsvg.New(figWidth, figHeight), nil
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(120))}, nil
	}
	return nil, fmt.Errorf("plot format %q is not supported (want svg or png)", format)
}

// addLine plots one figure of each level against concurrency, with points
// so a single level still shows.
func addLine(p *plot.Plot, levels []engine.LevelResult, y func(engine.LevelResult) float64, col color.Color, dashes []vg.Length, name string) error {
	if len(levels) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(levels))
	for i, l := range levels {
		xys[i] = plotter.XY{X: math.Log2(float64(l.Concurrency)), Y: y(l)}
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.Color, line.Width, line.Dashes = col, vg.Points(2), dashes
	points.Color, points.Radius, points.Shape = col, vg.Points(2.5), draw.CircleGlyph{}
	p.Add(line, points)
	if name != "" {
		p.Legend.Add(name, line, points)
	}
	return nil
}

func legendName(name, what string, single bool) string {
	if single {
		return what
	}
	return name
}

// kneeMark is a vertical line across the panel at the knee, with an
// optional label near the top (row staggers labels of several runs).
type kneeMark struct {
	x     float64
	label string
	row   int
	color color.Color
}

var _ plot.Plotter = kneeMark{}

// Plot implements plot.Plotter.
func (k kneeMark) Plot(c draw.Canvas, p *plot.Plot) {
	if k.x < p.X.Min || k.x > p.X.Max {
		return
	}
	trX, _ := p.Transforms(&c)
	x := trX(k.x)
	c.StrokeLine2(draw.LineStyle{Color: k.color, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}},
		x, c.Min.Y, x, c.Max.Y)
	if k.label == "" {
		return
	}
	sty := p.Legend.TextStyle
	sty.Color = k.color
	sty.YAlign = draw.YTop
	sty.XAlign = draw.XLeft
	pad := vg.Points(4)
	if x > (c.Min.X+c.Max.X)/2 { // keep the label inside the panel
		sty.XAlign = draw.XRight
		pad = -pad
	}
	y := c.Max.Y - vg.Points(4) - vg.Length(k.row)*sty.Height(k.label)*1.2
	c.FillText(sty, vg.Point{X: x + pad, Y: y}, k.label)
}

// powerOfTwoTicks places ticks at whole log2 values in [min, max] (x is
// log2 of concurrency), labelled with the concurrency, thinned to at most
// twelve labels.
func powerOfTwoTicks(min, max float64) []plot.Tick {
	var ks []float64
	for k := math.Ceil(min); k <= max; k++ {
		ks = append(ks, k)
	}
	if len(ks) == 0 { // a single level between powers of two
		ks = []float64{(min + max) / 2}
	}
	step := (len(ks) + 11) / 12
	ticks := make([]plot.Tick, 0, len(ks))
	for i, k := range ks {
		t := plot.Tick{Value: k}
		if i%step == 0 {
			t.Label = thousands(math.Exp2(k))
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// sansSerif sets every text of a plot in Liberation Sans, which reads
// better on screens than gonum's default serif.
func sansSerif(p *plot.Plot) {
	for _, sty := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		sty.Font.Variant = "Sans"
	}
}

// thousandsTicks is gonum's default ticks with comma-separated labels.
func thousandsTicks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" && ticks[i].Value >= 1000 {
			ticks[i].Label = thousands(ticks[i].Value)
		}
	}
	return ticks
}

// niceMax is headroom above the highest point (1 when nothing is above 0).
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	return v * 1.12
}

// palette is the Okabe-Ito colour-blind-safe palette.
func palette(i int) color.Color {
	cols := [...]color.RGBA{
		{0x00, 0x72, 0xB2, 0xFF}, // blue
		{0xE6, 0x9F, 0x00, 0xFF}, // orange
		{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
		{0x00, 0x9E, 0x73, 0xFF}, // bluish green
		{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
		{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
		{0x00, 0x00, 0x00, 0xFF}, // black
	}
	return cols[i%len(cols)]
}
