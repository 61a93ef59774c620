package openai

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// referenceBody is what body produced before it appended JSON by hand:
// json.Marshal of chatBody with go-openai's messages. The fast encoder must
// match it byte for byte.
// body builds the JSON for one request, as Do does without the lean
// client's reserved head room.
func (p *Provider) body(seed int64, id uint64, promptTokens, maxTokens int) ([]byte, error) {
	return p.appendBody(make([]byte, 0, p.bodySize(promptTokens)), seed, id, promptTokens, maxTokens)
}

func referenceBody(p *Provider, seed int64, id uint64, promptTokens, maxTokens int) []byte {
	b := chatBody{Model: p.cfg.model, Stream: p.cfg.stream, Temperature: p.cfg.temperature, IgnoreEOS: p.cfg.ignoreEOS}
	if len(p.prompts) > 0 {
		pl := p.prompts[id%uint64(len(p.prompts))]
		b.Messages = pl.messages
		if pl.maxTokens > 0 {
			maxTokens = pl.maxTokens
		}
	} else {
		b.Messages = syntheticMessages(&p.cfg, p.vocab, seed, id, promptTokens)
	}
	if p.cfg.maxTokensField == "max_completion_tokens" {
		b.MaxCompletionTokens = maxTokens
	} else {
		b.MaxTokens = maxTokens
	}
	if p.cfg.stream && p.cfg.includeUsage {
		b.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
	}
	raw, _ := json.Marshal(&b)
	return raw
}

func TestBodyMatchesEncodingJSON(t *testing.T) {
	prompts := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(prompts, []byte(`{"messages":[{"role":"user","content":"hi <b> & \"q\""}],"max_tokens":7}`+"\n"+`{"prompt":"line\ttwo\u2028"}`+"\n"), 0o644)
	cases := []struct {
		name string
		opts []Option
	}{
		{"default", []Option{WithModel("m")}},
		{"no model", nil},
		{"non-streaming", []Option{WithModel("m"), WithStream(false)}},
		{"no usage", []Option{WithModel("m"), WithIncludeUsage(false)}},
		{"temperature 0", []Option{WithModel("m"), WithTemperature(0)}},
		{"temperature 0.7", []Option{WithModel("m"), WithTemperature(0.7)}},
		{"temperature tiny", []Option{WithModel("m"), WithTemperature(1e-9)}},
		{"ignore eos", []Option{WithModel("m"), WithIgnoreEOS(true)}},
		{"max_completion_tokens", []Option{WithModel("m"), WithMaxTokensField("max_completion_tokens")}},
		{"odd model", []Option{WithModel("org/m<1>&\"x\"\\ é\u2028\x01")}},
		{"system prompt", []Option{WithModel("m"), WithSystemPrompt("Be \"terse\".\n\tNo <html> & \x7f ünïcode \u2029")}},
		{"shared prefix", []Option{WithModel("m"), WithSharedPrefix(40)}},
		{"system and shared", []Option{WithModel("m"), WithSystemPrompt("sys"), WithSharedPrefix(40)}},
		{"prompts file", []Option{WithModel("m"), WithPromptsFile(prompts)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, shape := range []struct{ prompt, max int }{{150, 128}, {1, 1}, {0, 0}, {50, -1}, {3, 16}} {
				for id := uint64(0); id < 3; id++ {
					got, err := p.body(7, id, shape.prompt, shape.max)
					if err != nil {
						t.Fatal(err)
					}
					want := referenceBody(p, 7, id, shape.prompt, shape.max)
					if !bytes.Equal(got, want) {
						t.Fatalf("prompt %d max %d id %d:\n got %s\nwant %s", shape.prompt, shape.max, id, got, want)
					}
				}
			}
		})
	}
}

func TestVocabNeedsNoEscaping(t *testing.T) {
	for _, w := range newVocab() {
		if q := appendJSONString(nil, w); string(q) != `"`+w+`"` {
			t.Errorf("vocabulary word %q needs escaping", w)
		}
	}
	if packWords(newVocab()) == nil {
		t.Error("a vocabulary word is too long to pack: appendWords falls back to copying")
	}
}

func TestAppendWordsPackedAndCopied(t *testing.T) {
	vocab := newVocab()
	for _, n := range []int{0, 1, 2, 150} {
		r1, r2, r3 := newRNG(3, 9), newRNG(3, 9), newRNG(3, 9)
		var sb strings.Builder
		words(&sb, vocab, &r1, n)
		packed := appendWords([]byte("x"), vocab, packWords(vocab), &r2, n)
		copied := appendWords([]byte("x"), vocab, nil, &r3, n)
		if want := "x" + sb.String(); string(packed) != want || string(copied) != want {
			t.Errorf("n=%d: packed %q, copied %q, want %q", n, packed, copied, want)
		}
	}
	if packWords([]string{"toolongword"}) != nil {
		t.Error("packWords accepted a word over 7 bytes")
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "<>&", "\x00\x1f\x7f", "é€😀", "\u2028\u2029", "\xff\xfe bad", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// BenchmarkBody is building one request body (150 prompt tokens).
func BenchmarkBody(b *testing.B) {
	p, _ := New(WithModel("meta-llama/Llama-3.1-8B-Instruct"))
	b.ReportAllocs()
	id := uint64(0)
	for b.Loop() {
		id++
		if _, err := p.body(1, id, 150, 128); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBodyReference(b *testing.B) {
	p, _ := New(WithModel("meta-llama/Llama-3.1-8B-Instruct"))
	b.ReportAllocs()
	id := uint64(0)
	for b.Loop() {
		id++
		referenceBody(p, 1, id, 150, 128)
	}
}
