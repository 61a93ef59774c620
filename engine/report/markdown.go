package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// Markdown is the shareable report of a run: a one-sentence summary that
// states concurrency, prompt shape and tail latency together, the settings,
// the per-level table, the knee, SLO verdicts, errors by class and harness
// warnings. It renders on GitHub, in issues and in chat.
func Markdown(res engine.Results) Reporter {
	return func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "# kneepoint: %s\n\n", md(targetName(res.Target)))
		b.WriteString(md(Summary(res)) + "\n")
		if res.Partial {
			fmt.Fprintf(&b, "\n> **Partial results:** %s\n", md(orDash(res.PartialReason)))
		}
		mdSettings(&b, res)
		mdLevels(&b, res)
		mdKnee(&b, res)
		mdSLO(&b, res)
		mdErrors(&b, res)
		mdHarness(&b, res)
		_, err := io.WriteString(w, b.String())
		return err
	}
}

// Summary is the report's first sentence: where the endpoint saturates,
// at which prompt shape, with what tail latency, and what happens past it.
func Summary(res engine.Results) string {
	levels := planned(res)
	shape := shapePhrase(res.Workload)
	top, ok := peak(levels)
	if !ok {
		return fmt.Sprintf("No planned level was measured (%s).", shape)
	}
	if k, ok := kneeLevel(res); ok {
		verb := "reaches"
		if k.OutputTokPerS >= 0.99*top.OutputTokPerS {
			verb = "peaks at"
		}
		s := fmt.Sprintf("At c=%d (%s) the endpoint %s %s tok/s with p95 latency %s; past it %s",
			k.Concurrency, shape, verb, thousands(k.OutputTokPerS), human(k.Latency.P95), pastKnee(res.Knee.Cause))
		if verb == "reaches" {
			s += fmt.Sprintf(" (the highest throughput, %s tok/s, came at c=%d with p95 latency %s)",
				thousands(top.OutputTokPerS), top.Concurrency, human(top.Latency.P95))
		}
		return s + "."
	}
	last := levels[len(levels)-1]
	return fmt.Sprintf("Up to c=%d (%s) no knee was found: the endpoint peaks at %s tok/s at c=%d with p95 latency %s.",
		last.Concurrency, shape, thousands(top.OutputTokPerS), top.Concurrency, human(top.Latency.P95))
}

// pastKnee says what happens beyond a knee of the given cause.
func pastKnee(cause string) string {
	switch cause {
	case "capacity":
		return "throughput stops growing while p95 latency climbs"
	case "rate_limit":
		return "the endpoint answers with 429s (rate limited) instead of serving more"
	case "errors":
		return "requests start failing"
	}
	return "the knee rule fired (" + cause + ")"
}

func mdSettings(b *strings.Builder, res engine.Results) {
	b.WriteString("\n## Settings\n\n| Setting | Value |\n| --- | --- |\n")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, md(v)) }
	t := res.Target
	row("Target", targetName(t))
	row("Provider", orDash(t.Provider))
	if t.Profile != "" {
		row("Simulator profile", t.Profile)
	}
	row("Model", orDash(t.Model))
	if t.BaseURL != "" {
		row("Base URL", safeURL(t.BaseURL))
	}
	wl := res.Workload
	if wl.Description != "" {
		row("Prompts", wl.Description)
	} else {
		row("Prompt tokens", fmt.Sprint(wl.PromptTokens))
	}
	row("Max output tokens", fmt.Sprint(wl.MaxTokens))
	row("Streaming", yesNo(wl.Stream))
	if wl.ThinkTimeMs > 0 {
		row("Think time", fmt.Sprintf("%d ms", wl.ThinkTimeMs))
	} else {
		row("Think time", "0 (closed loop)")
	}
	p := res.Plan
	row("Levels", levelList(p.Levels))
	row("Warmup per level", seconds(p.WarmupS))
	if p.RequestsPerLevel > 0 {
		row("Measurement window", fmt.Sprintf("%d requests per level", p.RequestsPerLevel))
	} else {
		row("Measurement window", seconds(p.DurationS)+" per level")
	}
	if p.StopAfterKnee > 0 {
		row("Stop after knee", fmt.Sprintf("%d level(s) past it", p.StopAfterKnee))
	} else {
		row("Stop after knee", "no (whole plan)")
	}
	if p.MaxErrorShare > 0 {
		row("Max error share", fmt.Sprintf("%g%%", round(100*p.MaxErrorShare, 2)))
	}
	row("Seed", fmt.Sprint(res.Seed))
	row("kneepoint version", orDash(res.Version))
	if !res.StartedAt.IsZero() {
		row("Started at", res.StartedAt.UTC().Format(time.RFC3339))
	}
	row("Duration", seconds(res.DurationS))
	if res.Partial {
		row("Partial", "yes: "+orDash(res.PartialReason))
	} else {
		row("Partial", "no")
	}
}

