package ui

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
)

// ErrNoResults is returned by Run when the engine closed its channel, or
// did not finish in time after the dashboard was quit, without results.
var ErrNoResults = errors.New("the run ended without results")

// drainSlack is added to the plan's grace period when Run waits for the
// engine's Finished event after the dashboard was quit early.
const drainSlack = 5 * time.Second

// Run shows the dashboard in the alternate screen until the user quits and
// returns the run's results. The terminal is restored on every path: a
// panic while rendering is recovered, the program quits cleanly and Run
// returns it as a *PanicError (with the stack) for the caller to print;
// Bubble Tea itself restores the terminal after a panic anywhere else.
//
// When the dashboard is quit before the run finished (a second q, or ctx
// cancelled), Run stops the run and waits up to the plan's grace period
// plus a few seconds for the engine to finish, so the results can still be
// written; results that arrived are returned even with an error. Run reads
// the event channel to its end: the caller must not read it afterwards.
// progOpts are appended to the defaults (alt screen, ctx).
func Run(ctx context.Context, events <-chan engine.Event, ctl engine.Controller, opts Options, progOpts ...tea.ProgramOption) (res engine.Results, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	r := newRelay(events)
	return runProgram(ctx, New(r.out, ctl, opts), r, ctl, opts.Plan.Grace, progOpts...)
}

// runProgram runs m as a Bubble Tea program and collects the results.
func runProgram(ctx context.Context, m Model, r *relay, ctl engine.Controller, grace time.Duration, progOpts ...tea.ProgramOption) (engine.Results, error) {
	po := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}, progOpts...)
	final, runErr := tea.NewProgram(m, po...).Run()
	r.detach()
	if fm, ok := final.(Model); ok {
		if fm.err != nil {
			runErr = errors.Join(fm.err, runErr)
		}
		if res, ok := fm.Results(); ok {
			return res, runErr
		}
	}
	if ctl != nil {
		ctl.Stop("dashboard closed") // harmless when the run is already over
	}
	if res, ok := r.wait(grace + drainSlack); ok {
		return res, runErr
	}
	if runErr == nil {
		runErr = ErrNoResults
	}
	return engine.Results{}, runErr
}

// relay forwards the engine's events to the dashboard and remembers the
// Finished event, so that after the program has exited the rest of the
// channel can still be drained for the results without racing the
// dashboard's last pending read.
type relay struct {
	out      chan engine.Event
	gone     chan struct{} // closed when the dashboard stops reading
	finished chan struct{} // closed when the engine's channel is closed
	once     sync.Once

	mu  sync.Mutex
	res *engine.Results
}

func newRelay(in <-chan engine.Event) *relay {
	r := &relay{out: make(chan engine.Event), gone: make(chan struct{}), finished: make(chan struct{})}
	if in == nil {
		close(r.out)
		close(r.finished)
		return r
	}
	go func() {
		defer close(r.finished)
		defer close(r.out)
		for ev := range in {
			if f, ok := ev.(engine.Finished); ok {
				r.mu.Lock()
				res := f.Results
				r.res = &res
				r.mu.Unlock()
			}
			select {
			case r.out <- ev:
			case <-r.gone:
			}
		}
	}()
	return r
}

// detach tells the relay the dashboard no longer reads.
func (r *relay) detach() { r.once.Do(func() { close(r.gone) }) }

// wait waits up to d for the engine to close its channel and returns the
// Finished results if they arrived.
func (r *relay) wait(d time.Duration) (engine.Results, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.finished:
	case <-t.C:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res == nil {
		return engine.Results{}, false
	}
	return *r.res, true
}

// RunReplay shows a recorded run (see NewReplay) in the alternate screen
// until the user quits. Nothing is sent; a render panic is returned as a
// *PanicError after the terminal has been restored.
func RunReplay(ctx context.Context, res engine.Results, opts Options, progOpts ...tea.ProgramOption) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	po := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx)}, progOpts...)
	final, err := tea.NewProgram(NewReplay(res, opts), po...).Run()
	if fm, ok := final.(Model); ok && fm.err != nil {
		err = errors.Join(fm.err, err)
	}
	return err
}
