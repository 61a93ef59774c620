package ui

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
	"github.com/kneepoint/kneepoint/engine"
)

// tinyProvider streams four tokens a couple of milliseconds apart: enough
// for the real runner to measure something, quick enough for a test.
type tinyProvider struct{}

var _ engine.Provider = tinyProvider{}

func (tinyProvider) Do(ctx context.Context, req engine.Request, tr *engine.Trace) error {
	tr.Start(time.Now())
	for range 4 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		tr.Token(time.Now(), 1)
	}
	tr.Usage(req.PromptTokens, 4)
	return nil
}

// TestLiveSweepSteering runs the real engine against a scripted provider in
// a Bubble Tea test program: the header shows the planned concurrency,
// pressing + moves it up by one (a manual hold), q stops the run and the
// program quits once the engine has closed its channel.
func TestLiveSweepSteering(t *testing.T) {
	plan := engine.Plan{Levels: []int{2, 4}, Warmup: 100 * time.Millisecond, Duration: 20 * time.Second,
		Grace: 200 * time.Millisecond}
	run := engine.New(tinyProvider{}, plan,
		engine.WithWorkload(engine.Workload{PromptTokens: 16, MaxTokens: 4, Stream: true}),
		engine.WithSnapshotEvery(50*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := run.Start(ctx)

	opts := Options{Plan: plan, Target: engine.Target{Provider: "tiny", Model: "scripted"}}
	tm := teatest.NewTestModel(t, New(events, run, opts), teatest.WithInitialTermSize(120, 40))
	contains := func(s string) func([]byte) bool {
		return func(b []byte) bool { return bytes.Contains(b, []byte(s)) }
	}
	wait := teatest.WithDuration(10 * time.Second)

	teatest.WaitFor(t, tm.Output(), contains("target c 2"), wait)
	tm.Type("+")
	teatest.WaitFor(t, tm.Output(), contains("target c 3"), wait)
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))

	fm := tm.FinalModel(t).(Model)
	res, ok := fm.Results()
	if !ok {
		t.Fatal("the program quit without the run's results")
	}
	manual := false
	for _, c := range res.Events {
		if c.Source == engine.SourceManual && c.From == 2 && c.To == 3 {
			manual = true
		}
	}
	if !manual {
		t.Errorf("the results record no manual change 2 -> 3: %+v", res.Events)
	}
}
