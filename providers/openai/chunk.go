package openai

import (
	"bytes"
	"errors"
)

// chunkInfo is everything one streamed chunk tells the timer. It is filled by
// scanChunk straight from the bytes on the wire, without decoding the chunk
// into Go values, so the per-chunk path allocates nothing.
type chunkInfo struct {
	// output is set when some choice carries generated output: non-empty
	// content, reasoning_content, reasoning, refusal or text, or a
	// non-empty tool_calls / function_call. A role-only chunk
	// ({"role":"assistant","content":""}) has no output.
	output bool
	// finished is set when some choice has a non-null finish_reason.
	finished bool
	// usage is set when the chunk has a non-null usage object; the counts
	// are its prompt_tokens and completion_tokens.
	usage            bool
	promptTokens     int
	completionTokens int
	// isError is set when the chunk has a non-null top-level "error"
	// member: the server failed after it had sent 200.
	isError bool
}

// Scanner errors. errShort means the input ended inside the JSON value (the
// event may continue on the next data line); errSyntax means it never can be
// valid JSON.
var (
	errShort  = errors.New("chunk ends early")
	errSyntax = errors.New("chunk is not valid JSON")
)

// maxDepth bounds nesting so hostile input cannot recurse without limit.
const maxDepth = 256

// scanChunk reads one chat-completion chunk (or a non-streaming response
// body: "message" is read like "delta"). It validates the JSON structure as
// it goes but only looks at the few members that matter for timing.
func scanChunk(b []byte) (chunkInfo, error) {
	s := jsonScan{b: b}
	var info chunkInfo
	if err := s.topObject(&info); err != nil {
		return chunkInfo{}, err
	}
	s.ws()
	if s.i != len(s.b) {
		return chunkInfo{}, errSyntax
	}
	return info, nil
}

// jsonScan is a minimal, non-allocating JSON walker over a byte slice.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it.
func (s *jsonScan) peek() (byte, error) {
	s.ws()
	if s.i >= len(s.b) {
		return 0, errShort
	}
	return s.b[s.i], nil
}

// expect consumes byte c after optional space.
func (s *jsonScan) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return errSyntax
	}
	s.i++
	return nil
}

// str consumes a string and returns its raw (still escaped) contents. It
// jumps from quote to quote with bytes.IndexByte (vectorised) and checks
// the backslashes before each; control characters are not rejected.
func (s *jsonScan) str() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.i
	for {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			s.i = len(s.b)
			return nil, errShort
		}
		end := s.i + j
		bs := 0
		for k := end - 1; k >= start && s.b[k] == '\\'; k-- {
			bs++
		}
		s.i = end + 1
		if bs%2 == 0 {
			return s.b[start:end], nil
		}
	}
}

// members walks an object (the opening brace not yet consumed) and calls
// field for each key with the scanner positioned at its value; field must
// consume the value.
func (s *jsonScan) members(depth int, field func(key []byte) error) error {
	if depth > maxDepth {
		return errSyntax
	}
	if err := s.expect('{'); err != nil {
		return err
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		s.i++
		return nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return err
		}
		s.i++
		switch c {
		case ',':
		case '}':
			return nil
		default:
			return errSyntax
		}
	}
}

// elements walks an array, calling elem with the scanner at each element.
func (s *jsonScan) elements(depth int, elem func() error) error {
	if depth > maxDepth {
		return errSyntax
	}
	if err := s.expect('['); err != nil {
		return err
	}
	c, err := s.peek()
	if err != nil {
		return err
	}
	if c == ']' {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		c, err := s.peek()
		if err != nil {
			return err
		}
		s.i++
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return errSyntax
		}
	}
}

// skip consumes any value.
func (s *jsonScan) skip(depth int) error {
	c, err := s.peek()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		return s.members(depth+1, func([]byte) error { return s.skip(depth + 1) })
	case c == '[':
		return s.elements(depth+1, func() error { return s.skip(depth + 1) })
	case c == '"':
		_, err := s.str()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.number()
		return err
	}
	return errSyntax
}

func (s *jsonScan) literal(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.i+k >= len(s.b) {
			return errShort
		}
		if s.b[s.i+k] != lit[k] {
			return errSyntax
		}
	}
	s.i += len(lit)
	return nil
}

