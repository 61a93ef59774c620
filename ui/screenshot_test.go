package ui

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestScreenshot prints the scripted sweep for a look at a size, mid-run
// after UI_LEVELS levels and then finished; UI_SLO=1 adds objectives and
// an hourly price:
//
//	UI_SHOT=120x40 UI_LEVELS=6 UI_SLO=1 go test ./ui -run TestScreenshot -v
func TestScreenshot(t *testing.T) {
	if os.Getenv("UI_SHOT") == "" {
		t.Skip("set UI_SHOT=WxH")
	}
	var w, h int
	fmt.Sscanf(os.Getenv("UI_SHOT"), "%dx%d", &w, &h)
	n, _ := strconv.Atoi(os.Getenv("UI_LEVELS"))
	if n == 0 {
		n = 6
	}
	opts, all := scriptOpts, script(9, false, true)
	if os.Getenv("UI_SLO") != "" {
		opts, all = sloOpts, judgedScript(9, false, true, sloOpts.SLO, sloOpts.Cost)
	}
	m := sized(New(nil, &fakeCtl{}, opts), w, h)
	m = feed(m, script(n, true, false)...)
	fmt.Println(m.View())
	fmt.Println("-----")
	m = feed(m, all[len(script(n, true, false)):]...)
	fmt.Println(m.View())
}
