package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/kneepoint/kneepoint/engine"
)

// fixture reads a committed results file (real simulator runs:
// results.json is the default sweep with SLOs and cost set,
// results-ratelimited.json the hosted-api profile hitting its 429s).
func fixture(t testing.TB, name string) engine.Results {
	t.Helper()
	res, err := engine.ReadResults("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func render(t testing.TB, r Reporter) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// variants are the fixture runs plus edge cases derived from them; the
// goldens under testdata/<Test>/<variant>.golden show every rendering.
func variants(t testing.TB) map[string]engine.Results {
	base := fixture(t, "results.json")

	noKnee := fixture(t, "results.json")
	noKnee.Knee, noKnee.KneeNote = nil, "throughput still rising at the last level (elasticity 0.52)"
	noKnee.Levels = noKnee.Levels[:6]
	noKnee.SLO, noKnee.SLOVerdict, noKnee.SLOMaxConcurrency, noKnee.Cost = nil, nil, 0, nil
	for i := range noKnee.Levels {
		l := &noKnee.Levels[i]
		l.SLOMet, l.SLOMisses, l.GoodRequests, l.GoodputRPS, l.GoodputTokPerS = nil, nil, 0, 0, 0
		l.CostPerMOutput, l.CostPerRequest = 0, 0
	}

	// A stopped run with a manual hold, estimated tokens, a secret-bearing
	// base URL and text that would break a Markdown table.
	stopped := fixture(t, "results.json")
	stopped.Partial, stopped.PartialReason = true, "interrupted (q)"
	stopped.Target = engine.Target{Provider: "openai", Model: "meta-llama/Llama-3.1-8B-Instruct",
		BaseURL: "https://user:hunter2@gw.example/v1?api-key=sk-secret"}
	stopped.Workload.Stream = false
	stopped.Warnings = []string{"client CPU 97% | results may understate the server", "GOMAXPROCS=2"}
	stopped.Levels = stopped.Levels[:3]
	manual := stopped.Levels[2]
	manual.Index, manual.Concurrency, manual.Source, manual.Complete = 3, 6, engine.SourceManual, false
	manual.TokensEstimated = true
	manual.Failed, manual.Requests = 3, manual.Requests+3
	manual.Errors = map[string]int64{"timeout": 2, "http_5xx": 1}
	manual.LastError = "http_5xx: 502 <html>Bad Gateway</html> | upstream"
	manual.Retries = 4
	stopped.Levels = append(stopped.Levels, manual)
	stopped.Knee = nil
	stopped.KneeNote = "; stopped: interrupted"
	stopped.SLOVerdict = &engine.SLOVerdict{AtConcurrency: 256, Note: "no planned level at c=256 was measured"}
	stopped.SLOMaxConcurrency = 0
	for i := range stopped.Levels {
		f := false
		stopped.Levels[i].SLOMet, stopped.Levels[i].SLOMisses = &f, []string{"TTFT p95 600.0 ms > 500.0 ms"}
	}

	empty := fixture(t, "results.json")
	empty.Levels, empty.Knee, empty.KneeNote, empty.Events = nil, nil, "no level completed", nil

	return map[string]engine.Results{
		"h200":        base,
		"ratelimited": fixture(t, "results-ratelimited.json"),
		"no-knee":     noKnee,
		"stopped":     stopped,
		"empty":       empty,
	}
}

func TestMarkdown(t *testing.T) {
	for name, res := range variants(t) {
		t.Run(name, func(t *testing.T) {
			out := render(t, Markdown(res))
			golden.RequireEqual(t, out)
			if bytes.Contains(out, []byte("hunter2")) || bytes.Contains(out, []byte("sk-secret")) {
				t.Error("the report leaks a credential from the base URL")
			}
		})
	}
}

func TestCSV(t *testing.T) {
	for name, res := range variants(t) {
		t.Run(name, func(t *testing.T) {
			golden.RequireEqual(t, render(t, CSV(res)))
		})
	}
}

// The summary states concurrency, prompt shape and tail latency together.
func TestSummary(t *testing.T) {
	v := variants(t)
	tests := []struct {
		variant string
		want    string
	}{
		{"h200", "At c=512 (150-token prompts, up to 128 output tokens) the endpoint peaks at 19,524 tok/s with p95 latency 3.6 s; past it throughput stops growing while p95 latency climbs."},
		{"ratelimited", "At c=4 (150-token prompts, up to 128 output tokens) the endpoint reaches 667 tok/s with p95 latency 737 ms; past it the endpoint answers with 429s (rate limited) instead of serving more (the highest throughput, 1,067 tok/s, came at c=16 with p95 latency 743 ms)."},
		{"no-knee", "Up to c=32 (150-token prompts, up to 128 output tokens) no knee was found: the endpoint peaks at 5,538 tok/s at c=32 with p95 latency 733 ms."},
		{"empty", "No planned level was measured (150-token prompts, up to 128 output tokens)."},
	}
	for _, tc := range tests {
		if got := Summary(v[tc.variant]); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.variant, got, tc.want)
		}
	}
}

func TestCSVShape(t *testing.T) {
	out := string(render(t, CSV(fixture(t, "results.json"))))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1+11 {
		t.Fatalf("want a header and 11 rows, got %d lines", len(lines))
	}
	cols := strings.Split(lines[0], ",")
	for _, want := range []string{"concurrency", "latency_p95_ms", "output_tokens_per_s", "ttft_p99_ms", "cost_per_million_output_tokens"} {
		found := false
		for _, c := range cols {
			found = found || c == want
		}
		if !found {
			t.Errorf("header lacks %s", want)
		}
	}
	for i, l := range lines {
		if n := len(strings.Split(l, ",")); n != len(cols) {
			t.Errorf("line %d has %d cells, header %d", i, n, len(cols))
		}
	}
}

func TestSafeURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"https://u:p@h/v1", "https://h/v1"},
		{"https://h/v1?key=abc", "https://h/v1"},
		{"://bad", "://bad"},
	}
	for _, tc := range tests {
		if got := safeURL(tc.in); got != tc.want {
			t.Errorf("safeURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatHelpers(t *testing.T) {
	tests := []struct{ got, want string }{
		{thousands(19524.4), "19,524"}, {thousands(999), "999"}, {thousands(1000), "1,000"}, {thousands(-1234567), "-1,234,567"},
		{human(0), "-"}, {human(7.38), "7.4 ms"}, {human(737), "737 ms"}, {human(3625), "3.6 s"}, {human(65000), "65 s"},
		{money(4.447), "4.45"}, {money(0.0000737), "0.0000737"}, {money(0), "-"}, {money(123.4), "123"},
		{num(1.23456, 3), "1.235"}, {num(-0.0001, 3), "0"},
		{seconds(78.6), "1m18s"}, {seconds(5), "5 s"}, {seconds(0.5), "0.5 s"},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("case %d: got %q, want %q", i, tc.got, tc.want)
		}
	}
}
