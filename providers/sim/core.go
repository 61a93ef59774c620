package sim

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// seqState is where a sequence is in its life.
type seqState uint8

const (
	stateNew seqState = iota
	stateWaiting
	stateRunning
	stateDone
	stateRemoved
)

// seq is one request inside the scheduler. Counters follow vLLM V1: a
// sequence has prompt+generated known tokens, of which computed have KV
// entries; each step computes some of the rest (a prefill chunk, or the one
// token sampled last step) and samples a new token once all known tokens are
// computed. Preemption sets computed back to 0, so the sequence re-prefills
// prompt and output so far (recompute).
type seq struct {
	prompt    int
	outLen    int // tokens this request will generate
	finish    string
	generated int
	computed  int
	blocks    int
	chunk     int // tokens scheduled in the current step
	state     seqState
	arrived   time.Time
	preempted int

	// Outputs: the Trace of Do (touched only by the scheduler while Do
	// waits), and the counters and signals of a Stream.
	tr      *engine.Trace
	emitted atomic.Int64
	ready   chan struct{} // cap 1, signalled after each step that produced a token
	done    chan struct{} // closed when the sequence finishes
}

func (s *seq) known() int { return s.prompt + s.generated }

// isDecode says whether this step's work on s is a one-token decode rather
// than (a chunk of) a prefill.
func (s *seq) isDecode() bool { return s.generated > 0 && s.computed == s.known()-1 }

// coreStats are the scheduler's counters (vLLM /metrics names in comments).
type coreStats struct {
	preemptions  uint64 // vllm:num_preemptions_total
	genTokens    uint64 // vllm:generation_tokens_total
	promptTokens uint64 // vllm:prompt_tokens_total (computed prefill tokens, recompute included)
	finished     uint64 // vllm:request_success_total
	steps        uint64
	busy         time.Duration // sum of step times
}

// core is the scheduler as a pure state machine: plan() picks the next
// step's batch and returns its duration, commit(end) applies it. It has no
// clock and no goroutine, so tests drive it on virtual time and the Sim
// drives it in real time. Not safe for concurrent use: the Sim serialises
// access with its mutex.
type core struct {
	p          Profile
	model      StepModel
	running    []*seq
	waiting    deque
	nWaiting   int
	freeBlocks int
	jitter     uint64 // per-step jitter stream state
	stats      coreStats
}

func newCore(p Profile, seed int64) *core {
	return &core{
		p:          p,
		model:      p.Step,
		running:    make([]*seq, 0, p.MaxNumSeqs),
		freeBlocks: p.KVBlocks,
		jitter:     splitmix64(uint64(seed) ^ 0x6a69747465720000),
	}
}

func (c *core) blocksFor(tokens int) int {
	return (tokens + c.p.BlockSize - 1) / c.p.BlockSize
}

// add queues s at the back of the waiting queue.
func (c *core) add(s *seq) {
	s.state = stateWaiting
	c.waiting.pushBack(s)
	c.nWaiting++
}

// idle says there is nothing to schedule.
func (c *core) idle() bool { return len(c.running) == 0 && c.nWaiting == 0 }

// remove takes s out of the scheduler (cancellation). It reports false when
// s had already finished.
func (c *core) remove(s *seq) bool {
	switch s.state {
	case stateWaiting:
		s.state = stateRemoved // dropped lazily by the deque
		c.nWaiting--
	case stateRunning:
		c.freeBlocks += s.blocks
		s.blocks = 0
		s.state = stateRemoved
		if i := slices.Index(c.running, s); i >= 0 {
			c.running = slices.Delete(c.running, i, i+1)
		}
	case stateDone:
		return false
	default:
		s.state = stateRemoved
	}
	return true
}

// preemptLast frees the newest running sequence and puts it at the front of
// the waiting queue to be recomputed, as vLLM's FCFS policy does.
func (c *core) preemptLast() *seq {
	v := c.running[len(c.running)-1]
	c.running[len(c.running)-1] = nil
	c.running = c.running[:len(c.running)-1]
	c.freeBlocks += v.blocks
	v.blocks = 0
	v.computed = 0
	v.chunk = 0
	v.preempted++
	v.state = stateWaiting
	c.waiting.pushFront(v)
	c.nWaiting++
	c.stats.preemptions++
	return v
}

