package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func decodeBody(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body %s: %v", b, err)
	}
	return m
}

func TestRequestBodyAndHeaders(t *testing.T) {
	srv, rec := fixtureServer(t, "openai_role_usage")
	p := newTestProvider(t, srv, WithTemperature(0), WithIgnoreEOS(true),
		WithExtraBody(map[string]any{"top_k": 20, "chat_template_kwargs": map[string]any{"enable_thinking": false}, "temperature": 0.5}))
	if _, err := doOne(t, p); err != nil {
		t.Fatal(err)
	}
	raw, h, _ := rec.last()
	m := decodeBody(t, raw)
	want := map[string]any{
		"model": "test-model", "max_tokens": 16.0, "stream": true, "ignore_eos": true, "top_k": 20.0,
		"temperature": 0.5, // extra_body wins over the provider's own field
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("body[%s] = %v, want %v", k, m[k], v)
		}
	}
	if so, _ := m["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage", m["stream_options"])
	}
	if _, ok := m["max_completion_tokens"]; ok {
		t.Error("max_completion_tokens sent; llama.cpp ignores it, max_tokens is the default")
	}
	if got := h.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if got := h.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Accept = %q", got)
	}
	if got := h.Get("Accept-Encoding"); got != "" {
		t.Errorf("Accept-Encoding = %q: compression would buffer the stream", got)
	}
}

func TestTemperatureZeroIsSent(t *testing.T) {
	srv, rec := fixtureServer(t, "openai_role_usage")
	p := newTestProvider(t, srv, WithTemperature(0), WithMaxTokensField("max_completion_tokens"), WithIncludeUsage(false))
	if _, err := doOne(t, p); err != nil {
		t.Fatal(err)
	}
	raw, _, _ := rec.last()
	m := decodeBody(t, raw)
	if v, ok := m["temperature"]; !ok || v != 0.0 {
		t.Errorf("temperature = %v (present %v), want 0", v, ok)
	}
	if m["max_completion_tokens"] != 16.0 || m["max_tokens"] != nil || m["stream_options"] != nil {
		t.Errorf("body = %s", raw)
	}
}

func userText(t *testing.T, raw []byte) (system, user string) {
	t.Helper()
	var b struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.Messages {
		switch m.Role {
		case "system":
			system = m.Content
		case "user":
			user = m.Content
		}
	}
	return system, user
}

func TestSyntheticPrompts(t *testing.T) {
	p, err := New(WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := p.body(1, 1, 200, 10)
	a2, _ := p.body(1, 1, 200, 10)
	b, _ := p.body(1, 2, 200, 10)
	c, _ := p.body(2, 1, 200, 10)
	if string(a1) != string(a2) {
		t.Error("same seed and ID gave different prompts")
	}
	_, ua := userText(t, a1)
	_, ub := userText(t, b)
	_, uc := userText(t, c)
	if ua == ub || ua == uc {
		t.Error("prompts do not vary with ID and seed")
	}
	if n := len(strings.Fields(ua)); n != 200 {
		t.Errorf("prompt has %d words, want 200", n)
	}
	// The first words differ, so no prefix cache can reuse them.
	if strings.Fields(ua)[0]+strings.Fields(ua)[1] == strings.Fields(ub)[0]+strings.Fields(ub)[1] &&
		strings.Fields(ua)[2] == strings.Fields(ub)[2] {
		t.Error("prompts share a prefix")
	}
}

func TestSharedPrefix(t *testing.T) {
	p, err := New(WithModel("m"), WithSharedPrefix(150), WithSystemPrompt("You are terse."))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.body(1, 1, 200, 10)
	b, _ := p.body(1, 2, 200, 10)
	sa, ua := userText(t, a)
	sb, ub := userText(t, b)
	if sa != sb || !strings.HasPrefix(sa, "You are terse.\n\n") {
		t.Errorf("system prompts differ or lack the configured prefix: %.40q vs %.40q", sa, sb)
	}
	if n := len(strings.Fields(sa)) - 3; n != 150 {
		t.Errorf("shared prefix has %d words, want 150", n)
	}
	if ua == ub || len(strings.Fields(ua)) != 50 {
		t.Errorf("user parts: %d words, equal %v", len(strings.Fields(ua)), ua == ub)
	}
}

func TestPromptsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	data := `# recorded traffic
{"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"multi"}]}],"max_tokens":5}

{"prompt":"plain prompt"}
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := New(WithModel("m"), WithPromptsFile(path))
	if err != nil {
		t.Fatal(err)
	}
	b0, _ := p.body(1, 0, 999, 64)
	b1, _ := p.body(1, 1, 999, 64)
	b2, _ := p.body(1, 2, 999, 64)
	m0, m1 := decodeBody(t, b0), decodeBody(t, b1)
	if m0["max_tokens"] != 5.0 || m1["max_tokens"] != 64.0 {
		t.Errorf("max_tokens = %v, %v; want the line's 5, then the default 64", m0["max_tokens"], m1["max_tokens"])
	}
	if !strings.Contains(string(b0), `"content":[{"type":"text","text":"multi"}]`) {
		t.Errorf("multi-part content not passed through: %s", b0)
	}
	if _, u := userText(t, b1); u != "plain prompt" {
		t.Errorf("prompt line: user = %q", u)
	}
	if string(b2) != string(b0) {
		t.Error("request 2 should wrap to line 0")
	}
	for _, bad := range []string{`{"messages":[]}`, `{"x":1}`, `not json`, `{"prompt":"a","max_tokens":-1}`, ``} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := New(WithPromptsFile(path)); err == nil {
			t.Errorf("prompts file %q accepted", bad)
		}
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string // substring of the error; "" for success
	}{
		{"default", nil, ""},
		{"trailing slash", []Option{WithBaseURL("http://127.0.0.1:8000/v1/")}, ""},
		{"pasted endpoint", []Option{WithBaseURL("http://127.0.0.1:8000/v1/chat/completions")}, ""},
		{"no scheme", []Option{WithBaseURL("127.0.0.1:8000/v1")}, "want http:// or https://"},
		{"ftp", []Option{WithBaseURL("ftp://host/v1")}, "want http:// or https://"},
		{"no host", []Option{WithBaseURL("http:///v1")}, "no host"},
		{"garbage", []Option{WithBaseURL("http://[::1")}, "not a URL"},
		{"conns", []Option{WithMaxConns(0)}, "max_conns"},
		{"timeout", []Option{WithTimeout(-time.Second)}, "timeout"},
		{"prefix", []Option{WithSharedPrefix(-1)}, "shared_prefix_tokens"},
		{"field", []Option{WithMaxTokensField("max")}, "max_tokens_field"},
		{"extra", []Option{WithExtraBody(map[string]any{"f": func() {}})}, "extra_body.f"},
		{"prompts", []Option{WithPromptsFile("/nonexistent/prompts.jsonl")}, "prompts_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.opts...)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("New = %v, want error containing %q", err, tt.want)
			}
			if p != nil && strings.HasSuffix(p.chatURL, "/") {
				t.Errorf("chatURL %s", p.chatURL)
			}
			if tt.name == "pasted endpoint" && p.chatURL != "http://127.0.0.1:8000/v1/chat/completions" {
				t.Errorf("chatURL = %s", p.chatURL)
			}
		})
	}
}
