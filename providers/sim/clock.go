package sim

import (
	"sync"
	"time"
)

// Clock is the time source of a Sim. The real-time driver asks it for the
// time and sleeps on it until each step ends; tests substitute a virtual
// clock so whole runs take microseconds.
type Clock interface {
	Now() time.Time
	// SleepUntil blocks until t or until stop is closed, reporting false
	// when stopped.
	SleepUntil(t time.Time, stop <-chan struct{}) bool
}

// RealClock is wall-clock time.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) SleepUntil(t time.Time, stop <-chan struct{}) bool {
	d := time.Until(t)
	if d <= 0 {
		select {
		case <-stop:
			return false
		default:
			return true
		}
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-stop:
		return false
	}
}

// VirtualClock is a clock whose sleeps return at once, moving its time
// forward to the wake-up instant. A Sim on a VirtualClock runs as fast as
// the CPU allows while keeping the simulated timeline exact.
type VirtualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewVirtualClock starts a virtual clock at start.
func NewVirtualClock(start time.Time) *VirtualClock { return &VirtualClock{now: start} }

func (v *VirtualClock) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

func (v *VirtualClock) SleepUntil(t time.Time, stop <-chan struct{}) bool {
	select {
	case <-stop:
		return false
	default:
	}
	v.mu.Lock()
	if t.After(v.now) {
		v.now = t
	}
	v.mu.Unlock()
	return true
}

// Advance moves the clock forward by d.
func (v *VirtualClock) Advance(d time.Duration) {
	v.mu.Lock()
	v.now = v.now.Add(d)
	v.mu.Unlock()
}
