package ui

import (
	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/linechart"
)

// scratch is drawing memory reused from frame to frame. An ntcharts canvas
// holds a full lipgloss.Style per cell (about half a kilobyte), so building
// fresh charts for every snapshot allocated megabytes a frame at 200x50;
// redrawing into the same canvases allocates almost nothing. It carries no
// state between frames (every chart is cleared and fully redrawn), so
// Model values that share it still render only from their own data. Only
// Update touches it, on Bubble Tea's single event goroutine.
type scratch struct {
	latency, curve chartBuf
}

// chartBuf is one reusable linechart.
type chartBuf struct {
	lc    linechart.Model
	ready bool
}

// chart returns the buffer's linechart at w x h, cleared, with steps set.
func (b *chartBuf) chart(w, h, xStep, yStep int) *linechart.Model {
	switch {
	case !b.ready:
		b.lc = linechart.New(w, h, 0, 1, 0, 1, linechart.WithXYSteps(xStep, yStep))
		b.ready = true
	case b.lc.Width() != w || b.lc.Height() != h:
		b.lc.Resize(w, h)
	}
	b.lc.Canvas.Fill(canvas.Cell{})
	b.lc.SetXStep(xStep)
	b.lc.SetYStep(yStep)
	return &b.lc
}

// setRanges sets both the data and the view ranges of lc (ntcharts bounds
// the view by the data range, so the order matters) and recomputes the
// graph area for the new labels.
func setRanges(lc *linechart.Model, minX, maxX, minY, maxY float64) {
	lc.SetXYRange(minX, maxX, minY, maxY)
	lc.SetViewXYRange(minX, maxX, minY, maxY)
	lc.UpdateGraphSizes()
}
