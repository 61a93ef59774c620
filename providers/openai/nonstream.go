package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/kneepoint/kneepoint/engine"
)

// maxBody bounds a non-streaming response.
const maxBody = 64 << 20

// wholeResponse is the part of a non-streaming chat completion used to
// count output when the server sends no usage. go-openai's
// ChatCompletionMessage has no "reasoning" field, hence a local type.
type wholeResponse struct {
	Choices []struct {
		Message struct {
			Content          json.RawMessage   `json:"content"`
			ReasoningContent string            `json:"reasoning_content"`
			Reasoning        string            `json:"reasoning"`
			Refusal          string            `json:"refusal"`
			ToolCalls        []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		Text string `json:"text"`
	} `json:"choices"`
}

// readWhole reads a non-streaming response. The whole completion arrives
// at once, so TTFT equals end-to-end latency (when the last byte arrived,
// by clk) and there are no inter-token gaps. Without usage, output tokens
// are estimated as whitespace-separated words (about one token per common
// English word) plus one per tool call, and marked estimated.
func readWhole(br *bufio.Reader, tr *engine.Trace, clk clock) outcome {
	body, err := readBody(br)
	now := clk.arrival()
	if err != nil {
		return outcome{readErr: err, stage: " while reading the response body"}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// An empty 200 (a proxy that lost the upstream, a crashed worker)
		// is not "malformed", it is nothing: say so.
		return outcome{failure: streamFailure("empty response body (200 with no completion)")}
	}
	info, err := scanChunk(body)
	if err != nil {
		return outcome{failure: streamFailure("malformed response body: %s", snippet(body))}
	}
	if info.isError {
		return outcome{failure: streamFailure("error in response body: %s", eventMessage(body))}
	}
	if !info.output {
		return outcome{failure: streamFailure("response without any output (no content, reasoning or tool call)")}
	}
	n := info.completionTokens
	if !info.usage || n <= 0 {
		n = estimateTokens(body)
	}
	tr.Token(now, n)
	if info.usage {
		tr.Usage(info.promptTokens, info.completionTokens)
	}
	return outcome{eof: true}
}

// readBody reads the whole body. One that fits in the read buffer (the
// usual case) is returned in place, valid until br is next used; a larger
// one is copied out, up to maxBody.
func readBody(br *bufio.Reader) ([]byte, error) {
	for {
		b, err := br.Peek(br.Buffered() + 1)
		switch err {
		case nil:
			continue // more arrived; keep filling
		case io.EOF:
			return b, nil
		case bufio.ErrBufferFull:
			return io.ReadAll(io.LimitReader(br, maxBody))
		}
		return nil, err
	}
}

func estimateTokens(body []byte) int {
	var r wholeResponse
	if json.Unmarshal(body, &r) != nil {
		return 1
	}
	n := 0
	for _, c := range r.Choices {
		var content string
		if json.Unmarshal(c.Message.Content, &content) != nil {
			content = string(c.Message.Content)
		}
		n += len(strings.Fields(content)) + len(strings.Fields(c.Message.ReasoningContent)) +
			len(strings.Fields(c.Message.Reasoning)) + len(strings.Fields(c.Message.Refusal)) +
			len(strings.Fields(c.Text)) + len(c.Message.ToolCalls)
	}
	return max(n, 1)
}
