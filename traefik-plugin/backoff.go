package slicewayplugin

import "time"

// Each stream the plugin opens hands Traefik a whole configuration, which
// Traefik then reloads whole. So how often the plugin reconnects bounds
// how often a broken or hostile server makes Traefik reload: the wait
// before a reconnection must grow while streams keep failing, and go
// back to its minimum only once a stream has proved steady, never after
// one frame (else a server sending one good frame and then a bad one
// makes Traefik reload every minBackoff, forever).

// steadyFloor is the least time a stream must deliver valid frames to
// count as steady: two of serve's heartbeat intervals (15 s), so that an
// idle but healthy stream proves itself with its beats, not with its
// first frame alone.
const steadyFloor = 30 * time.Second

// steadyAfter is how long a stream must deliver valid frames, from its
// opening to its last valid frame, before the backoff starts again from
// its minimum: steadyFloor, or maxBackoff when longer. Not less than
// maxBackoff, so that a server earns each reset with at least the
// longest wait of steady streaming: a server that streams properly just
// long enough, then fails, then flaps, gets at most one round of short
// waits (about log2(maxBackoff/minBackoff) reconnections: 7 with the
// defaults, over about 60 s) per such reset, that is with the defaults
// at most 8 reconnections, each a reload, in 90 s, against 2 a second
// with a reset after every frame.
func steadyAfter(max time.Duration) time.Duration {
	if max > steadyFloor {
		return max
	}
	return steadyFloor
}

// backoff is the wait before each reconnection: min after a steady
// stream (and at the start), then doubled after each stream that was not
// steady, up to max.
type backoff struct {
	min, max time.Duration
	next     time.Duration // the wait after the next unsteady stream; 0: min
}

// after returns the wait after a stream that ended; steady says whether
// it delivered valid frames for steadyAfter.
func (b *backoff) after(steady bool) time.Duration {
	if steady || b.next == 0 {
		b.next = b.min
	}
	wait := b.next
	b.next = 2 * wait
	if b.next > b.max {
		b.next = b.max
	}
	return wait
}