func mdLevels(b *strings.Builder, res engine.Results) {
	b.WriteString("\n## Levels\n\n")
	if len(res.Levels) == 0 {
		b.WriteString("No level was measured.\n")
		return
	}
	hasSLO := res.SLO != nil
	hasCost := res.Cost != nil && !res.Cost.IsZero()
	cur := ""
	if hasCost && res.Cost.Currency != "" {
		cur = " (" + res.Cost.Currency + ")"
	}
	head := []string{"c", "source", "requests", "ok", "429", "errors",
		"p50 ms", "p95 ms", "p99 ms", "TTFT p50 ms", "TTFT p95 ms", "TTFT p99 ms",
		"ITL p50 ms", "ITL p95 ms", "TPOT p50 ms", "output tok/s", "req/s", "in-flight (Little)"}
	if hasSLO {
		head = append(head, "goodput req/s", "goodput tok/s")
	}
	if hasCost {
		head = append(head, "cost/M output tok"+cur, "cost/request"+cur)
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i == 1 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	var cut, estimated bool
	for i, l := range res.Levels {
		conc := fmt.Sprint(l.Concurrency)
		if res.Knee != nil && res.Knee.Level == i {
			conc = "**" + conc + "** knee"
		}
		src := l.Source
		if !l.Complete {
			src += "*"
			cut = true
		}
		tok := fmt.Sprintf("%.0f", l.OutputTokPerS)
		if l.TokensEstimated {
			tok = "~" + tok
			estimated = true
		}
		cells := []string{conc, md(src), fmt.Sprint(l.Requests), fmt.Sprint(l.Succeeded),
			fmt.Sprint(l.RateLimited), fmt.Sprint(l.Failed - l.RateLimited),
			ms(l.Latency.P50), ms(l.Latency.P95), ms(l.Latency.P99),
			ms(l.TTFT.P50), ms(l.TTFT.P95), ms(l.TTFT.P99),
			ms(l.ITL.P50), ms(l.ITL.P95), ms(l.TPOT.P50),
			tok, fmt.Sprintf("%.2f", l.RequestsPerS),
			fmt.Sprintf("%.1f (%.1f)", l.MeanInFlight, l.LittleInFlight)}
		if hasSLO {
			cells = append(cells, fmt.Sprintf("%.2f", l.GoodputRPS), fmt.Sprintf("%.0f", l.GoodputTokPerS))
		}
		if hasCost {
			cells = append(cells, money(l.CostPerMOutput), money(l.CostPerRequest))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\nLatencies are end-to-end to the last token; TTFT to the first token-bearing chunk; " +
		"ITL pools every gap between chunks; TPOT is (E2E−TTFT)/(tokens−1) per request. " +
		"Only successful requests count. In-flight is the time-weighted mean, Little's law (throughput × latency) in brackets.\n")
	if cut {
		b.WriteString("\n\\* measurement window cut short (key press or stop).\n")
	}
	if estimated {
		b.WriteString("\n~ output tokens partly counted from chunks, not server usage.\n")
	}
}

func mdKnee(b *strings.Builder, res engine.Results) {
	b.WriteString("\n## Knee\n\n")
	note := kneeNote(res)
	k := res.Knee
	if k == nil {
		fmt.Fprintf(b, "No knee: %s.\n", md(strings.TrimSuffix(orDefault(note, "none detected"), ".")))
		return
	}
	fmt.Fprintf(b, "**c=%d** — cause: %s (trigger: %s): %s.\n", k.Concurrency, md(k.Cause), md(k.Trigger),
		md(strings.TrimSuffix(k.Reason, ".")))
	if k.BestX2C > 0 {
		fmt.Fprintf(b, "\nBest X²/C (throughput² / concurrency, the power-style operating point): **c=%d**.\n", k.BestX2C)
	}
	if note != "" {
		fmt.Fprintf(b, "\nNote: %s.\n", md(strings.TrimSuffix(note, ".")))
	}
}

func mdSLO(b *strings.Builder, res engine.Results) {
	if res.SLO == nil {
		return
	}
	s := *res.SLO
	b.WriteString("\n## SLOs\n\n")
	var obj []string
	bound := func(name string, v float64) {
		if v > 0 {
			obj = append(obj, fmt.Sprintf("%s ≤ %s", name, human(v)))
		}
	}
	bound("TTFT p95", s.TTFTP95Ms)
	bound("TTFT p99", s.TTFTP99Ms)
	bound("TPOT p95", s.TPOTP95Ms)
	bound("TPOT p99", s.TPOTP99Ms)
	bound("ITL p95", s.ITLP95Ms)
	bound("ITL p99", s.ITLP99Ms)
	bound("latency p95", s.LatencyP95Ms)
	bound("latency p99", s.LatencyP99Ms)
	if s.MaxErrorShare > 0 {
		obj = append(obj, fmt.Sprintf("error share ≤ %g%%", round(100*s.MaxErrorShare, 2)))
	}
	fmt.Fprintf(b, "Objectives: %s.\n\n", strings.Join(obj, ", "))
	if len(res.Levels) == 0 {
		b.WriteString("No level was measured.\n")
	} else {
		b.WriteString("| c | source | met | misses |\n| ---: | --- | --- | --- |\n")
	}
	for _, l := range res.Levels {
		met := "-"
		if l.SLOMet != nil {
			met = yesNo(*l.SLOMet)
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s |\n", l.Concurrency, md(l.Source), met, md(strings.Join(l.SLOMisses, "; ")))
	}
	if res.SLOMaxConcurrency > 0 {
		fmt.Fprintf(b, "\nHighest planned concurrency meeting every SLO: **c=%d**.\n", res.SLOMaxConcurrency)
	} else {
		b.WriteString("\nNo planned level met every SLO.\n")
	}
	if v := res.SLOVerdict; v != nil {
		switch {
		case v.Note != "":
			fmt.Fprintf(b, "\n--fail-on-slo at c=%d: **not met** — %s.\n", v.AtConcurrency, md(v.Note))
		case v.Met:
			fmt.Fprintf(b, "\n--fail-on-slo at c=%d: **met**.\n", v.AtConcurrency)
		default:
			fmt.Fprintf(b, "\n--fail-on-slo at c=%d: **not met** — %s.\n", v.AtConcurrency, md(strings.Join(v.Misses, "; ")))
		}
	}
}

func mdErrors(b *strings.Builder, res engine.Results) {
	b.WriteString("\n## Errors\n\n")
	total := map[string]int64{}
	where := map[string][]string{}
	var retries int64
	for _, l := range res.Levels {
		retries += l.Retries
		for _, class := range sortedKeys(l.Errors) {
			n := l.Errors[class]
			if n == 0 {
				continue
			}
			total[class] += n
			where[class] = append(where[class], fmt.Sprintf("c=%d: %d", l.Concurrency, n))
		}
	}
	if len(total) == 0 {
		b.WriteString("No failed requests.\n")
	} else {
		b.WriteString("| class | failed | by level |\n| --- | ---: | --- |\n")
		for _, class := range sortedKeys(total) {
			fmt.Fprintf(b, "| %s | %d | %s |\n", md(class), total[class], strings.Join(where[class], ", "))
		}
		b.WriteString("\nLast error seen per level:\n\n")
		for _, l := range res.Levels {
			if l.LastError != "" {
				fmt.Fprintf(b, "- c=%d: %s\n", l.Concurrency, mdInline(l.LastError))
			}
		}
	}
	if retries > 0 {
		fmt.Fprintf(b, "\n%d retries; retried requests' latency is reported apart from single-attempt latency.\n", retries)
	}
}

func mdHarness(b *strings.Builder, res engine.Results) {
	b.WriteString("\n## Harness\n\n")
	var lagC int
	var lag float64
	for _, l := range res.Levels {
		if l.DispatchLagMs > lag {
			lag, lagC = l.DispatchLagMs, l.Concurrency
		}
	}
	switch {
	case lag >= 0.1:
		fmt.Fprintf(b, "Dispatch lag p99 (how late requests left after a worker was free) peaked at %s (c=%d).\n\n", human(lag), lagC)
	case len(res.Levels) > 0:
		b.WriteString("Dispatch lag p99 (how late requests left after a worker was free) stayed under 0.1 ms.\n\n")
	}
	if len(res.Warnings) == 0 {
		b.WriteString("No harness warnings.\n")
		return
	}
	b.WriteString("Warnings:\n\n")
	for _, wn := range res.Warnings {
		b.WriteString("- " + mdInline(wn) + "\n")
	}
}

// md escapes text for a Markdown table cell or paragraph: pipes, and
// newlines that would break a row.
func md(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}

// mdInline is md for free text such as server error messages, which may
// hold Markdown-active characters.
func mdInline(s string) string {
	r := strings.NewReplacer("*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`)
	return md(r.Replace(s))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func orDash(s string) string { return orDefault(s, "-") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
