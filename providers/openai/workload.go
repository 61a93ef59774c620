package openai

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"
)

// Synthetic prompts are words drawn from a fixed vocabulary of common,
// short English words. Each is a single token (with its leading space) in
// the GPT (cl100k/o200k) and Llama 3 tokenizers, so a prompt of n words is
// about n tokens; the chat template adds a handful more (typically 5-15).
// Words come from a generator seeded by (Seed, ID), so a run is
// reproducible while no two requests share a prefix a cache could reuse,
// unless WithSharedPrefix asks for one.
const vocabText = `
the of and to in is was for on that with as by at from his it an be are
this which or had not but have one were they all she there has been first
their new more would when other who its time can into some after only two
most also out her over year were up about many then them these so may
any people such city through world well where between three state made
later each part during used while under him life since both game house
day four work high long take same school back name small use best group
old team five film end form west north song right number make did early
next last line place way music side down because road war water man
very set series still area play little family before show around open
half land own women top law great point main word late should even sea
market free king much hand off six large light power since often near
church role head body line fire local order field again among run
light case hard once story book river far club level stone month
king party early army plan near list ten sent mind best range care
kind view room white black red blue green gold rock star tree cold
wind rain snow hill lake bank port farm shop food seed bird fish horse
dog cat door wall road bridge tower train ship boat car plane glass
paper letter voice sound color shape table chair bed window garden field
`

// rng is splitmix64: tiny, fast and good enough to pick words.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// wordPicker draws word indices in [0, n): two per 64-bit draw, each by
// multiply-shift (Lemire) rather than a division, which made building a
// 150-word prompt cost more than the rest of a request's client work.
type wordPicker struct {
	r    *rng
	n    uint64
	x    uint64
	have bool // the low half of x is still unused
}

func (w *wordPicker) next() int {
	var h uint64
	if w.have {
		h = w.x & 0xffffffff
	} else {
		w.x = w.r.next()
		h = w.x >> 32
	}
	w.have = !w.have
	return int((h * w.n) >> 32)
}

func newRNG(seed int64, id uint64) rng {
	r := rng(uint64(seed) ^ (id+1)*0xd1b54a32d192ed03)
	r.next()
	return r
}

// newVocab splits vocabText, dropping repeats.
func newVocab() []string {
	seen := map[string]bool{}
	var v []string
	for _, w := range strings.Fields(vocabText) {
		if !seen[w] {
			seen[w] = true
			v = append(v, w)
		}
	}
	return v
}

// words appends n vocabulary words separated by spaces.
func words(sb *strings.Builder, vocabulary []string, r *rng, n int) {
	pick := wordPicker{r: r, n: uint64(len(vocabulary))}
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(vocabulary[pick.next()])
	}
}

// syntheticMessages builds the chat messages for one request: an optional
// system message (the configured system prompt, then sharedPrefix words
// common to every request of the run) and a user message of the remaining
// prompt tokens, different for every request.
func syntheticMessages(cfg *config, vocab []string, seed int64, id uint64, promptTokens int) []goopenai.ChatCompletionMessage {
	msgs := make([]goopenai.ChatCompletionMessage, 0, 2)
	shared := min(cfg.sharedPrefix, max(promptTokens-1, 0))
	if cfg.systemPrompt != "" || shared > 0 {
		var sb strings.Builder
		sb.Grow(len(cfg.systemPrompt) + 8*shared + 2)
		sb.WriteString(cfg.systemPrompt)
		if shared > 0 {
			if sb.Len() > 0 {
				sb.WriteString("\n\n")
			}
			r := newRNG(seed, ^uint64(0)) // the same for every request
			words(&sb, vocab, &r, shared)
		}
		msgs = append(msgs, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleSystem, Content: sb.String()})
	}
	n := max(promptTokens-shared, 1)
	var sb strings.Builder
	sb.Grow(8 * n)
	r := newRNG(seed, id)
	words(&sb, vocab, &r, n)
	msgs = append(msgs, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser, Content: sb.String()})
	return msgs
}

