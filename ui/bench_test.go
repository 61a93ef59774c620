package ui

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// BenchmarkFrame200x50 measures what one snapshot costs the dashboard at
// 200x50 in true colour: applying it and rendering the whole frame, with
// eight levels of history behind it, objectives and an hourly price
// (the SLO bound on both charts, the live cost, the health line).
func BenchmarkFrame200x50(b *testing.B) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	m := sized(New(nil, &fakeCtl{}, sloOpts), 200, 50)
	evs := script(8, true, false)
	m = feed(m, evs...)
	last := evs[len(evs)-1]
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		next, _ := m.Update(eventMsg{last})
		if next.(Model).View() == "" {
			b.Fatal("empty frame")
		}
	}
}
