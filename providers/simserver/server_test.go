package simserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/kneepoint/kneepoint/providers/sim"
)

// newTestServer serves a simulator of profile name (adjusted by tweak) on
// an httptest server.
func newTestServer(t *testing.T, name string, tweak func(*sim.Profile), opts ...Option) (*httptest.Server, *sim.Sim) {
	t.Helper()
	p, err := sim.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(&p)
	}
	s, err := sim.New(p, sim.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(s, opts...))
	t.Cleanup(func() {
		srv.Close()
		s.Close()
	})
	return srv, s
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const streamBody = `{"model":"llama3.2-1b","messages":[{"role":"user","content":"the of and to in"}],"max_tokens":12,"stream":true,"stream_options":{"include_usage":true}}`

// sseChunk is a chunk as a plain reader sees it.
type sseChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// readSSE reads data lines until EOF, checking the blank-line framing.
func readSSE(t *testing.T, r io.Reader) []string {
	t.Helper()
	var data []string
	sc := bufio.NewScanner(r)
	expectBlank := false
	for sc.Scan() {
		line := sc.Text()
		if expectBlank {
			if line != "" {
				t.Fatalf("event not followed by a blank line: %q", line)
			}
			expectBlank = false
			continue
		}
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected line %q", line)
		}
		data = append(data, payload)
		expectBlank = true
	}
	return data
}

func TestStreamPlainSSE(t *testing.T) {
	srv, _ := newTestServer(t, "soak-fast", nil)
	resp := post(t, srv.URL, streamBody)
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	data := readSSE(t, resp.Body)
	if len(data) < 5 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream %q", data)
	}
	chunks := make([]sseChunk, len(data)-1)
	for i, d := range data[:len(data)-1] {
		if err := json.Unmarshal([]byte(d), &chunks[i]); err != nil {
			t.Fatalf("chunk %d %q: %v", i, d, err)
		}
		c := chunks[i]
		if c.Object != "chat.completion.chunk" || c.ID != chunks[0].ID || c.Model != "llama3.2-1b" || c.Created == 0 {
			t.Errorf("chunk %d header: %+v", i, c)
		}
	}
	role := chunks[0]
	if len(role.Choices) != 1 || role.Choices[0].Delta.Role == nil || *role.Choices[0].Delta.Role != "assistant" ||
		role.Choices[0].Delta.Content == nil || *role.Choices[0].Delta.Content != "" || role.Choices[0].FinishReason != nil {
		t.Errorf("role chunk %s", data[0])
	}
	usage := chunks[len(chunks)-1]
	if usage.Choices == nil || len(usage.Choices) != 0 || usage.Usage == nil {
		t.Fatalf("usage chunk %s", data[len(data)-2])
	}
	finish := chunks[len(chunks)-2]
	if len(finish.Choices) != 1 || finish.Choices[0].FinishReason == nil || finish.Choices[0].Delta.Content != nil {
		t.Errorf("finish chunk %s", data[len(data)-3])
	} else if fr := *finish.Choices[0].FinishReason; fr != "length" && fr != "stop" {
		t.Errorf("finish_reason %q", fr)
	}
	content := chunks[1 : len(chunks)-2]
	for i, c := range content {
		if len(c.Choices) != 1 || c.Choices[0].Delta.Content == nil || *c.Choices[0].Delta.Content == "" || c.Choices[0].FinishReason != nil {
			t.Errorf("content chunk %d: %s", i, data[i+1])
		}
	}
	u := usage.Usage
	if u.CompletionTokens != len(content) || u.PromptTokens != 5+4+3 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage %+v with %d content chunks", *u, len(content))
	}
	if len(content) < 6 || len(content) > 12 {
		t.Errorf("%d tokens for max_tokens 12", len(content))
	}
}

func TestStreamWithoutUsage(t *testing.T) {
	srv, _ := newTestServer(t, "soak-fast", nil)
	resp := post(t, srv.URL, `{"messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true,"ignore_eos":true}`)
	defer resp.Body.Close()
	data := readSSE(t, resp.Body)
	if len(data) != 1+3+1+1 || strings.Contains(strings.Join(data, ""), `"usage"`) {
		t.Errorf("stream without include_usage: %q", data)
	}
}

