// Package report renders results for people: the headless table, and (in
// other files) Markdown, CSV and plots. Reporters are func(io.Writer) error,
// as in vegeta, so they compose with files, buffers and stdout alike.
package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kneepoint/kneepoint/engine"
)

// Reporter writes one rendering of a run.
type Reporter func(io.Writer) error

// Shape is the one-line statement of what was measured: target, prompt
// shape and streaming. Every report starts with it, because a figure
// without its concurrency and prompt shape is an anecdote.
func Shape(res engine.Results) string {
	t := res.Target
	name := t.Provider
	if t.Profile != "" {
		name += " " + t.Profile
	}
	if t.Model != "" {
		name += " · " + t.Model
	}
	if t.BaseURL != "" {
		name += " @ " + t.BaseURL
	}
	mode := "streaming"
	if !res.Workload.Stream {
		mode = "non-streaming"
	}
	return fmt.Sprintf("%s · prompt %d tok, max output %d tok, %s", name, res.Workload.PromptTokens, res.Workload.MaxTokens, mode)
}

// KneeLine states the knee (or why there is none) in one line.
func KneeLine(res engine.Results) string {
	if res.Knee == nil {
		note := res.KneeNote
		if note == "" {
			note = "no knee"
		}
		return "knee: none — " + note
	}
	k := res.Knee
	return fmt.Sprintf("knee: c=%d (%s) — %s; best X²/C at c=%d", k.Concurrency, k.Cause, k.Reason, k.BestX2C)
}

// Table is the headless per-level table followed by the knee line.
func Table(res engine.Results) Reporter {
	return func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", Shape(res))
		if res.Partial {
			fmt.Fprintf(&b, "PARTIAL RESULTS: %s\n", res.PartialReason)
		}
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "conc\tsrc\treqs\tok\t429\terrors\tp50 ms\tp95 ms\tp99 ms\tTTFT p50\tTTFT p95\tITL p50\ttok/s\treq/s\tin-flight\t")
		for _, l := range res.Levels {
			src := "plan"
			if l.Source != engine.SourcePlan {
				src = l.Source
			}
			if !l.Complete {
				src += "*"
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.2f\t%.1f\t\n",
				l.Concurrency, src, l.Requests, l.Succeeded, l.RateLimited, l.Failed-l.RateLimited,
				ms(l.Latency.P50), ms(l.Latency.P95), ms(l.Latency.P99),
				ms(l.TTFT.P50), ms(l.TTFT.P95), ms(l.ITL.P50),
				l.OutputTokPerS, l.RequestsPerS, l.MeanInFlight)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		b.WriteString("\n" + KneeLine(res) + "\n")
		for _, wn := range res.Warnings {
			b.WriteString("warning: " + wn + "\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
}

// ms formats milliseconds with sensible precision; "-" when unmeasured.
func ms(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
