package ui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestGolden pins the whole view, without colour, for the scripted sweep:
// mid-run (six levels done, the seventh measuring) and finished (knee at
// c=64, summary table), plain and with objectives and an hourly price (the
// SLO bound on the charts, SLO and cost columns, live cost). Update with
// `go test ./ui -update`.
func TestGolden(t *testing.T) {
	mid := script(6, true, false)
	all := script(9, false, true)
	allSLO := judgedScript(9, false, true, sloOpts.SLO, sloOpts.Cost)
	screens := map[string]func(w, h int) Model{
		"running":     func(w, h int) Model { return feed(sized(New(nil, &fakeCtl{}, scriptOpts), w, h), mid...) },
		"done":        func(w, h int) Model { return feed(sized(New(nil, &fakeCtl{}, scriptOpts), w, h), all...) },
		"running_slo": func(w, h int) Model { return feed(sized(New(nil, &fakeCtl{}, sloOpts), w, h), mid...) },
		"done_slo":    func(w, h int) Model { return feed(sized(New(nil, &fakeCtl{}, sloOpts), w, h), allSLO...) },
	}
	for _, name := range []string{"running", "done", "running_slo", "done_slo"} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				golden.RequireEqual(t, []byte(screens[name](sz[0], sz[1]).View()))
			})
		}
	}
}
