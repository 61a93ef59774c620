package openai

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// Why kneepoint reads the event stream itself instead of through
// go-openai's ChatCompletionStream (v1.43.0, stream_reader.go):
//   - a body that ends without "data: [DONE]" returns io.EOF exactly like a
//     complete one, so a truncated stream would count as a success;
//   - the delta type has reasoning_content but not "reasoning" (vLLM's and
//     gpt-oss's field), so such models would get TTFT on their first
//     visible content, after all the reasoning;
//   - more than EmptyMessagesLimit (300 by default; configurable, but any
//     limit is wrong for a healthy stream) consecutive non-data lines, such
//     as ": keep-alive" comments from a proxy during a long prefill, abort
//     the stream with ErrTooManyEmptyStreamMessages;
//   - every line goes through two regular expressions and every chunk is
//     decoded with encoding/json into a struct with slices and strings: tens
//     of allocations per token at thousands of tokens per second.
// The lean reader below finds the lines in the bufio buffer and scans each
// chunk's JSON in place (chunk.go): zero allocations per chunk
// (BenchmarkStreamLean vs BenchmarkStreamGoOpenAI in bench_test.go).

// streamState follows one event stream line by line.
type streamState struct {
	// pending holds a data payload that continues on the next data line
	// (an event whose JSON the server split over several lines).
	pending    []byte
	errorEvent bool // the current event is named "error"
	done       bool // [DONE] seen
	finished   bool // a finish_reason seen
	usage      bool
	prompt     int
	completion int
	chunks     int // token-bearing chunks
}

// feed handles one line (without its terminator) read at time now. It
// records output chunks into tr and returns a failure for an error event
// or a malformed chunk; stop is set after [DONE].
func (st *streamState) feed(line []byte, now time.Time, tr *engine.Trace) (stop bool, f *engine.Failure) {
	name, value, comment := sseField(line)
	switch {
	case comment:
		return false, nil
	case len(line) == 0: // end of event
		st.errorEvent = false
		if len(st.pending) > 0 {
			return false, streamFailure("malformed chunk after %d output chunks: %s", st.chunks, snippet(st.pending))
		}
		return false, nil
	case string(name) == "event":
		st.errorEvent = string(value) == "error"
		return false, nil
	case string(name) != "data":
		return false, nil // id:, retry: and unknown fields are ignored
	}
	payload := value
	if len(st.pending) > 0 {
		st.pending = append(st.pending, '\n')
		st.pending = append(st.pending, value...)
		payload = st.pending
	} else if string(value) == "[DONE]" {
		st.done = true
		return true, nil
	}
	info, err := scanChunk(payload)
	switch {
	case err == errShort && len(payload) < maxLine:
		if len(st.pending) == 0 {
			st.pending = append(st.pending, value...)
		}
		return false, nil
	case err != nil && st.errorEvent:
		return false, streamFailure("error event after %d output chunks: %s", st.chunks, snippet(payload))
	case err != nil:
		return false, streamFailure("malformed chunk after %d output chunks: %s", st.chunks, snippet(payload))
	}
	st.pending = st.pending[:0]
	if info.isError || st.errorEvent {
		return false, streamFailure("error event after %d output chunks: %s", st.chunks, eventMessage(payload))
	}
	if info.output {
		tr.Token(now, 1)
		st.chunks++
	}
	if info.usage {
		st.usage, st.prompt, st.completion = true, info.promptTokens, info.completionTokens
	}
	if info.finished {
		st.finished = true
	}
	return false, nil
}

// end decides, once the body is over, whether the stream was complete: it
// needs [DONE] or a finish_reason (llama.cpp and some proxies omit [DONE]),
// and at least one output chunk. Usage goes to the trace only then.
func (st *streamState) end(tr *engine.Trace) *engine.Failure {
	if len(st.pending) > 0 {
		return streamFailure("stream ended inside a chunk after %d output chunks: %s", st.chunks, snippet(st.pending))
	}
	if !st.done && !st.finished {
		return streamFailure("stream ended without [DONE] or finish_reason after %d output chunks (truncated)", st.chunks)
	}
	if st.chunks == 0 {
		return streamFailure("stream completed without any output (no content, reasoning or tool-call chunk)")
	}
	if st.usage {
		tr.Usage(st.prompt, st.completion)
	}
	return nil
}

// eventMessage extracts the message of an error event.
func eventMessage(payload []byte) string {
	if msg, ok := apiErrorMessage(payload); ok {
		return msg
	}
	return snippet(payload)
}

// readStream reads an event stream to its end; clk says when the bytes of
// each read arrived.
func readStream(br *bufio.Reader, tr *engine.Trace, clk clock) outcome {
	lr := lineReader{r: br}
	var st streamState
	// Lines that arrived in one read share that read's arrival time: that
	// is when they were received, and it spares a clock read per line
	// (time.Now was a sixth of the CPU at a million tokens/s).
	var now time.Time
	for {
		line, err := lr.next()
		if err == io.EOF {
			return outcome{failure: st.end(tr)}
		}
		if err != nil {
			if err == errLineTooLong {
				return outcome{failure: streamFailure("%v after %d output chunks", err, st.chunks)}
			}
			if st.finished && st.chunks > 0 && len(st.pending) == 0 {
				// The connection broke after finish_reason: the output is
				// complete, only the usage chunk or [DONE] was lost.
				return outcome{failure: st.end(tr)}
			}
			return outcome{readErr: err, stage: fmt.Sprintf(" after %d output chunks", st.chunks)}
		}
		if lr.fresh || now.IsZero() {
			now = clk.arrival()
		}
		stop, f := st.feed(line, now, tr)
		if f != nil {
			return outcome{failure: f}
		}
		if stop {
			return outcome{failure: st.end(tr)}
		}
	}
}
