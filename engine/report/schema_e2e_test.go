package report_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/engine/report"
	"github.com/kneepoint/kneepoint/providers/sim"
)

// This external test package runs the real engine against the in-process
// simulator (importing providers is fine in a test, not in report itself)
// and checks that what the program writes validates against the committed
// schema and renders in every format.

// e2eRun is one short real run.
type e2eRun struct {
	name    string
	profile string
	plan    engine.Plan
	opts    []engine.Option
	// steer drives the run while it goes (nil: let it finish).
	steer func(run *engine.Run, ev engine.Event)
	check func(t *testing.T, res engine.Results)
}

func TestResultsFromRealRunsValidate(t *testing.T) {
	schema, err := os.ReadFile("../../docs/results.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	short := func(levels ...int) engine.Plan {
		p := engine.DefaultPlan()
		p.Levels, p.Warmup, p.Duration, p.Grace, p.StopAfterKnee = levels, 20*time.Millisecond, 300*time.Millisecond, 500*time.Millisecond, 0
		return p
	}
	runs := []e2eRun{
		{
			name: "slo-cost-warnings", profile: "soak-fast", plan: short(1, 8),
			opts: []engine.Option{
				engine.WithSLO(engine.SLO{TTFTP95Ms: 500, LatencyP95Ms: 1, AtConcurrency: 8}),
				engine.WithCost(engine.Cost{OutputPerMillion: 0.4, PerHour: 3.5, Currency: "USD"}),
				engine.WithWarnings("e2e: a harness warning"),
			},
			check: func(t *testing.T, res engine.Results) {
				if res.SLO == nil || res.SLOVerdict == nil || res.Cost == nil || len(res.Warnings) == 0 {
					t.Errorf("want SLO, verdict, cost and warnings in the results, got %+v %+v %+v %v", res.SLO, res.SLOVerdict, res.Cost, res.Warnings)
				}
			},
		},
		{
			name: "rate-limited", profile: "hosted-api", plan: short(32),
			check: func(t *testing.T, res engine.Results) {
				if len(res.Levels) == 0 || res.Levels[0].RateLimited == 0 {
					t.Errorf("want 429s from the hosted-api profile at c=32, got %+v", res.Levels)
				}
			},
		},
		{
			name: "manual-then-stopped", profile: "soak-fast", plan: short(2, 4, 8, 16),
			steer: func() func(*engine.Run, engine.Event) {
				steered := false
				return func(run *engine.Run, ev engine.Event) {
					if d, ok := ev.(engine.LevelDone); ok && !steered && d.Level.Source == engine.SourcePlan {
						steered = true
						run.SetConcurrency(3)
						time.AfterFunc(300*time.Millisecond, func() { run.Stop("e2e stop") })
					}
				}
			}(),
			check: func(t *testing.T, res engine.Results) {
				if !res.Partial {
					t.Errorf("a stopped run must be partial")
				}
				manual := false
				for _, l := range res.Levels {
					manual = manual || l.Source == engine.SourceManual
				}
				if !manual {
					t.Errorf("want a manual hold among the levels, got %+v", res.Levels)
				}
			},
		},
	}
	for _, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := runSim(t, tc)
			if tc.check != nil {
				tc.check(t, res)
			}
			var buf bytes.Buffer
			if err := report.JSON(res)(&buf); err != nil {
				t.Fatal(err)
			}
			if err := report.ValidateJSON(schema, buf.Bytes()); err != nil {
				t.Fatalf("the results file does not validate against docs/results.schema.json: %v\n%s", err, buf.Bytes())
			}
			back, err := engine.DecodeResults(tc.name, buf.Bytes())
			if err != nil {
				t.Fatalf("the results file does not read back: %v", err)
			}
			for _, path := range []string{"r.json", "r.md", "r.csv", "r.svg"} { // PNG: plot_test.go
				rep, err := report.ForPath(path, back)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := rep(&out); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if out.Len() == 0 {
					t.Errorf("%s: empty output", path)
				}
				if path == "r.svg" {
					dec := xml.NewDecoder(&out)
					for {
						if _, err := dec.Token(); err == io.EOF {
							break
						} else if err != nil {
							t.Fatalf("svg is not XML: %v", err)
						}
					}
				}
			}
		})
	}
}

func runSim(t *testing.T, tc e2eRun) engine.Results {
	t.Helper()
	prof, err := sim.LookupProfile(tc.profile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(prof, sim.WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	opts := append([]engine.Option{
		engine.WithTarget(s.Describe()), engine.WithSeed(7), engine.WithVersion("e2e"),
		engine.WithWorkload(engine.Workload{PromptTokens: 64, MaxTokens: 32, Stream: true}),
	}, tc.opts...)
	run := engine.New(s, tc.plan, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res *engine.Results
	for ev := range run.Start(ctx) {
		if tc.steer != nil {
			tc.steer(run, ev)
		}
		if f, ok := ev.(engine.Finished); ok {
			res = &f.Results
		}
	}
	if res == nil {
		t.Fatal("the run ended without a Finished event")
	}
	return *res
}
