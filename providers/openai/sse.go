package openai

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds one SSE line. llama.cpp's final chunk carries timings and
// can be a few KB; anything past this is not a chat stream.
const maxLine = 4 << 20

var errLineTooLong = errors.New("event-stream line longer than 4 MiB")

// lineReader yields the lines of an event stream without their terminator
// (LF or CRLF). Lines are returned in the bufio buffer when they fit, so
// reading a line allocates nothing; longer lines are joined in long, which
// is reused.
type lineReader struct {
	r    *bufio.Reader
	long []byte
	// fresh is set when the last line needed a read from the connection;
	// when it is clear the line was already buffered, so it arrived with
	// the previous read and shares its timestamp (readStream).
	fresh bool
}

// next returns the next line, valid until the following call. A last line
// without a terminator is still returned; io.EOF comes after it.
func (lr *lineReader) next() ([]byte, error) {
	buffered := lr.r.Buffered()
	line, err := lr.r.ReadSlice('\n')
	lr.fresh = len(line) > buffered
	if err == bufio.ErrBufferFull {
		lr.fresh = true
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, line...)
			if len(lr.long) > maxLine {
				return nil, errLineTooLong
			}
		}
		line = lr.long
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	return trimEOL(line), nil
}

// trimEOL drops a line's terminator: LF or CRLF (or nothing, for a last
// line without one).
func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// sseField splits an event-stream line into its field name and value, as
// the SSE specification says: a line starting with ':' is a comment
// (comment=true), a single space after the colon is dropped ("data:x" and
// "data: x" are the same), and a line without a colon is a field with an
// empty value.
func sseField(line []byte) (name, value []byte, comment bool) {
	if len(line) > 0 && line[0] == ':' {
		return nil, nil, true
	}
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return line, nil, false
	}
	value = line[i+1:]
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return line[:i], value, false
}