// number consumes a JSON number and returns its integer part (saturating),
// which is all token counts need.
func (s *jsonScan) number() (int, error) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	n, digits := 0, 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if n < 1<<30 { // a token count; saturate instead of overflowing (32-bit int too)
			n = n*10 + int(s.b[s.i]-'0')
		}
		s.i++
		digits++
	}
	if digits == 0 {
		if s.i >= len(s.b) {
			return 0, errShort
		}
		return 0, errSyntax
	}
	// Fraction and exponent: validated, not used.
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if err := s.digits(); err != nil {
			return 0, err
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if err := s.digits(); err != nil {
			return 0, err
		}
	}
	if s.i >= len(s.b) {
		// A number at the very end of the input may continue.
		return 0, errShort
	}
	if s.b[start] == '-' {
		n = -n
	}
	return n, nil
}

func (s *jsonScan) digits() error {
	k := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		k++
	}
	if k == 0 {
		if s.i >= len(s.b) {
			return errShort
		}
		return errSyntax
	}
	return nil
}

// nonEmpty consumes a value and reports whether it carries output: a
// non-empty string, array or object, a number or true. null, false, "",
// [] and {} carry nothing.
func (s *jsonScan) nonEmpty(depth int) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	start := s.i
	switch c {
	case 'n', 'f':
		return false, s.skip(depth)
	case '"':
		raw, err := s.str()
		return len(raw) > 0, err
	case '[', '{':
		if err := s.skip(depth); err != nil {
			return false, err
		}
		// Anything between the brackets other than space is content.
		for k := start + 1; k < s.i-1; k++ {
			switch s.b[k] {
			case ' ', '\t', '\n', '\r':
			default:
				return true, nil
			}
		}
		return false, nil
	}
	return true, s.skip(depth)
}

// isNull consumes null and reports whether the next value was null.
func (s *jsonScan) isNull() (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	if c != 'n' {
		return false, nil
	}
	return true, s.literal("null")
}

func (s *jsonScan) topObject(info *chunkInfo) error {
	return s.members(0, func(key []byte) error {
		switch string(key) {
		case "choices":
			c, err := s.peek()
			if err != nil {
				return err
			}
			if c != '[' {
				return s.skip(1)
			}
			return s.elements(1, func() error {
				c, err := s.peek()
				if err != nil {
					return err
				}
				if c != '{' {
					return s.skip(2)
				}
				return s.choice(info)
			})
		case "usage":
			null, err := s.isNull()
			if err != nil || null {
				return err
			}
			if c, _ := s.peek(); c != '{' {
				return s.skip(1)
			}
			info.usage = true
			return s.usage(info)
		case "error":
			null, err := s.isNull()
			if err != nil || null {
				return err
			}
			info.isError = true
			return s.skip(1)
		}
		return s.skip(1)
	})
}

func (s *jsonScan) choice(info *chunkInfo) error {
	return s.members(2, func(key []byte) error {
		switch string(key) {
		case "delta", "message":
			c, err := s.peek()
			if err != nil {
				return err
			}
			if c != '{' {
				return s.skip(3)
			}
			return s.delta(info)
		case "text":
			out, err := s.nonEmpty(3)
			if out {
				info.output = true
			}
			return err
		case "finish_reason":
			fin, err := s.nonEmpty(3)
			if fin {
				info.finished = true
			}
			return err
		}
		return s.skip(3)
	})
}

func (s *jsonScan) delta(info *chunkInfo) error {
	return s.members(3, func(key []byte) error {
		switch string(key) {
		case "content", "reasoning_content", "reasoning", "refusal", "tool_calls", "function_call":
			out, err := s.nonEmpty(4)
			if out {
				info.output = true
			}
			return err
		}
		return s.skip(4)
	})
}

func (s *jsonScan) usage(info *chunkInfo) error {
	return s.members(2, func(key []byte) error {
		switch string(key) {
		case "prompt_tokens", "completion_tokens":
			c, err := s.peek()
			if err != nil {
				return err
			}
			if c != '-' && (c < '0' || c > '9') {
				return s.skip(3)
			}
			n, err := s.number()
			if err != nil {
				return err
			}
			if n < 0 {
				n = 0
			}
			if key[0] == 'p' {
				info.promptTokens = n
			} else {
				info.completionTokens = n
			}
			return nil
		}
		return s.skip(3)
	})
}
