package report

import (
	"fmt"
	"github.com/kneepoint/kneepoint/engine"
	"math"
	"slices"
	"strconv"
	"strings"
)

// planned returns the levels the sweep plan chose, sorted by concurrency:
// the curve a reader compares across runs. Manual holds are left out
// because they are not part of the sweep's shape.
func planned(res engine.Results) []engine.LevelResult {
	var out []engine.LevelResult
	for _, l := range res.Levels {
		if l.Source == engine.SourcePlan && l.Concurrency > 0 {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b engine.LevelResult) int { return a.Concurrency - b.Concurrency })
	return out
}

// peak is the planned level with the highest output throughput.
func peak(levels []engine.LevelResult) (engine.LevelResult, bool) {
	if len(levels) == 0 {
		return engine.LevelResult{}, false
	}
	best := levels[0]
	for _, l := range levels[1:] {
		if l.OutputTokPerS > best.OutputTokPerS {
			best = l
		}
	}
	return best, true
}

// kneeLevel is the level the knee points at, when it points anywhere valid.
func kneeLevel(res engine.Results) (engine.LevelResult, bool) {
	if res.Knee == nil || res.Knee.Level < 0 || res.Knee.Level >= len(res.Levels) {
		return engine.LevelResult{}, false
	}
	return res.Levels[res.Knee.Level], true
}

// kneeNote is the engine's note on the knee, without the separator it may
// lead with when it only carries a stop reason.
func kneeNote(res engine.Results) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(res.KneeNote), ";"))
}

// shapePhrase is the prompt shape in words: "150-token prompts, up to 128
// output tokens" (plus "non-streaming" or the prompt file's description).
func shapePhrase(w engine.Workload) string {
	s := fmt.Sprintf("%d-token prompts, up to %d output tokens", w.PromptTokens, w.MaxTokens)
	if w.Description != "" {
		s = fmt.Sprintf("%s, up to %d output tokens", w.Description, w.MaxTokens)
	}
	if !w.Stream {
		s += ", non-streaming"
	}
	return s
}

// targetName is the target in a few words: provider, profile and model.
func targetName(t engine.Target) string {
	name := t.Provider
	if t.Profile != "" {
		name += " " + t.Profile
	}
	if t.Model != "" {
		if name != "" {
			name += " · "
		}
		name += t.Model
	}
	if name == "" {
		name = "unknown target"
	}
	return name
}

// safeURL keeps a key out of reports even if a provider slipped one into
// engine.Target.
func safeURL(raw string) string { return engine.RedactURL(raw) }

// human formats milliseconds for prose: "737 ms", "3.6 s".
func human(msv float64) string {
	switch {
	case msv <= 0:
		return "-"
	case msv < 10:
		return fmt.Sprintf("%.1f ms", msv)
	case msv < 1000:
		return fmt.Sprintf("%.0f ms", msv)
	case msv < 10000:
		return fmt.Sprintf("%.1f s", msv/1000)
	}
	return fmt.Sprintf("%.0f s", msv/1000)
}

// seconds formats a duration in seconds for prose: "5 s", "1.5 s", "1m19s".
func seconds(s float64) string {
	if s >= 60 {
		m := math.Floor(s / 60)
		return fmt.Sprintf("%.0fm%02.0fs", m, math.Floor(s-60*m))
	}
	return strconv.FormatFloat(round(s, 2), 'f', -1, 64) + " s"
}

// thousands formats a number rounded to an integer with comma separators.
func thousands(v float64) string { return Thousands(int64(math.Round(v))) }

// Thousands writes n with comma separators: 12,345. The dashboard uses it
// too, so screen and report print figures alike.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// round rounds v to n decimal places.
func round(v float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(v*p) / p
}

// num formats a machine-readable number: rounded to n places, no
// trailing zeros, no exponent.
func num(v float64, n int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	r := round(v, n)
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// money formats a cost to three significant digits without an exponent,
// so fractions of a cent stay readable: "4.45", "0.000737".
func money(v float64) string {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(v))))
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// levelList formats concurrency levels: "1, 2, 4, 8".
func levelList(levels []int) string {
	parts := make([]string, len(levels))
	for i, c := range levels {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ", ")
}
