package ui

import (
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/lipgloss"
)

// styleKey identifies what a cell style looks like, so runs of cells that
// look the same can be rendered with one lipgloss call instead of one per
// cell (canvas.Model.View renders every cell on its own, which dominates a
// frame at 200x50).
type styleKey struct {
	fg, bg                      lipgloss.TerminalColor
	bold, faint, under, reverse bool
}

func keyOf(s lipgloss.Style) styleKey {
	return styleKey{
		fg: s.GetForeground(), bg: s.GetBackground(),
		bold: s.GetBold(), faint: s.GetFaint(), under: s.GetUnderline(), reverse: s.GetReverse(),
	}
}

// plain reports whether k draws nothing but the glyph.
func (k styleKey) plain() bool {
	_, fgNone := k.fg.(lipgloss.NoColor)
	_, bgNone := k.bg.(lipgloss.NoColor)
	return (k.fg == nil || fgNone) && (k.bg == nil || bgNone) && !k.bold && !k.faint && !k.under && !k.reverse
}

// canvasView renders a canvas like canvas.Model.View, styling runs of
// equal-looking cells at once.
func canvasView(c *canvas.Model) string {
	w, h := c.Width(), c.Height()
	var b strings.Builder
	b.Grow(w * h * 2)
	run := make([]rune, 0, w)
	var runStyle lipgloss.Style
	var runKey styleKey
	flush := func() {
		if len(run) == 0 {
			return
		}
		if runKey.plain() {
			b.WriteString(string(run))
		} else {
			b.WriteString(runStyle.Render(string(run)))
		}
		run = run[:0]
	}
	for y := range h {
		if y > 0 {
			flush()
			b.WriteByte('\n')
		}
		for x := range w {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			if cell.Rune == 0 {
				// Nothing was drawn here: a blank, which looks the same
				// in any foreground, so it joins the current run.
				if len(run) > 0 && !runKey.visibleOnSpace() {
					run = append(run, ' ')
					continue
				}
				flush()
				runKey, runStyle = styleKey{}, lipgloss.Style{}
				run = append(run, ' ')
				continue
			}
			r := cell.Rune
			k := keyOf(cell.Style)
			if len(run) == 0 || k != runKey {
				flush()
				runKey, runStyle = k, cell.Style
			}
			run = append(run, r)
		}
	}
	flush()
	return b.String()
}

// visibleOnSpace reports whether a blank cell in this style shows anything
// (a background or reverse video does; a foreground colour does not).
func (k styleKey) visibleOnSpace() bool {
	_, bgNone := k.bg.(lipgloss.NoColor)
	return (k.bg != nil && !bgNone) || k.reverse || k.under
}
