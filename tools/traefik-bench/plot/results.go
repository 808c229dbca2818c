package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Results are the rows of tools/traefik-bench/run's results.tsv: a header
// line of tab-separated column names, then one line a round of one
// cluster size. The column "services" holds the size; every column whose
// name ends in "_ns" is a series of render times in nanoseconds (traefik,
// full, warm, slice); the others (round, *_bytes, *_allocs) are kept in
// the file for the performance page and not plotted. A value "-" is a
// measurement that was not taken.
type Results struct {
	// Series are the names of the *_ns columns without the suffix, in the
	// header's order, which is the order of the legend.
	Series []string
	// Sizes are the distinct cluster sizes, increasing.
	Sizes []int
	// Rounds is the largest number of rows any size has.
	Rounds int
	// Medians[series][i] is the median time (ns) of Sizes[i] in that
	// series, NaN where no round measured it.
	Medians map[string][]float64
}

// missing is what the run script writes for a measurement it did not
// take, so that one failed benchmark leaves a gap, not a wrong number.
const missing = "-"

// ParseResults reads a results table. An error names the line (1-based,
// the header being line 1) and the column that is wrong, as a file
// edited or concatenated by hand is the likely source of one.
func ParseResults(r io.Reader, name string) (*Results, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	var header []string
	sizeCol := -1
	var seriesCols []int
	res := &Results{Medians: map[string][]float64{}}
	// values[series][services] are the measured times of every round.
	values := map[string]map[int][]float64{}
	rows := map[int]int{}
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if header == nil {
			header = fields
			for i, h := range header {
				h = strings.TrimSpace(h)
				header[i] = h
				switch {
				case h == "services":
					sizeCol = i
				case strings.HasSuffix(h, "_ns") && len(h) > len("_ns"):
					s := strings.TrimSuffix(h, "_ns")
					if slices.Contains(res.Series, s) {
						return nil, fmt.Errorf("%s:%d: column %q appears twice", name, line, h)
					}
					res.Series = append(res.Series, s)
					seriesCols = append(seriesCols, i)
					values[s] = map[int][]float64{}
				}
			}
			if sizeCol < 0 {
				return nil, fmt.Errorf("%s:%d: the header has no column \"services\" (tab-separated names expected)", name, line)
			}
			if len(seriesCols) == 0 {
				return nil, fmt.Errorf("%s:%d: the header has no column of times (a name ending in _ns)", name, line)
			}
			continue
		}
		if len(fields) != len(header) {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, the header has %d", name, line, len(fields), len(header))
		}
		n, err := strconv.Atoi(strings.TrimSpace(fields[sizeCol]))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s:%d: column services: %q is not a positive number of services", name, line, fields[sizeCol])
		}
		rows[n]++
		for k, col := range seriesCols {
			f := strings.TrimSpace(fields[col])
			if f == missing {
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("%s:%d: column %s: %q is not a positive time in nanoseconds (or %q)", name, line, header[col], f, missing)
			}
			s := res.Series[k]
			values[s][n] = append(values[s][n], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if header == nil {
		return nil, fmt.Errorf("%s: empty: no header line", name)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no results after the header", name)
	}
	for n, c := range rows {
		res.Sizes = append(res.Sizes, n)
		res.Rounds = max(res.Rounds, c)
	}
	slices.Sort(res.Sizes)
	for _, s := range res.Series {
		m := make([]float64, len(res.Sizes))
		for i, n := range res.Sizes {
			m[i] = median(values[s][n])
		}
		res.Medians[s] = m
	}
	return res, nil
}

// median is the middle value (the mean of the two middle ones for an even
// count), NaN for none: a shared machine gives outliers that a mean would
// carry into the curve.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// errNoPoints is returned when nothing at all was measured.
var errNoPoints = errors.New("no measured time in any series")

// Summary writes the medians as a text table in milliseconds, with the
// ratio of Traefik's provider to sliceway's warm full render (the render
// a change of the proxy's zone costs) where both were measured.
func (r *Results) Summary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "medians of %d round(s), ms:\n%8s", r.Rounds, "services")
	for _, s := range r.Series {
		fmt.Fprintf(&b, "  %10s", s)
	}
	ratio := slices.Contains(r.Series, "traefik") && slices.Contains(r.Series, "warm")
	if ratio {
		fmt.Fprintf(&b, "  %12s", "traefik/warm")
	}
	b.WriteString("\n")
	for i, n := range r.Sizes {
		fmt.Fprintf(&b, "%8d", n)
		for _, s := range r.Series {
			if v := r.Medians[s][i]; math.IsNaN(v) {
				fmt.Fprintf(&b, "  %10s", missing)
			} else {
				fmt.Fprintf(&b, "  %10.3f", v/1e6)
			}
		}
		if ratio {
			t, w := r.Medians["traefik"][i], r.Medians["warm"][i]
			if math.IsNaN(t) || math.IsNaN(w) {
				fmt.Fprintf(&b, "  %12s", missing)
			} else {
				fmt.Fprintf(&b, "  %12.1f", t/w)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