// stepPlan is what plan() decided.
type stepPlan struct {
	dur       time.Duration
	scheduled int       // sequences with work this step
	preempted int       // sequences preempted while planning
	admitted  time.Time // latest arrival among newly admitted sequences
}

// plan schedules one step the way vLLM V1 does: running sequences first (a
// decode token each, or the next prefill chunk), preempting the newest
// running sequence whenever the KV cache cannot hold the next token; then,
// if nothing was preempted, waiting sequences in order while the token
// budget, max_num_seqs and free KV blocks allow. It returns the step's
// duration from the step model.
func (c *core) plan() stepPlan {
	var pl stepPlan
	budget := c.p.MaxBatchedTokens
	var decodes int
	var sumCtx, chunkTok, quad float64

	price := func(s *seq, n int) {
		if s.isDecode() {
			decodes++
			sumCtx += float64(s.computed + 1)
			return
		}
		o, e := float64(s.computed), float64(s.computed+n)
		chunkTok += float64(n)
		quad += e*e - o*o
	}

	for i := 0; i < len(c.running) && budget > 0; {
		s := c.running[i]
		n := min(s.known()-s.computed, budget)
		ok := true
		for {
			need := c.blocksFor(s.computed+n) - s.blocks
			if need <= c.freeBlocks {
				c.freeBlocks -= need
				s.blocks += need
				break
			}
			v := c.preemptLast()
			pl.preempted++
			if v == s {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		s.chunk = n
		price(s, n)
		budget -= n
		pl.scheduled++
		i++
	}

	if pl.preempted == 0 {
		for budget > 0 && len(c.running) < c.p.MaxNumSeqs {
			s := c.waiting.front()
			if s == nil {
				break
			}
			n := min(s.known()-s.computed, budget)
			need := c.blocksFor(s.computed+n) - s.blocks
			if need > c.freeBlocks {
				break
			}
			c.waiting.popFront()
			c.nWaiting--
			c.freeBlocks -= need
			s.blocks += need
			s.state = stateRunning
			s.chunk = n
			c.running = append(c.running, s)
			price(s, n)
			budget -= n
			pl.scheduled++
			if s.arrived.After(pl.admitted) {
				pl.admitted = s.arrived
			}
		}
	}

	if pl.scheduled == 0 {
		return pl
	}
	ms := c.model.StepMs(decodes, sumCtx, chunkTok, quad) * c.p.TimeScale
	if c.p.Jitter > 0 {
		c.jitter = splitmix64(c.jitter)
		ms *= 1 + c.p.Jitter*(2*unit(c.jitter)-1)
	}
	pl.dur = time.Duration(ms * float64(time.Millisecond))
	c.stats.steps++
	c.stats.busy += pl.dur
	return pl
}

// commit ends the planned step at end: scheduled work becomes computed KV,
// sequences whose known tokens are all computed sample a token (emitted at
// end), and finished sequences release their blocks.
func (c *core) commit(end time.Time) {
	keep := c.running[:0]
	for _, s := range c.running {
		if s.chunk == 0 {
			keep = append(keep, s)
			continue
		}
		if !s.isDecode() {
			c.stats.promptTokens += uint64(s.chunk)
		}
		s.computed += s.chunk
		s.chunk = 0
		if s.computed < s.known() {
			keep = append(keep, s)
			continue
		}
		s.generated++
		c.stats.genTokens++
		if s.tr != nil {
			s.tr.Token(end, 1)
		}
		s.emitted.Add(1)
		if s.generated >= s.outLen {
			c.freeBlocks += s.blocks
			s.blocks = 0
			s.state = stateDone
			c.stats.finished++
			if s.tr != nil {
				s.tr.Usage(s.prompt, s.generated)
			}
			if s.ready != nil {
				select {
				case s.ready <- struct{}{}:
				default:
				}
			}
			close(s.done)
			continue
		}
		if s.ready != nil {
			select {
			case s.ready <- struct{}{}:
			default:
			}
		}
		keep = append(keep, s)
	}
	clear(c.running[len(keep):])
	c.running = keep
}

// kvUsage is the fraction of KV blocks in use.
func (c *core) kvUsage() float64 {
	if c.p.KVBlocks == 0 {
		return 0
	}
	return float64(c.p.KVBlocks-c.freeBlocks) / float64(c.p.KVBlocks)
}
