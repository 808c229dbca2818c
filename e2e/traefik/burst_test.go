package traefike2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// AtLeastOne, as a count of Request.Statuses, is any number of answers
// above zero.
const AtLeastOne = -1

// maxBurst bounds Request.Burst: each request is a connection to Traefik
// and a goroutine.
const maxBurst = 100

// burstTimeout bounds a whole burst: every request has the client's
// timeout, and a held one is let go after holdTimeout at the latest.
const burstTimeout = 30 * time.Second

// holdTimeout bounds how long a backend holds a request of a burst, so
// that a burst whose other answers never come (a request lost on its
// way) does not hold it for ever.
const holdTimeout = 10 * time.Second

// gate holds the requests a burst sends to a path with a segment "hold"
// at their backend, until the burst lets them go: then every request of
// the burst was in flight at once, which is what an in-flight limit
// (limit-connections) must see. There is one burst at a time, so one gate
// serves every backend.
type gate struct {
	mu   sync.Mutex
	held int
	open chan struct{}
}

var holds = &gate{open: make(chan struct{})}

// holdsPath says whether an echo backend must hold a request for path.
func holdsPath(path string) bool {
	return slices.Contains(strings.Split(path, "/"), "hold")
}

// wait holds a request until the gate opens, its client gives up or
// holdTimeout passes.
func (g *gate) wait(ctx context.Context) {
	g.mu.Lock()
	g.held++
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
	case <-time.After(holdTimeout):
	}
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
}

func (g *gate) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// release lets every held request go; later ones wait for the next
// release.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.open)
	g.open = make(chan struct{})
}

// burst sends r.Burst copies of r at once and checks how many answers
// have each status. The held requests are let go once every request of
// the burst is either answered or held: none is on its way any more.
func (s *suite) burst(t *testing.T, c *Case, r *Request) {
	t.Helper()
	type answer struct {
		status int
		err    error
	}
	answers := make(chan answer, r.Burst)
	for i := range r.Burst {
		req := *r
		if len(r.BurstHosts) > 0 {
			req.Host = r.BurstHosts[i%len(r.BurstHosts)]
		}
		go func() {
			res, err := send(s.client, c, &req)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			answers <- answer{status: res.Status}
		}()
	}
	counts := map[int]int{}
	var wrong []string
	released := false
	deadline := time.Now().Add(burstTimeout)
	for got := 0; got < r.Burst; {
		if !released && got+holds.waiting() >= r.Burst {
			holds.release()
			released = true
		}
		if time.Now().After(deadline) {
			holds.release()
			wrong = append(wrong, fmt.Sprintf("only %d of %d answers within %s", got, r.Burst, burstTimeout))
			break
		}
		select {
		case a := <-answers:
			got++
			if a.err != nil {
				wrong = append(wrong, a.err.Error())
			} else {
				counts[a.status]++
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
	wrong = append(wrong, checkStatuses(counts, r.Statuses)...)
	if len(wrong) > 0 {
		wrong = append(wrong, fmt.Sprintf("statuses of the %d answers: %v", r.Burst, counts))
		s.fail(t, c, r, nil, wrong)
	}
}

// checkStatuses compares the statuses of a burst's answers with what
// they must be.
func checkStatuses(counts, want map[int]int) []string {
	var wrong []string
	for status, n := range counts {
		if _, ok := want[status]; !ok {
			wrong = append(wrong, fmt.Sprintf("%d answers %d %s, want none", n, status, http.StatusText(status)))
		}
	}
	for _, status := range sortedInts(want) {
		n := want[status]
		switch got := counts[status]; {
		case n == AtLeastOne && got == 0:
			wrong = append(wrong, fmt.Sprintf("no answer %d, want at least one", status))
		case n != AtLeastOne && got != n:
			wrong = append(wrong, fmt.Sprintf("%d answers %d, want %d", got, status, n))
		}
	}
	slices.Sort(wrong)
	return wrong
}

func sortedInts(m map[int]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
