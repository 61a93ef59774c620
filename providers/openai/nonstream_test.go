package openai

import (
	"bufio"
	"strings"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

func TestNonStreaming(t *testing.T) {
	tests := []struct {
		fixture   string
		tokens    int
		estimated bool
		ttft      time.Duration
	}{
		{fixture: "nonstream", tokens: 6, ttft: 50 * time.Millisecond},
		{fixture: "nonstream_no_usage", tokens: 7, estimated: true},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			srv, rec := fixtureServer(t, tt.fixture)
			p := newTestProvider(t, srv, WithStream(false))
			tr, err := doOne(t, p)
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			raw, h, _ := rec.last()
			m := decodeBody(t, raw)
			if m["stream"] != false || m["stream_options"] != nil {
				t.Errorf("body = %s, want stream false without stream_options", raw)
			}
			if h.Get("Accept") != "application/json" {
				t.Errorf("Accept = %q", h.Get("Accept"))
			}
			if n, est := tr.OutputTokens(); n != tt.tokens || est != tt.estimated {
				t.Errorf("tokens = %d (estimated %v), want %d (%v)", n, est, tt.tokens, tt.estimated)
			}
			if tr.Chunks() != 1 || len(tr.Gaps()) != 0 || tr.TTFT() != tr.E2E() {
				t.Errorf("chunks %d, gaps %d, TTFT %v, E2E %v: want one chunk, TTFT = E2E", tr.Chunks(), len(tr.Gaps()), tr.TTFT(), tr.E2E())
			}
			if tt.ttft > 0 {
				within(t, "TTFT", tr.TTFT(), tt.ttft, 5*time.Millisecond, 15*time.Millisecond)
			}
		})
	}
}

// TestEmptyBodySaysEmpty: a 200 with no body is reported as empty, not as
// a malformed body quoting "".
func TestEmptyBodySaysEmpty(t *testing.T) {
	for _, body := range []string{"", " \r\n"} {
		f := readWhole(bufio.NewReader(strings.NewReader(body)), &engine.Trace{}, wallClock{}).failure
		if f == nil || f.Class != engine.ClassStream || !strings.Contains(f.Message, "empty response body") {
			t.Errorf("body %q: failure %v, want an empty-body stream failure", body, f)
		}
	}
}
