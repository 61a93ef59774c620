package sim

// deque is the waiting queue: FIFO for arrivals, with preempted sequences
// pushed back in at the front as vLLM does. Cancelled sequences are removed
// lazily (skipped when they reach the front), so cancelling is O(1).
type deque struct {
	buf  []*seq
	head int
	n    int
}

func (d *deque) grow() {
	nb := make([]*seq, max(16, 2*len(d.buf)))
	for i := 0; i < d.n; i++ {
		nb[i] = d.buf[(d.head+i)%len(d.buf)]
	}
	d.buf, d.head = nb, 0
}

func (d *deque) pushBack(s *seq) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.buf[(d.head+d.n)%len(d.buf)] = s
	d.n++
}

func (d *deque) pushFront(s *seq) {
	if d.n == len(d.buf) {
		d.grow()
	}
	d.head = (d.head - 1 + len(d.buf)) % len(d.buf)
	d.buf[d.head] = s
	d.n++
}

// front returns the first live sequence, dropping cancelled ones.
func (d *deque) front() *seq {
	for d.n > 0 {
		s := d.buf[d.head]
		if s.state == stateWaiting {
			return s
		}
		d.popFront()
	}
	return nil
}

func (d *deque) popFront() *seq {
	s := d.buf[d.head]
	d.buf[d.head] = nil
	d.head = (d.head + 1) % len(d.buf)
	d.n--
	return s
}
