package openai

import (
	"encoding/json"
	"fmt"

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

// body builds the JSON for one request.
func (p *Provider) body(seed int64, id uint64, promptTokens, maxTokens int) ([]byte, error) {
	b := chatBody{
		Model:       p.cfg.model,
		Stream:      p.cfg.stream,
		Temperature: p.cfg.temperature,
		IgnoreEOS:   p.cfg.ignoreEOS,
	}
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
	raw, err := json.Marshal(&b)
	if err != nil || len(p.extras) == 0 {
		return raw, err
	}
	// Merge extra_body over the provider's own fields.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range p.extras {
		m[k] = v
	}
	return json.Marshal(m)
}
