package openai

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"https://user:pass@api.example.com/v1", "https://api.example.com/v1"},
		{"https://sk-abc@api.example.com/v1", "https://api.example.com/v1"},
		{"https://x.openai.azure.com/openai?api-version=2024-02-01&api-key=s3cret", "https://x.openai.azure.com/openai?api-key=REDACTED&api-version=2024-02-01"},
		{"https://h/v1?token=t&sig=s", "https://h/v1?sig=REDACTED&token=REDACTED"},
		{"http://[::1", "(invalid URL)"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-default", "MY_KEY": " sk-mine\n", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
	get := func(k string) string { return env[k] }
	if got := ResolveKey(get, ""); got != "sk-default" {
		t.Errorf("ResolveKey default = %q", got)
	}
	if got := ResolveKey(get, "MY_KEY"); got != "sk-mine" {
		t.Errorf("ResolveKey(MY_KEY) = %q", got)
	}
	if got := ResolveKey(get, "UNSET"); got != "" {
		t.Errorf("ResolveKey(UNSET) = %q, want empty (no silent fallback to OPENAI_API_KEY)", got)
	}
	if got := ResolveBaseURL(get, ""); got != "http://127.0.0.1:9/v1" {
		t.Errorf("ResolveBaseURL env = %q", got)
	}
	if got := ResolveBaseURL(get, "http://x/v1"); got != "http://x/v1" {
		t.Errorf("ResolveBaseURL flag = %q", got)
	}
	if got := ResolveBaseURL(func(string) string { return "" }, ""); got != DefaultBaseURL {
		t.Errorf("ResolveBaseURL default = %q", got)
	}
}

func TestRedactorAndTrim(t *testing.T) {
	r := newRedactor("sk-secret-key", "https://bob:pw%2Fx@h/v1?key=qv")
	in := "key sk-secret-key, password pw/x (escaped pw%2Fx), user bob, query qv"
	got := r.clean(in)
	for _, s := range []string{"sk-secret-key", "pw/x", "pw%2Fx", "bob", "qv"} {
		if strings.Contains(got, s) {
			t.Errorf("clean(%q) = %q still contains %q", in, got, s)
		}
	}
	long := strings.Repeat("é ", 300)
	tm := trimMessage(long)
	if utf8.RuneCountInString(tm) != maxMessage+1 || !utf8.ValidString(tm) || !strings.HasSuffix(tm, "…") {
		t.Errorf("trimMessage: %d runes, valid %v", utf8.RuneCountInString(tm), utf8.ValidString(tm))
	}
	if got := trimMessage("  a\n\n b\t c  "); got != "a b c" {
		t.Errorf("trimMessage collapses space: %q", got)
	}
}
