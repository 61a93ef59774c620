package openai

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readBody returns the whole body whether it fits the read buffer or not,
// and however the reads are split.
func TestReadBody(t *testing.T) {
	for _, size := range []int{0, 1, 15, 16, 17, 100, 4096} {
		body := strings.Repeat("x", size)
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(body),
			"one byte": iotest.OneByteReader(strings.NewReader(body)),
			"data+EOF": iotest.DataErrReader(strings.NewReader(body)),
		} {
			got, err := readBody(bufio.NewReaderSize(r, 16))
			if err != nil || string(got) != body {
				t.Errorf("size %d, %s: got %d bytes, %v", size, name, len(got), err)
			}
		}
	}
	_, err := readBody(bufio.NewReaderSize(iotest.TimeoutReader(strings.NewReader("abc")), 16))
	if err != iotest.ErrTimeout {
		t.Errorf("read error: %v, want %v", err, iotest.ErrTimeout)
	}
}
