package ui

import (
	"fmt"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/engine/report"
	"math"
	"strconv"
	"time"
)

// Figures are formatted here so every pane writes them the same way; axis
// labels must stay ASCII because ntcharts measures them in bytes.

// fmtMs formats a latency given in milliseconds with a unit that keeps it
// short: 0.42ms, 4.6ms, 230ms, 1.23s, 12.3s.
func fmtMs(ms float64) string {
	switch {
	case math.IsNaN(ms) || ms <= 0:
		return "0ms"
	case ms < 1:
		return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
	case ms < 999.5:
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	case ms < 9995:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + "s"
	case ms < 99950:
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + "s"
	}
	return strconv.FormatFloat(ms/1000, 'f', 0, 64) + "s"
}

// fmtCompact formats a rate or count in at most five characters: 7.5, 920,
// 4.2k, 13.3k, 1.2M.
func fmtCompact(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 10 && a != math.Trunc(a):
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a < 999.5:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a < 9995:
		return strconv.FormatFloat(v/1e3, 'f', 2, 64) + "k"
	case a < 999500:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
}

// fmtInt writes n with thousands separators: 12,345.
func fmtInt(n int64) string { return report.Thousands(n) }

// fmtRate formats a throughput: one decimal below 100, else a rounded
// integer with separators.
func fmtRate(v float64) string {
	if v < 99.95 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return fmtInt(int64(math.Round(v)))
}

// fmtClock formats a duration as m:ss or h:mm:ss.
func fmtClock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// fmtSeconds formats a short duration: 0.5s, 3s, 1m20s.
func fmtSeconds(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 0, 64) + "s"
	}
	return d.Round(time.Second).String()
}

// fmtPct formats a share (0..1) as a percentage.
func fmtPct(share float64) string {
	p := share * 100
	switch {
	case p == 0:
		return "0%"
	case p < 0.1:
		return "<0.1%"
	case p < 10:
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// safeURL keeps a key passed in a base URL off the screen (or a projector).
func safeURL(raw string) string { return engine.RedactURL(raw) }
