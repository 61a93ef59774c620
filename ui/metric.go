package ui

import "github.com/kneepoint/kneepoint/engine"

// metric is the latency plotted over time; `m` cycles it.
type metric int

const (
	metricE2E metric = iota
	metricTTFT
	metricITL
	metricCount
)

func (m metric) String() string {
	switch m {
	case metricTTFT:
		return "time to first token"
	case metricITL:
		return "inter-token latency"
	}
	return "end-to-end latency"
}

// title names the metric as a pane title.
func (m metric) title() string {
	switch m {
	case metricTTFT:
		return "Time to first token"
	case metricITL:
		return "Inter-token latency"
	}
	return "End-to-end latency"
}

// short is the metric's name in a table header or a tight title.
func (m metric) short() string {
	switch m {
	case metricTTFT:
		return "TTFT"
	case metricITL:
		return "ITL"
	}
	return "E2E"
}

func (m metric) next() metric { return (m + 1) % metricCount }

// of picks the metric's distribution from a snapshot.
func (m metric) of(s engine.Snapshot) engine.Dist {
	switch m {
	case metricTTFT:
		return s.TTFT
	case metricITL:
		return s.ITL
	}
	return s.Latency
}

// ofLevel picks the metric's distribution from a finished level.
func (m metric) ofLevel(l engine.LevelResult) engine.Dist {
	switch m {
	case metricTTFT:
		return l.TTFT
	case metricITL:
		return l.ITL
	}
	return l.Latency
}
