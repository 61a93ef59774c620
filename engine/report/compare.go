package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kneepoint/kneepoint/engine"
)

// Compare is a Markdown comparison of runs: one row per planned
// concurrency level present in any run, each run's throughput and p95
// latency, and each run's ratio to the first run at that level. names label
// the runs (missing or empty names become "run N").
func Compare(runs []engine.Results, names []string) Reporter {
	return func(w io.Writer) error {
		if len(runs) == 0 {
			return errors.New("compare: no runs")
		}
		names = runNames(runs, names)
		var b strings.Builder
		fmt.Fprintf(&b, "# kneepoint comparison: %s\n\n", md(joinNames(names)))
		if !sameShape(runs) {
			b.WriteString("> **Prompt shapes differ between runs**: the ratios compare different workloads.\n\n")
		}
		b.WriteString("| run | target | shape | knee | peak output tok/s | p95 at peak |\n| --- | --- | --- | --- | ---: | ---: |\n")
		for i, r := range runs {
			knee := "none"
			if r.Knee != nil {
				knee = fmt.Sprintf("c=%d (%s)", r.Knee.Concurrency, r.Knee.Cause)
			}
			tok, p95 := "-", "-"
			if p, ok := peak(planned(r)); ok {
				tok, p95 = fmt.Sprintf("%s at c=%d", thousands(p.OutputTokPerS), p.Concurrency), human(p.Latency.P95)
			}
			partial := ""
			if r.Partial {
				partial = " (partial)"
			}
			fmt.Fprintf(&b, "| %s%s | %s | %s | %s | %s | %s |\n", md(names[i]), partial, md(targetName(r.Target)),
				md(shapePhrase(r.Workload)), knee, tok, p95)
		}

		b.WriteString("\n| c |")
		align := "| ---: |"
		for i, n := range names {
			fmt.Fprintf(&b, " %s tok/s | %s p95 ms |", md(n), md(n))
			align += " ---: | ---: |"
			if i > 0 {
				fmt.Fprintf(&b, " %s/%s tok/s | %s/%s p95 |", md(n), md(names[0]), md(n), md(names[0]))
				align += " ---: | ---: |"
			}
		}
		b.WriteString("\n" + align + "\n")
		byRun := levelMaps(runs)
		for _, c := range unionConcurrency(runs) {
			fmt.Fprintf(&b, "| %d |", c)
			first, hasFirst := byRun[0][c]
			for i := range runs {
				l, ok := byRun[i][c]
				if !ok {
					b.WriteString(" - | - |")
				} else {
					fmt.Fprintf(&b, " %.0f | %s |", l.OutputTokPerS, ms(l.Latency.P95))
				}
				if i > 0 {
					if ok && hasFirst {
						fmt.Fprintf(&b, " %s | %s |", ratio(l.OutputTokPerS, first.OutputTokPerS), ratio(l.Latency.P95, first.Latency.P95))
					} else {
						b.WriteString(" - | - |")
					}
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\nRatios are each run over the first at the same concurrency: above 1 means more throughput, or more latency.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
}

// CompareCSV is the comparison in long (tidy) form: one row per run and
// planned level, with the ratios to the first run at that concurrency
// (empty when the first run did not measure it).
func CompareCSV(runs []engine.Results, names []string) Reporter {
	return func(w io.Writer) error {
		if len(runs) == 0 {
			return errors.New("compare: no runs")
		}
		names = runNames(runs, names)
		cw := csv.NewWriter(w)
		if err := cw.Write([]string{"run", "concurrency", "knee", "output_tokens_per_s", "latency_p50_ms", "latency_p95_ms",
			"ttft_p95_ms", "error_share", "output_tokens_per_s_ratio", "latency_p95_ratio"}); err != nil {
			return err
		}
		byRun := levelMaps(runs)
		for i, r := range runs {
			for _, l := range planned(r) {
				if byRun[i][l.Concurrency].Index != l.Index {
					continue // a repeated level: the first measurement speaks for it
				}
				tokRatio, latRatio := "", ""
				if first, ok := byRun[0][l.Concurrency]; ok {
					tokRatio, latRatio = ratioNum(l.OutputTokPerS, first.OutputTokPerS), ratioNum(l.Latency.P95, first.Latency.P95)
				}
				knee := r.Knee != nil && r.Knee.Concurrency == l.Concurrency
				if err := cw.Write([]string{names[i], strconv.Itoa(l.Concurrency), strconv.FormatBool(knee),
					num(l.OutputTokPerS, 3), num(l.Latency.P50, 3), num(l.Latency.P95, 3), num(l.TTFT.P95, 3),
					num(l.ErrorShare(), 6), tokRatio, latRatio}); err != nil {
					return err
				}
			}
		}
		cw.Flush()
		return cw.Error()
	}
}

// runNames fills in missing names with "run N".
func runNames(runs []engine.Results, names []string) []string {
	out := make([]string, len(runs))
	for i := range runs {
		if i < len(names) && strings.TrimSpace(names[i]) != "" {
			out[i] = names[i]
		} else {
			out[i] = fmt.Sprintf("run %d", i+1)
		}
	}
	return out
}

func joinNames(names []string) string { return strings.Join(names, " vs ") }

// sameShape reports whether every run asked for the same prompt shape.
func sameShape(runs []engine.Results) bool {
	for _, r := range runs[1:] {
		if r.Workload != runs[0].Workload {
			return false
		}
	}
	return true
}

// levelMaps indexes each run's planned levels by concurrency, keeping the
// first measurement of a repeated level.
func levelMaps(runs []engine.Results) []map[int]engine.LevelResult {
	out := make([]map[int]engine.LevelResult, len(runs))
	for i, r := range runs {
		out[i] = map[int]engine.LevelResult{}
		for _, l := range planned(r) {
			if _, dup := out[i][l.Concurrency]; !dup {
				out[i][l.Concurrency] = l
			}
		}
	}
	return out
}

// unionConcurrency is every planned concurrency measured by any run, sorted.
func unionConcurrency(runs []engine.Results) []int {
	var cs []int
	for _, r := range runs {
		for _, l := range planned(r) {
			cs = append(cs, l.Concurrency)
		}
	}
	slices.Sort(cs)
	return slices.Compact(cs)
}

// ratio formats a/b for people ("×1.23"); "-" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("×%.2f", a/b)
}

// ratioNum formats a/b for machines; empty when b is 0.
func ratioNum(a, b float64) string {
	if b == 0 {
		return ""
	}
	return num(a/b, 4)
}
