package slicewayplugin

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The stream is one JSON value per line, and a line is read whole before
// it is decoded. So the line must be bounded: a server that never ends
// its line would otherwise have the plugin, inside Traefik, hold all it
// sends (2.4 GB in 8 s on loopback).

// defaultMaxFrameSize bounds one frame. It must stay above any real
// configuration, or the plugin would drop a good stream forever: a full
// frame of sliceway at 10,000 Services is about 11 MB, tens of MB with a
// TLS certificate and key inline per Ingress, and a delta frame is
// smaller than a full one. 256 MiB is twenty times the first and still
// several times the second, while a server that sends one endless line
// costs Traefik this much at most, not all its memory.
const defaultMaxFrameSize = "256MiB"

// errFrameTooLarge wraps the end of a stream on a line longer than the
// limit. (A sentinel: errors.As fails on the interpreter's types.)
var errFrameTooLarge = errors.New("frame too large")

// errBadFrame wraps the end of a stream on a line that is not JSON: not
// something a sliceway serve writes.
var errBadFrame = errors.New("a frame that is not JSON")

// frameReader reads the stream's lines, each at most limit bytes without
// its newline. What it holds stays bounded, whatever the server sends:
// the line read so far (never more than limit: a chunk that would pass
// it ends the read before it is kept) and its bufio buffer (1 MiB, or
// limit+1 when that is less). So at most limit plus that buffer is read
// from the server before a line over the limit ends the stream.
type frameReader struct {
	r     *bufio.Reader
	limit int
	text  string // the limit as configured, for the error
}

// newFrameReader reads lines of at most limit bytes from body; text is
// the limit as the user wrote it.
func newFrameReader(body io.Reader, limit int, text string) *frameReader {
	size := 1 << 20
	if limit < size {
		size = limit + 1 // a small limit wants no large buffer
	}
	return &frameReader{r: bufio.NewReaderSize(body, size), limit: limit, text: text}
}

// next returns the next whole line, without its newline. A line cut
// short (the stream ends before its newline) is an error, never a line:
// it is never handed on. A line over the limit is errFrameTooLarge, and
// the caller must drop the stream: the rest of the line is not read.
func (f *frameReader) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		size := len(line) + len(chunk)
		if err == nil {
			size-- // the newline is not the frame's
		}
		if size > f.limit {
			return nil, fmt.Errorf("%w: serve sent a line of more than maxFrameSize, %s (%d bytes), and the stream was dropped", errFrameTooLarge, f.text, f.limit)
		}
		if err == nil {
			// ReadSlice's chunk is the reader's buffer: it is copied,
			// and a line that came in one chunk is one allocation.
			return append(line, chunk[:len(chunk)-1]...), nil
		}
		if err != bufio.ErrBufferFull {
			return nil, err
		}
		line = append(line, chunk...)
	}
}

// sizeUnits are the suffixes a size option takes, longer ones first so
// that "MiB" is not read as "B".
var sizeUnits = []struct {
	suffix string
	bytes  int
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"B", 1},
}

// byteSize reads a size option: a number of bytes, alone or with one of
// KiB, MiB, GiB (1024s), KB, MB, GB (1000s) or B; def when text is
// empty. It returns the bytes and the text the option was read from.
func byteSize(name, text, def string) (int, string, error) {
	if text == "" {
		text = def
	}
	number := strings.TrimSpace(text)
	unit := 1
	for _, u := range sizeUnits {
		if strings.HasSuffix(number, u.suffix) {
			// Two assignments: Yaegi mixes up tuples that hold a call.
			number = strings.TrimSpace(strings.TrimSuffix(number, u.suffix))
			unit = u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(number, 10, 64)
	maxInt := int64(^uint(0) >> 1)
	if err != nil || n <= 0 || n > maxInt/int64(unit) {
		return 0, "", fmt.Errorf("sliceway: %s %q: a positive size is wanted, in bytes or with KiB, MiB or GiB (%q)", name, text, def)
	}
	return int(n) * unit, text, nil
}
