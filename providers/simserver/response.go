package simserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/kneepoint/kneepoint/providers/sim"
)

// vocabulary is the text the simulator "generates": one pre-escaped word
// per token, so a content chunk is three appends and no JSON encoding.
var vocabulary = [...]string{
	" the", " model", " is", " a", " simulated", " server", " that", " streams",
	" one", " token", " per", " step", " and", " its", " batch", " grows",
	" until", " the", " GPU", " runs", " out", " of", " memory", " or",
	" compute", ",", " so", " latency", " rises", " past", " knee", ".",
}

// word is the text of token i of request id.
func word(id uint64, i int) string {
	w := vocabulary[(id*7+uint64(i))%uint64(len(vocabulary))]
	if i == 0 {
		return strings.TrimPrefix(w, " ")
	}
	return w
}

// response writes one completion in OpenAI's wire format.
type response struct {
	srv          *server
	id           uint64
	created      int64
	includeUsage bool
	fault        faultKind
	faultAt      int // token after which a mid-stream fault fires

	base []byte // `data: {"id":...,"system_fingerprint":"..."`
	head []byte // base + `,"choices":[{"index":0,"delta":{`
	tail []byte // `,"usage":null}` + "\n\n" or `}` + "\n\n"
	buf  []byte
}

func (o *response) completionID() string {
	return "chatcmpl-sim" + strconv.FormatUint(o.id, 16)
}

// render pre-builds the chunk templates once per request.
func (o *response) render() {
	model, _ := json.Marshal(o.srv.model)
	b := make([]byte, 0, 256)
	b = append(b, `data: {"id":"`...)
	b = append(b, o.completionID()...)
	b = append(b, `","object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, o.created, 10)
	b = append(b, `,"model":`...)
	b = append(b, model...)
	b = append(b, `,"system_fingerprint":"fp_kneepoint_sim"`...)
	o.base = b
	o.head = append(b[:len(b):len(b)], `,"choices":[{"index":0,"delta":{`...)
	if o.includeUsage {
		o.tail = []byte(`,"usage":null}` + "\n\n")
	} else {
		o.tail = []byte("}\n\n")
	}
	o.buf = make([]byte, 0, 512)
}

// chunk assembles one choices chunk: delta body, then finish reason
// (empty for null).
func (o *response) chunk(delta, finish string) []byte {
	b := append(o.buf[:0], o.head...)
	b = append(b, delta...)
	b = append(b, `},"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, finish...)
		b = append(b, '"')
	}
	b = append(b, "}]"...)
	b = append(b, o.tail...)
	o.buf = b
	return b
}

// content assembles the chunk carrying token i.
func (o *response) content(i int) []byte {
	b := append(o.buf[:0], o.head...)
	b = append(b, `"content":"`...)
	b = append(b, word(o.id, i)...)
	b = append(b, `"},"logprobs":null,"finish_reason":null}]`...)
	b = append(b, o.tail...)
	o.buf = b
	return b
}

// usageChunk is the trailing chunk with empty choices and usage.
func (o *response) usageChunk(prompt, completion int) []byte {
	b := append(o.buf[:0], o.base...)
	b = append(b, `,"choices":[],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, "}}\n\n"...)
	o.buf = b
	return b
}

var doneLine = []byte("data: [DONE]\n\n")

// stream writes the SSE response: role chunk, one content chunk per token
// as the scheduler produces them (flushed after each batch of new tokens,
// normally one), the finish chunk, the usage chunk when asked, [DONE].
func (o *response) stream(w http.ResponseWriter, r *http.Request, st *sim.Stream) {
	o.render()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	write := func(b []byte) bool {
		_, err := w.Write(b)
		return err == nil
	}
	if !write(o.chunk(`"role":"assistant","content":"","refusal":null`, "")) || rc.Flush() != nil {
		return
	}
	ctx := r.Context()
	sent := 0
	for {
		done := false
		select {
		case <-st.Done():
			done = true
		case <-st.Ready():
		case <-ctx.Done():
			return // the deferred Cancel frees the sequence
		}
		for n := st.Tokens(); sent < n; sent++ {
			if !write(o.content(sent)) {
				return
			}
			if o.fault != faultNone && sent+1 == o.faultAt {
				if o.midStreamFault(w, rc) {
					return
				}
			}
		}
		if rc.Flush() != nil {
			return
		}
		if done {
			break
		}
	}
	completion, finish, err := st.Result()
	if err != nil {
		write([]byte(`data: {"error":{"message":"The server is shutting down.","type":"server_error","param":null,"code":null}}` + "\n\n"))
		rc.Flush()
		return
	}
	if o.fault != faultNone && sent < o.faultAt && o.midStreamFault(w, rc) {
		return // a short output still gets its fault, at the end
	}
	write(o.chunk("", finish))
	if o.includeUsage {
		write(o.usageChunk(st.PromptTokens(), completion))
	}
	if o.fault != faultNoDone {
		write(doneLine)
	}
	rc.Flush()
}

// whole waits for the end and writes a chat.completion object.
func (o *response) whole(w http.ResponseWriter, r *http.Request, st *sim.Stream) {
	select {
	case <-st.Done():
	case <-r.Context().Done():
		return
	}
	completion, finish, err := st.Result()
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "The server is shutting down.", nil)
		return
	}
	var sb strings.Builder
	for i := range completion {
		sb.WriteString(word(o.id, i))
	}
	type message struct {
		Role    string  `json:"role"`
		Content string  `json:"content"`
		Refusal *string `json:"refusal"`
	}
	type choice struct {
		Index        int       `json:"index"`
		Message      message   `json:"message"`
		Logprobs     *struct{} `json:"logprobs"`
		FinishReason string    `json:"finish_reason"`
	}
	type usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	body, _ := json.Marshal(struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             usage    `json:"usage"`
	}{
		ID: o.completionID(), Object: "chat.completion", Created: o.created, Model: o.srv.model,
		SystemFingerprint: "fp_kneepoint_sim",
		Choices:           []choice{{Message: message{Role: "assistant", Content: sb.String()}, FinishReason: finish}},
		Usage:             usage{st.PromptTokens(), completion, st.PromptTokens() + completion},
	})
	body = append(body, '\n')
	if o.fault != faultNone && o.wholeFault(w, body) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
