package main

import (
	"runtime"
	"sync"
	"syscall"
	"time"
)

// waiter runs fn at time t and returns once it has run.
type waiter interface{ at(t time.Time, fn func()) }

// newWaiter returns the precise waiter.
//
// Why not time.Sleep: Go's scheduler waits for timers in epoll_wait, whose
// timeout is whole milliseconds, so on a quiet process a sleep ends up to
// about 1 ms late. That is the very size of the client-added latency the
// delay mode is meant to expose, so the endpoint must not add it itself.
// One dedicated OS thread sleeps with nanosleep (microsecond precision)
// until the earliest deadline and runs what is due itself, the first
// byte's write included: handing the write back to the handler goroutine
// would cost a second thread wake-up, which on a busy machine is most of
// the lateness.
func newWaiter() waiter {
	w := &preciseWaiter{kick: make(chan struct{}, 1)}
	go w.loop()
	return w
}

// sleepWaiter is time.Sleep, kept for comparison (-precise=false).
type sleepWaiter struct{}

func (sleepWaiter) at(t time.Time, fn func()) {
	time.Sleep(time.Until(t))
	fn()
}

type pending struct {
	at   time.Time
	fn   func()
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

func (w *preciseWaiter) at(t time.Time, fn func()) {
	if !time.Now().Before(t) {
		fn()
		return
	}
	done := make(chan struct{})
	w.mu.Lock()
	w.q = append(w.q, pending{at: t, fn: fn, done: done})
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
		// Run everything due, one at a time, without holding the lock
		// while a callback writes.
		for {
			now := time.Now()
			w.mu.Lock()
			if w.head == len(w.q) || now.Before(w.q[w.head].at) {
				w.mu.Unlock()
				break
			}
			p := w.q[w.head]
			w.q[w.head] = pending{}
			w.head++
			if w.head > 1024 && w.head*2 > len(w.q) {
				n := copy(w.q, w.q[w.head:])
				w.q, w.head = w.q[:n], 0
			}
			w.mu.Unlock()
			p.fn()
			close(p.done)
		}
	}
}
