package openai

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// pacedReader returns one part per Read, sleeping before each but the first.
type pacedReader struct {
	parts []string
	gap   time.Duration
	i     int
}

func (r *pacedReader) Read(p []byte) (int, error) {
	if r.i >= len(r.parts) {
		return 0, io.EOF
	}
	if r.i > 0 {
		time.Sleep(r.gap)
	}
	n := copy(p, r.parts[r.i])
	r.parts[r.i] = r.parts[r.i][n:]
	if r.parts[r.i] == "" {
		r.i++
	}
	return n, nil
}

// Chunks that arrive in one read share its timestamp; a chunk that needed
// a later read (here one split across two reads) is timed by that read.
func TestStreamTimestampsFollowReads(t *testing.T) {
	ev := func(s string) string {
		return `data: {"choices":[{"delta":{"content":"` + s + `"},"finish_reason":null}]}` + "\n\n"
	}
	half := len(ev("c")) / 2
	parts := []string{
		ev("a") + ev("b"),        // two chunks in the first read
		ev("c")[:half],           // a chunk split over two reads
		ev("c")[half:] + ev("d"), // ... completed here, with another
		"data: [DONE]\n\n",
	}
	const gap = 30 * time.Millisecond
	tr := &engine.Trace{}
	tr.Start(time.Now())
	out := readStream(bufio.NewReaderSize(&pacedReader{parts: parts, gap: gap}, 4096), tr, wallClock{})
	if out.failure != nil || out.readErr != nil {
		t.Fatalf("readStream: %+v", out)
	}
	g := tr.Gaps()
	if tr.Chunks() != 4 || len(g) != 3 {
		t.Fatalf("%d chunks, gaps %v", tr.Chunks(), g)
	}
	if g[0] != 0 {
		t.Errorf("chunks of one read %v apart, want 0", g[0])
	}
	if g[1] < 2*gap {
		t.Errorf("chunk completed two reads later came %v after, want at least %v", g[1], 2*gap)
	}
	if g[2] != 0 {
		t.Errorf("chunk in the same read as the previous one %v apart, want 0", g[2])
	}
}
