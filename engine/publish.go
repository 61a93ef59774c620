package engine

import "sync"

// publisher delivers events to one reader. Snapshots are latest-wins: a slow
// reader sees fewer of them, never stale ones queued up. Every other event is
// queued and delivered in order. The producer side never blocks.
type publisher struct {
	out  chan Event
	wake chan struct{}

	mu     sync.Mutex
	queue  []Event
	snap   *Snapshot
	closed bool
}

func newPublisher() *publisher {
	p := &publisher{out: make(chan Event), wake: make(chan struct{}, 1)}
	go p.run()
	return p
}

func (p *publisher) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// snapshot replaces any undelivered snapshot.
func (p *publisher) snapshot(s Snapshot) {
	p.mu.Lock()
	p.snap = &s
	p.mu.Unlock()
	p.signal()
}

// send queues an event that must not be lost.
func (p *publisher) send(e Event) {
	p.mu.Lock()
	p.queue = append(p.queue, e)
	p.mu.Unlock()
	p.signal()
}

// close delivers what is queued, then closes the channel.
func (p *publisher) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.signal()
}

func (p *publisher) run() {
	for {
		p.mu.Lock()
		var next Event
		switch {
		case len(p.queue) > 0:
			next = p.queue[0]
			p.queue[0] = nil
			p.queue = p.queue[1:]
		case p.closed: // a snapshot left now would only follow Finished
			p.mu.Unlock()
			close(p.out)
			return
		case p.snap != nil:
			next = *p.snap
			p.snap = nil
		}
		p.mu.Unlock()
		if next == nil {
			<-p.wake
			continue
		}
		p.out <- next
	}
}
