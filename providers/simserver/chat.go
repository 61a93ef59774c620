package simserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/providers/sim"
)

// maxBody bounds a request body.
const maxBody = 16 << 20

// chatRequest is the part of OpenAI's request the simulator uses.
type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	Stream              bool          `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Seed      *int64 `json:"seed"`
	N         *int   `json:"n"`
	IgnoreEOS bool   `json:"ignore_eos"` // vLLM extension
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// badRequest is a validation failure reported as OpenAI's 400.
type badRequest struct {
	msg, param, code string
}

func (b *badRequest) Error() string { return b.msg }

// parseChat decodes and validates a chat request.
func parseChat(body io.Reader) (*chatRequest, error) {
	var req chatRequest
	dec := json.NewDecoder(body)
	if err := dec.Decode(&req); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &badRequest{msg: fmt.Sprintf("Request body too large: the limit is %d bytes.", mbe.Limit)}
		}
		return nil, &badRequest{msg: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"}
	}
	if len(req.Messages) == 0 {
		return nil, &badRequest{msg: "[] is too short - 'messages'", param: "messages"}
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool", "function":
		default:
			return nil, &badRequest{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role),
				param: fmt.Sprintf("messages[%d].role", i), code: "invalid_value"}
		}
	}
	for name, v := range map[string]*int{"max_tokens": req.MaxTokens, "max_completion_tokens": req.MaxCompletionTokens} {
		if v != nil && *v < 1 {
			return nil, &badRequest{msg: fmt.Sprintf("Invalid '%s': integer below minimum value. Expected a value >= 1, but got %d instead.", name, *v),
				param: name, code: "integer_below_min_value"}
		}
	}
	if req.N != nil && *req.N != 1 {
		return nil, &badRequest{msg: "The simulator supports only n=1.", param: "n", code: "invalid_value"}
	}
	return &req, nil
}

// maxTokens is max_completion_tokens, else max_tokens, else 0 (the
// simulator's default length).
func (r *chatRequest) maxTokens() int {
	switch {
	case r.MaxCompletionTokens != nil:
		return *r.MaxCompletionTokens
	case r.MaxTokens != nil:
		return *r.MaxTokens
	}
	return 0
}

// promptTokens estimates the prompt's token count without a tokenizer:
// each whitespace-separated word of up to 7 bytes is one token and longer
// ones one more per further 6 bytes (common English words are single
// tokens in Llama 3 and GPT tokenizers, kneepoint's synthetic prompts use
// only such words, so they count exactly), plus the chat template's 4
// tokens per message and 3 to prime the reply, as OpenAI counts them.
func (r *chatRequest) promptTokens() int {
	n := 3
	for _, m := range r.Messages {
		n += 4 + wordTokens(messageText(m.Content))
	}
	return n
}

// messageText extracts the text of a content field: a string, or an array
// of parts whose "text" fields count.
func messageText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return ""
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
		sb.WriteByte(' ')
	}
	return sb.String()
}

func wordTokens(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		n += 1 + (len(w)-1)/6
	}
	return n
}

// chat serves POST /v1/chat/completions.
func (s *server) chat(w http.ResponseWriter, r *http.Request) {
	no := s.nextID.Add(1)
	req, err := parseChat(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var br *badRequest
		errors.As(err, &br)
		writeError(w, http.StatusBadRequest, "invalid_request_error", br.code, br.msg, strPtr(br.param))
		return
	}
	fault := s.faults.pick(no)
	if fault != faultNone {
		s.faultsInjected.Add(1)
		if s.preResponseFault(w, r, fault) {
			return
		}
	}
	var seed int64
	if req.Seed != nil {
		seed = *req.Seed
	}
	var opts []sim.SubmitOption
	if req.IgnoreEOS {
		opts = append(opts, sim.IgnoreEOS())
	}
	st, err := s.sim.Submit(r.Context(), engine.Request{ID: no, Seed: seed, PromptTokens: req.promptTokens(), MaxTokens: req.maxTokens()}, opts...)
	if err != nil {
		writeFailure(w, err)
		return
	}
	defer st.Cancel() // frees the sequence if the client left mid-way; no-op after the end
	setRateHeaders(w.Header(), st.RateLimits())
	w.Header().Set("X-Request-Id", "req_sim"+strconv.FormatUint(no, 16))
	out := &response{
		srv:          s,
		id:           no,
		created:      s.now().Unix(),
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		fault:        fault,
		faultAt:      max(1, cmp.Or(req.maxTokens(), 64)/2),
	}
	if req.Stream {
		out.stream(w, r, st)
	} else {
		out.whole(w, r, st)
	}
}