// appendSyntheticMessages appends the JSON array syntheticMessages would
// marshal to, with the same words, without building the messages first.
// Vocabulary words are plain ASCII letters (newVocab's test checks), so
// only the configured system prompt needs escaping.
func appendSyntheticMessages(b []byte, cfg *config, vocab []string, packed []packedWord, seed int64, id uint64, promptTokens int) []byte {
	b = append(b, '[')
	shared := min(cfg.sharedPrefix, max(promptTokens-1, 0))
	if cfg.systemPrompt != "" || shared > 0 {
		b = append(b, `{"role":"system","content":`...)
		b = appendJSONString(b, cfg.systemPrompt)
		b = b[:len(b)-1] // reopen the string
		if shared > 0 {
			if cfg.systemPrompt != "" {
				b = append(b, `\n\n`...)
			}
			r := newRNG(seed, ^uint64(0)) // the same for every request
			b = appendWords(b, vocab, packed, &r, shared)
		}
		b = append(b, `"},`...)
	}
	n := max(promptTokens-shared, 1)
	r := newRNG(seed, id)
	b = append(b, `{"role":"user","content":"`...)
	b = appendWords(b, vocab, packed, &r, n)
	return append(b, `"}]`...)
}

// packedWord is a vocabulary word followed by a space, packed little-endian
// into 8 bytes (every word is at most 7 letters; packWords checks), so
// appending one is a single 8-byte store instead of a copy call: building
// the prompt was most of the cost of a request body.
type packedWord struct {
	bits uint64
	n    int
}

// packWords packs the vocabulary; it returns nil if a word does not fit,
// and appendWords then falls back to copying.
func packWords(vocab []string) []packedWord {
	out := make([]packedWord, len(vocab))
	for i, w := range vocab {
		if len(w) > 7 {
			return nil
		}
		var buf [8]byte
		copy(buf[:], w)
		buf[len(w)] = ' '
		out[i] = packedWord{bits: binary.LittleEndian.Uint64(buf[:]), n: len(w) + 1}
	}
	return out
}

// appendWords appends the same n words words would, separated by spaces.
func appendWords(b []byte, vocab []string, packed []packedWord, r *rng, n int) []byte {
	if n <= 0 {
		return b
	}
	pick := wordPicker{r: r, n: uint64(len(vocab))}
	if len(packed) != len(vocab) {
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, vocab[pick.next()]...)
		}
		return b
	}
	b = slices.Grow(b, 8*n)
	l := len(b)
	out := b[:l+8*n]
	for i := 0; i < n; i++ {
		w := packed[pick.next()]
		binary.LittleEndian.PutUint64(out[l:l+8], w.bits)
		l += w.n
	}
	return out[:l-1] // drop the last word's space
}

// promptLine is one recorded request from a prompts file. messages is kept
// as raw JSON so multi-part content and tool messages pass through intact.
type promptLine struct {
	messages  json.RawMessage
	maxTokens int
}

// loadPrompts reads a JSONL prompts file. Blank lines and lines starting
// with # are skipped; anything else must be {"messages":[...]} or
// {"prompt":"..."} with an optional positive "max_tokens".
func loadPrompts(path string) ([]promptLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prompts_file: %w", err)
	}
	var out []promptLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var rec struct {
			Messages  json.RawMessage `json:"messages"`
			Prompt    *string         `json:"prompt"`
			MaxTokens int             `json:"max_tokens"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("prompts_file %s line %d: %v", path, n, err)
		}
		var pl promptLine
		switch {
		case len(rec.Messages) > 0:
			var msgs []json.RawMessage
			if err := json.Unmarshal(rec.Messages, &msgs); err != nil || len(msgs) == 0 {
				return nil, fmt.Errorf("prompts_file %s line %d: messages must be a non-empty array", path, n)
			}
			// Compacted and HTML-escaped once here, as json.Marshal would
			// on every request, so body can append the bytes as they are.
			var c, e bytes.Buffer
			if err := json.Compact(&c, rec.Messages); err != nil {
				return nil, fmt.Errorf("prompts_file %s line %d: %v", path, n, err)
			}
			json.HTMLEscape(&e, c.Bytes())
			pl.messages = e.Bytes()
		case rec.Prompt != nil:
			m, _ := json.Marshal([]goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: *rec.Prompt}})
			pl.messages = m
		default:
			return nil, fmt.Errorf("prompts_file %s line %d: want \"messages\" or \"prompt\"", path, n)
		}
		if rec.MaxTokens < 0 {
			return nil, fmt.Errorf("prompts_file %s line %d: max_tokens must not be negative", path, n)
		}
		pl.maxTokens = rec.MaxTokens
		out = append(out, pl)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("prompts_file %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("prompts_file %s: no prompts", path)
	}
	return out, nil
}
