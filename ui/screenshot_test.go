package ui

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestScreenshot prints the scripted sweep for a look at a size, mid-run
// after UI_LEVELS levels and then finished:
//
//	UI_SHOT=120x40 UI_LEVELS=6 go test ./ui -run TestScreenshot -v
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
	m := sized(New(nil, &fakeCtl{}, scriptOpts), w, h)
	m = feed(m, script(n, true, false)...)
	fmt.Println(m.View())
	fmt.Println("-----")
	m = feed(m, script(9, false, true)[len(script(n, true, false)):]...)
	fmt.Println(m.View())
}
