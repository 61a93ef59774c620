package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Panes are composed as slices of lines that are exactly as wide as their
// box, so that joining them side by side can never overlap or wrap. The
// final frame is clipped once more to the terminal size.

// fit truncates or pads s (which may hold ANSI styling) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "")
	}
	if n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// clip truncates s to at most w cells without padding.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "")
	}
	return s
}

// box turns lines into exactly h lines of exactly w cells.
func box(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// beside joins two boxes of equal height with a gap between them.
func beside(left, right []string, gap string) []string {
	n := max(len(left), len(right))
	out := make([]string, n)
	for i := range out {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out[i] = l + gap + r
	}
	return out
}

// spread puts left and right on one line of width w, right-aligned,
// shortening left first when they do not both fit.
func spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return clip(right, w)
	}
	room := w - rw - 1
	left = ellipsize(left, room)
	return fit(left, w-rw) + right
}

// ellipsize shortens s to w cells, ending with … when it cut something.
func ellipsize(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// frame clips the composed lines to the terminal: at most h lines, each at
// most w cells.
func frame(lines []string, w, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(clip(l, w))
	}
	return b.String()
}
