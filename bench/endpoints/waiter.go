package main

import (
	"runtime"
	"sync"
	"syscall"
	"time"
)

// waiter holds a handler until a deadline.
type waiter interface{ until(t time.Time) }

// newWaiter returns the precise waiter.
//
// Why not time.Sleep: Go's scheduler waits for timers in epoll_wait, whose
// timeout is whole milliseconds, so on a quiet process a sleep ends up to
// about 1 ms late. That is the very size of the client-added latency the
// delay mode is meant to expose, so the endpoint must not add it itself.
// One dedicated OS thread sleeps with nanosleep (microsecond precision)
// until the earliest deadline and releases the handlers that are due.
func newWaiter() waiter {
	w := &preciseWaiter{kick: make(chan struct{}, 1)}
	go w.loop()
	return w
}

// sleepWaiter is time.Sleep, kept for comparison (-precise=false).
type sleepWaiter struct{}

func (sleepWaiter) until(t time.Time) { time.Sleep(time.Until(t)) }

type pending struct {
	at   time.Time
	done chan struct{}
}

// preciseWaiter keeps deadlines in order. With one fixed delay they arrive
// almost in order, so insertion from the back is nearly always an append.
type preciseWaiter struct {
	mu   sync.Mutex
	q    []pending // q[head:] are waiting, sorted by at
	head int
	kick chan struct{}
}

func (w *preciseWaiter) until(t time.Time) {
	if !time.Now().Before(t) {
		return
	}
	done := make(chan struct{})
	w.mu.Lock()
	w.q = append(w.q, pending{at: t, done: done})
	for i := len(w.q) - 1; i > w.head && w.q[i].at.Before(w.q[i-1].at); i-- {
		w.q[i], w.q[i-1] = w.q[i-1], w.q[i]
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	<-done
}

// loop runs on its own OS thread for the life of the process.
func (w *preciseWaiter) loop() {
	runtime.LockOSThread()
	for {
		w.mu.Lock()
		if w.head == len(w.q) {
			w.q, w.head = w.q[:0], 0
			w.mu.Unlock()
			<-w.kick
			continue
		}
		next := w.q[w.head].at
		w.mu.Unlock()
		if d := time.Until(next); d > 0 {
			// A later arrival never has an earlier deadline than next
			// (fixed delay), so the sleep need not be interruptible; cap
			// it anyway so an odd deadline is picked up within 10 ms.
			ts := syscall.NsecToTimespec(int64(min(d, 10*time.Millisecond)))
			syscall.Nanosleep(&ts, nil)
			continue
		}
		now := time.Now()
		w.mu.Lock()
		for w.head < len(w.q) && !now.Before(w.q[w.head].at) {
			close(w.q[w.head].done)
			w.q[w.head] = pending{}
			w.head++
		}
		if w.head > 1024 && w.head*2 > len(w.q) {
			n := copy(w.q, w.q[w.head:])
			w.q, w.head = w.q[:n], 0
		}
		w.mu.Unlock()
	}
}