func TestStreamGoOpenAI(t *testing.T) {
	srv, _ := newTestServer(t, "soak-fast", nil)
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL + "/v1"
	client := goopenai.NewClientWithConfig(cfg)
	stream, err := client.CreateChatCompletionStream(context.Background(), goopenai.ChatCompletionRequest{
		Model:         "llama3.2-1b",
		Messages:      []goopenai.ChatCompletionMessage{{Role: "user", Content: "the of and"}},
		MaxTokens:     10,
		Stream:        true,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var role string
	var contents int
	var finish goopenai.FinishReason
	var usage *goopenai.Usage
	for {
		r, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Choices) == 0 {
			usage = r.Usage
			continue
		}
		c := r.Choices[0]
		if c.Delta.Role != "" {
			role = c.Delta.Role
		}
		if c.Delta.Content != "" {
			contents++
		}
		if c.FinishReason != "" {
			finish = c.FinishReason
		}
	}
	if role != "assistant" || contents < 5 || (finish != "length" && finish != "stop") {
		t.Errorf("role %q, %d content chunks, finish %q", role, contents, finish)
	}
	if usage == nil || usage.CompletionTokens != contents || usage.PromptTokens != 3+4+3 {
		t.Errorf("usage %+v for %d chunks", usage, contents)
	}
}

func TestNonStreaming(t *testing.T) {
	srv, _ := newTestServer(t, "soak-fast", nil)
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL + "/v1"
	resp, err := goopenai.NewClientWithConfig(cfg).CreateChatCompletion(context.Background(), goopenai.ChatCompletionRequest{
		Model:               "llama3.2-1b",
		Messages:            []goopenai.ChatCompletionMessage{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello there"}},
		MaxCompletionTokens: 8,
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Object != "chat.completion" || len(resp.Choices) != 1 || resp.Choices[0].Message.Role != "assistant" || resp.Choices[0].Message.Content == "" {
		t.Errorf("response %+v", resp)
	}
	if u := resp.Usage; u.PromptTokens != 2+2+8+3 || u.CompletionTokens < 4 || u.CompletionTokens > 8 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage %+v", u)
	}
}

func TestModels(t *testing.T) {
	srv, _ := newTestServer(t, DefaultProfileForTest, nil, WithModelName("served-name"))
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL + "/v1"
	c := goopenai.NewClientWithConfig(cfg)
	list, err := c.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].ID != "served-name" || list.Models[0].Object != "model" {
		t.Errorf("models %+v", list)
	}
	if _, err := c.GetModel(context.Background(), "served-name"); err != nil {
		t.Errorf("GetModel: %v", err)
	}
	_, err = c.GetModel(context.Background(), "other")
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 404 {
		t.Errorf("unknown model: %v", err)
	}
}

// DefaultProfileForTest is the default profile's name.
const DefaultProfileForTest = sim.DefaultProfile

// TestRateLimit429: when the profile's limits bite, the 429 carries
// OpenAI's body and headers.
func TestRateLimit429(t *testing.T) {
	srv, _ := newTestServer(t, "hosted-api", func(p *sim.Profile) { p.RPM, p.FrontendDelay, p.RateBurst = 2, 0, 0 })
	body := `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}`
	for i := range 2 {
		resp := post(t, srv.URL, body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("x-ratelimit-limit-requests") != "2" {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	resp := post(t, srv.URL, body)
	defer resp.Body.Close()
	if resp.StatusCode != 429 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    string  `json:"code"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("body %s: %v", raw, err)
	}
	if e.Error.Type != "requests" || e.Error.Code != "rate_limit_exceeded" || e.Error.Param != nil ||
		!strings.Contains(e.Error.Message, "Rate limit reached") || !strings.Contains(e.Error.Message, "Please try again in") {
		t.Errorf("body %s", raw)
	}
	h := resp.Header
	for _, k := range []string{"retry-after", "retry-after-ms", "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
		"x-ratelimit-reset-requests", "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"} {
		if h.Get(k) == "" {
			t.Errorf("missing header %s", k)
		}
	}
	if h.Get("retry-after") != "30" || h.Get("x-ratelimit-remaining-requests") != "0" {
		t.Errorf("retry-after %q (want 30 s for 2 RPM), remaining %q", h.Get("retry-after"), h.Get("x-ratelimit-remaining-requests"))
	}
}

func TestBadRequests(t *testing.T) {
	srv, _ := newTestServer(t, DefaultProfileForTest, nil)
	tests := []struct {
		name, body, code, param string
	}{
		{"not json", `{"messages":`, "", ""},
		{"no messages", `{"model":"x","messages":[]}`, "", "messages"},
		{"bad role", `{"messages":[{"role":"robot","content":"x"}]}`, "invalid_value", "messages[0].role"},
		{"zero max_tokens", `{"messages":[{"role":"user","content":"x"}],"max_tokens":0}`, "integer_below_min_value", "max_tokens"},
		{"over context", `{"messages":[{"role":"user","content":"x"}],"max_tokens":9000}`, "context_length_exceeded", "messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, srv.URL, tc.body)
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 400 || json.Unmarshal(raw, &e) != nil || e.Error.Type != "invalid_request_error" || e.Error.Message == "" {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			if got := deref(e.Error.Code); got != tc.code {
				t.Errorf("code %q, want %q", got, tc.code)
			}
			if got := deref(e.Error.Param); got != tc.param {
				t.Errorf("param %q, want %q", got, tc.param)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestMetrics(t *testing.T) {
	srv, _ := newTestServer(t, "soak-fast", nil)
	resp := post(t, srv.URL, `{"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"ignore_eos":true}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	mresp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer mresp.Body.Close()
	raw, _ := io.ReadAll(mresp.Body)
	text := string(raw)
	for _, want := range []string{
		"# TYPE vllm:num_requests_running gauge",
		`vllm:num_requests_running{model_name="llama3.2-1b"} 0`,
		`vllm:num_requests_waiting{model_name="llama3.2-1b"} 0`,
		`vllm:kv_cache_usage_perc{model_name="llama3.2-1b"} 0`,
		`vllm:gpu_cache_usage_perc{model_name="llama3.2-1b"} 0`,
		"# TYPE vllm:num_preemptions_total counter",
		`vllm:generation_tokens_total{model_name="llama3.2-1b"} 5`,
		`vllm:request_success_total{model_name="llama3.2-1b"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	if ct := mresp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content-type %q", ct)
	}
}

// TestClientGoneFreesSequence: a client that disconnects mid-stream frees
// its sequence (and KV) in the simulator.
func TestClientGoneFreesSequence(t *testing.T) {
	srv, s := newTestServer(t, DefaultProfileForTest, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/chat/completions",
		strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":4000,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for range 6 { // role chunk and a couple of tokens
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	if s.Stats().Running != 1 {
		t.Fatalf("running %d", s.Stats().Running)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(2 * time.Second)
	for s.Stats().Running != 0 {
		if time.Now().After(deadline) {
			t.Fatal("sequence still running after the client left")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPromptTokens(t *testing.T) {
	tests := []struct {
		body string
		want int
	}{
		{`{"messages":[{"role":"user","content":"the of and"}]}`, 3 + 4 + 3},
		{`{"messages":[{"role":"user","content":"internationalization"}]}`, 4 + 4 + 3},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"a b"},{"type":"text","text":"c"}]}]}`, 3 + 4 + 3},
		{`{"messages":[{"role":"assistant","content":null},{"role":"user","content":"x"}]}`, 0 + 4 + 1 + 4 + 3},
	}
	for _, tc := range tests {
		req, err := parseChat(strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := req.promptTokens(); got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.body, got, tc.want)
		}
	}
}

// TestListenAndServe: the helper binds, serves and shuts down on ctx.
func TestListenAndServe(t *testing.T) {
	p, _ := sim.LookupProfile("soak-fast")
	s, err := sim.New(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- ListenAndServe(ctx, "127.0.0.1:0", s, func(a net.Addr) { addrc <- a.String() })
	}()
	addr := <-addrc
	resp, err := http.Get("http://" + addr + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ListenAndServe did not return")
	}
}
