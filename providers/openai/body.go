package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"
)

// chatBody is the request body. It is kneepoint's own struct, not
// go-openai's ChatCompletionRequest, for three reasons found in its source:
// Temperature is float32 with omitempty (temperature 0, greedy decoding,
// cannot be sent), there is no field for server extensions such as
// ignore_eos, and nothing lets extra_body fields be merged in. Messages and
// stream options still use go-openai's types.
type chatBody struct {
	Model               string                  `json:"model,omitempty"`
	Messages            any                     `json:"messages"`
	MaxTokens           int                     `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                     `json:"max_completion_tokens,omitempty"`
	Stream              bool                    `json:"stream"`
	StreamOptions       *goopenai.StreamOptions `json:"stream_options,omitempty"`
	Temperature         *float64                `json:"temperature,omitempty"`
	IgnoreEOS           bool                    `json:"ignore_eos,omitempty"`
}

// encodeExtras turns extra_body into raw JSON once, at construction, so a
// bad value fails New rather than every request.
func encodeExtras(m map[string]any) (map[string]json.RawMessage, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra_body.%s: %v", k, err)
		}
		out[k] = b
	}
	return out, nil
}

// bodySize is a capacity that usually holds a request body whole.
func (p *Provider) bodySize(promptTokens int) int {
	return 160 + len(p.cfg.model) + len(p.cfg.systemPrompt) + 8*max(promptTokens, 1)
}

// appendBody appends the JSON for one request to b. It appends the fields
// of chatBody, in its order, straight into one buffer: encoding/json
// through go-openai's ChatCompletionMessage.MarshalJSON (a second Marshal
// per message, then a compaction pass) was over a third of the client's
// CPU per non-streaming request (BenchmarkBody). request_test.go checks
// the result against json.Marshal of chatBody. What b held before is kept,
// so the lean HTTP/1.1 path can reserve room for the request head in front.
func (p *Provider) appendBody(b []byte, seed int64, id uint64, promptTokens, maxTokens int) ([]byte, error) {
	start := len(b)
	if p.cfg.model != "" {
		b = append(b, `{"model":`...)
		b = appendJSONString(b, p.cfg.model)
		b = append(b, `,"messages":`...)
	} else {
		b = append(b, `{"messages":`...)
	}
	if len(p.prompts) > 0 {
		pl := p.prompts[id%uint64(len(p.prompts))]
		b = append(b, pl.messages...)
		if pl.maxTokens > 0 {
			maxTokens = pl.maxTokens
		}
	} else {
		b = appendSyntheticMessages(b, &p.cfg, p.vocab, p.packed, seed, id, promptTokens)
	}
	if maxTokens != 0 {
		if p.cfg.maxTokensField == "max_completion_tokens" {
			b = append(b, `,"max_completion_tokens":`...)
		} else {
			b = append(b, `,"max_tokens":`...)
		}
		b = strconv.AppendInt(b, int64(maxTokens), 10)
	}
	if p.cfg.stream {
		b = append(b, `,"stream":true`...)
		if p.cfg.includeUsage {
			b = append(b, `,"stream_options":{"include_usage":true}`...)
		}
	} else {
		b = append(b, `,"stream":false`...)
	}
	if p.cfg.temperature != nil {
		t, err := json.Marshal(*p.cfg.temperature)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"temperature":`...)
		b = append(b, t...)
	}
	if p.cfg.ignoreEOS {
		b = append(b, `,"ignore_eos":true`...)
	}
	b = append(b, '}')
	if len(p.extras) == 0 {
		return b, nil
	}
	// Merge extra_body over the provider's own fields.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b[start:], &m); err != nil {
		return nil, err
	}
	for k, v := range p.extras {
		m[k] = v
	}
	merged, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b[:start], merged...), nil
}

// appendJSONString appends s as a JSON string. Like encoding/json it
// escapes quotes, backslashes, control characters, <, >, & and U+2028/9,
// and replaces invalid UTF-8 with U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
