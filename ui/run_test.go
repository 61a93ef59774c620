package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
)

// quietIO runs a program without a terminal.
func quietIO(in string) []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithInput(strings.NewReader(in)), tea.WithOutput(io.Discard), tea.WithoutSignalHandler()}
}

// scripted publishes evs on a fresh channel and closes it; gate, when not
// nil, holds the events back until it is closed.
func scripted(evs []engine.Event, gate <-chan struct{}) <-chan engine.Event {
	ch := make(chan engine.Event)
	go func() {
		defer close(ch)
		if gate != nil {
			<-gate
		}
		for _, ev := range evs {
			ch <- ev
		}
	}()
	return ch
}

func TestRunReturnsResultsAfterStop(t *testing.T) {
	ctl := &fakeCtl{}
	res, err := Run(context.Background(), scripted(script(3, false, true), nil), ctl, scriptOpts, quietIO("q")...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Levels) != 3 {
		t.Errorf("got %d levels, want 3", len(res.Levels))
	}
}

func TestRunRecoversARenderPanic(t *testing.T) {
	gate := make(chan struct{})
	r := newRelay(scripted(script(2, false, true), gate))
	m := New(r.out, &fakeCtl{}, scriptOpts)
	armed := false
	m.beforeRender = func() {
		if armed {
			panic("boom")
		}
		armed = true // the first render (the window size) works
	}
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = runProgram(context.Background(), m, r, nil, 0, quietIO("")...)
	}()
	close(gate)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after a render panic")
	}
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Fatalf("err = %v, want a PanicError for boom with a stack", err)
	}
}

func TestRunCancelledStopsTheRun(t *testing.T) {
	ctl := &fakeCtl{}
	ctx, cancel := context.WithCancel(context.Background())
	gate := make(chan struct{})
	// The engine publishes its results only after Stop.
	go func() {
		for len(ctl.Calls()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		close(gate)
	}()
	time.AfterFunc(50*time.Millisecond, cancel)
	res, err := Run(ctx, scripted(script(2, false, true), gate), ctl, scriptOpts, quietIO("")...)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(res.Levels) != 2 {
		t.Errorf("results after cancel: %d levels, want 2", len(res.Levels))
	}
	if got := ctl.Calls(); len(got) == 0 || got[0] != "Stop" {
		t.Errorf("calls %v, want Stop", got)
	}
}

func TestRunWithoutResults(t *testing.T) {
	ch := make(chan engine.Event)
	close(ch)
	_, err := Run(context.Background(), ch, nil, Options{}, quietIO("q")...)
	if !errors.Is(err, ErrNoResults) {
		t.Errorf("err = %v, want ErrNoResults", err)
	}
}

func TestRunReplayQuits(t *testing.T) {
	done := feed(New(nil, nil, scriptOpts), script(3, false, true)...)
	if err := RunReplay(context.Background(), *done.results, Options{}, quietIO("q")...); err != nil {
		t.Fatalf("RunReplay: %v", err)
	}
}
