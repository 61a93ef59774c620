// Package ui is kneepoint's live dashboard: a Bubble Tea program that shows
// a sweep as it runs (latency over time, the sweep curve with its knee,
// throughput and error counters) and steers it through an
// engine.Controller. It reads only aggregate engine events (snapshots at
// most four times a second), never per-request data, so it cannot slow the
// measurement; Update is pure and every render is cached for View.
package ui

import (
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

// DefaultErrorWarnShare is the error share past which the error rate is
// drawn in the warning colour.
const DefaultErrorWarnShare = 0.02

// Options configure the dashboard. The zero value works: dark theme,
// colour on, no results path.
type Options struct {
	Theme   string // theme name (themes.Names), default themes.Default
	NoColor bool   // NO_COLOR: attributes only, no colour
	OutPath string // results file the run writes, shown at the end; may be ""

	Target   engine.Target   // header: provider, model, base URL
	Plan     engine.Plan     // levels and durations: "level k of n", remaining time
	Workload engine.Workload // header: request shape

	// SLO, when set, draws the bound on the plotted latency over time,
	// judges each level as it finishes (engine.SLO.Check) and adds goodput
	// and SLO columns to the summary. A replay uses the results' own SLO
	// when this is zero.
	SLO engine.SLO
	// Cost, when set, adds cost per request and per million output tokens
	// to the summary and, with an hourly price, the live cost per million
	// output tokens at the current throughput. A replay uses the results'
	// own prices when this is zero.
	Cost engine.Cost

	// ErrorWarnShare is the error share (0..1) past which the error rate
	// turns to the warning colour; 0 means DefaultErrorWarnShare.
	ErrorWarnShare float64
}

func (o Options) withDefaults() Options {
	if o.ErrorWarnShare <= 0 {
		o.ErrorWarnShare = DefaultErrorWarnShare
	}
	if o.Theme == "" {
		o.Theme = themes.Default
	}
	return o
}
