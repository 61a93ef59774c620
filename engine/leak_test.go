package engine

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestNoGoroutineLeak: after a run ends, stopped or finished, every worker,
// timer and publisher goroutine is gone.
func TestNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		p := &scripted{ttft: 2 * time.Millisecond, gap: time.Millisecond, tokens: 3}
		run := New(p, fastPlan(1, 8, 32), WithSnapshotEvery(10*time.Millisecond))
		ch := run.Start(context.Background())
		if i == 1 {
			waitFor(t, ch, func(s Snapshot) bool { return s.Target == 8 })
			run.Stop("test")
		}
		if i == 2 {
			waitFor(t, ch, func(s Snapshot) bool { return s.Target == 8 })
			run.TogglePause()
			run.Stop("test")
		}
		drain(ch)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after runs, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}
