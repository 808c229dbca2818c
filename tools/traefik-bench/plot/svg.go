package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Options are what the picture says besides the numbers.
type Options struct {
	Title string
	// YLabel says what the times are; empty: "time per render (ms)".
	YLabel string
	// Labels name the series in the legend; a series without one is named
	// by its column.
	Labels map[string]string
}

// DefaultLabels name the series the run script writes.
var DefaultLabels = map[string]string{
	"traefik": "Traefik's Ingress provider",
	"full":    "sliceway full render (cold)",
	"warm":    "sliceway full render (warm)",
	"slice":   "sliceway after one EndpointSlice change",
}

// style is how a series is drawn: the colours are of Okabe and Ito's
// palette, which readers with a colour-vision deficiency can tell apart,
// and the dashes tell the lines apart in grey print too.
type style struct{ color, dash string }

var styles = map[string]style{
	"traefik": {"#D55E00", ""},
	"full":    {"#0072B2", ""},
	"warm":    {"#009E73", "7 4"},
	"slice":   {"#CC79A7", "2 3"},
}

var otherStyles = []style{{"#E69F00", "5 2 1 2"}, {"#56B4E9", "9 3"}, {"#000000", "1 2"}}

const (
	width, plotH      = 760, 360
	left, right, top  = 72, 96, 62
	plotW             = width - left - right
	legendTop, rowGap = top + plotH + 62, 18
)

// WriteSVG draws the medians of every series against the cluster size,
// both axes logarithmic: the times span four decades (a slice change
// against Traefik's provider), which a linear axis would flatten into
// the floor, and a line of slope one is a cost linear in the cluster.
func WriteSVG(w io.Writer, r *Results, o Options) error {
	var ys []float64
	for _, s := range r.Series {
		for _, v := range r.Medians[s] {
			if !math.IsNaN(v) {
				ys = append(ys, v/1e6)
			}
		}
	}
	if len(ys) == 0 {
		return errNoPoints
	}
	xs := make([]float64, len(r.Sizes))
	for i, n := range r.Sizes {
		xs[i] = float64(n)
	}
	// The sizes measured are the x labels, on an axis just wider than
	// they are, unless they would overlap; the round numbers of the axis
	// are then the labels.
	xa := newDataAxis(slices.Min(xs), slices.Max(xs))
	px := func(v float64) float64 { return left + xa.frac(v)*plotW }
	xlabels := xs
	for i := 1; i < len(xs); i++ {
		if px(xs[i])-px(xs[i-1]) < 56 {
			xa = newLogAxis(slices.Min(xs), slices.Max(xs))
			xlabels = xa.ticks
			break
		}
	}
	ya := newLogAxis(slices.Min(ys), slices.Max(ys))
	py := func(v float64) float64 { return top + (1-ya.frac(v))*plotH }
	// The legend goes under the plot, two entries a row: inside it would
	// hide points, wherever the lines of a given run happen to pass.
	rows := (len(r.Series) + 1) / 2
	height := legendTop + rowGap*rows

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(o.Title))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" text-anchor="middle" font-size="16" font-weight="bold">%s</text>`+"\n", width/2, esc(o.Title))
	fmt.Fprintf(&b, `<text x="%d" y="44" text-anchor="middle" fill="#555555">median of %d round(s) on the same machine, in turn; both axes logarithmic</text>`+"\n", width/2, r.Rounds)

	// Grid and ticks.
	b.WriteString(`<g stroke="#eeeeee">` + "\n")
	for _, v := range append(slices.Clone(xa.minor), xa.ticks...) {
		if !slices.Contains(xlabels, v) {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", px(v), top, px(v), top+plotH)
		}
	}
	for _, v := range ya.minor {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`+"\n", left, py(v), left+plotW, py(v))
	}
	b.WriteString("</g>\n" + `<g stroke="#cccccc">` + "\n")
	for _, v := range xlabels {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", px(v), top, px(v), top+plotH)
	}
	for _, v := range ya.ticks {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`+"\n", left, py(v), left+plotW, py(v))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333333"/>`+"\n", left, top, plotW, plotH)
	for _, v := range xlabels {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(v), top+plotH+18, formatNumber(v))
	}
	for _, v := range ya.ticks {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, py(v)+4, formatNumber(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">Services in the cluster (one Ingress each)</text>`+"\n", left+plotW/2, top+plotH+38)
	ylabel := o.YLabel
	if ylabel == "" {
		ylabel = "time per render (ms)"
	}
	fmt.Fprintf(&b, `<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+plotH/2, esc(ylabel))

	// The series, then the value of each at its largest size beside its
	// last point, moved apart where lines end close together.
	type endLabel struct {
		y     float64
		x     float64
		text  string
		color string
	}
	var ends []endLabel
	var legend []string
	for k, s := range r.Series {
		st := styleOf(s, k)
		label := o.Labels[s]
		if label == "" {
			label = s
		}
		var pts []string
		var last [2]float64
		var lastV float64
		for i, v := range r.Medians[s] {
			if math.IsNaN(v) {
				continue
			}
			last = [2]float64{px(xs[i]), py(v / 1e6)}
			lastV = v
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", last[0], last[1]))
		}
		if len(pts) == 0 {
			legend = append(legend, s+"\x00"+label+" (not measured)")
			continue
		}
		legend = append(legend, s+"\x00"+label)
		dash := ""
		if st.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, st.dash)
		}
		fmt.Fprintf(&b, `<polyline data-series="%s" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", esc(s), st.color, dash, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<g fill="%s">`+"\n", st.color)
		for _, p := range pts {
			x, y, _ := strings.Cut(p, ",")
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3.5"/>`+"\n", x, y)
		}
		b.WriteString("</g>\n")
		ends = append(ends, endLabel{last[1] + 4, last[0] + 8, formatMs(lastV), st.color})
	}
	slices.SortFunc(ends, func(a, b endLabel) int { return cmp.Compare(a.y, b.y) })
	for i := range ends {
		if i > 0 && ends[i].y < ends[i-1].y+13 {
			ends[i].y = ends[i-1].y + 13
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", ends[i].x, ends[i].y, ends[i].color, esc(ends[i].text))
	}

	for i, entry := range legend {
		s, label, _ := strings.Cut(entry, "\x00")
		st := styleOf(s, slices.Index(r.Series, s))
		x, y := left+(plotW/2)*(i%2), legendTop+rowGap*(i/2)
		dash := ""
		if st.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, st.dash)
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", x, y-4, x+28, y-4, st.color, dash)
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="3.5" fill="%s"/>`+"\n", x+14, y-4, st.color)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", x+36, y, esc(label))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// styleOf is the style of the series s, the k-th of the file.
func styleOf(s string, k int) style {
	if st, ok := styles[s]; ok {
		return st
	}
	return otherStyles[k%len(otherStyles)]
}

// logAxis maps values to [0, 1] on a logarithmic scale between lo and hi,
// which are round numbers around the data, and holds where its labelled
// ticks and unlabelled minor lines go.
type logAxis struct {
	lo, hi       float64
	ticks, minor []float64
}

func (a logAxis) frac(v float64) float64 {
	return (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
}

// newLogAxis spans [min, max] (both > 0) with ticks at 1, 2 and 5 times a
// power of ten, or, over more than two and a half decades, where those
// would crowd the axis, at the powers of ten alone with minor lines at
// their multiples.
func newLogAxis(min, max float64) logAxis {
	const eps = 1e-9
	k0 := int(math.Floor(math.Log10(min)+eps)) - 1
	k1 := int(math.Ceil(math.Log10(max)-eps)) + 1
	var cands []float64
	for k := k0; k <= k1; k++ {
		for _, m := range []float64{1, 2, 5} {
			cands = append(cands, roundSig(m*math.Pow10(k)))
		}
	}
	a := logAxis{lo: cands[0], hi: cands[len(cands)-1]}
	for _, c := range cands {
		if c <= min*(1+eps) {
			a.lo = c
		}
	}
	for i := len(cands) - 1; i >= 0; i-- {
		if cands[i] >= max*(1-eps) && cands[i] > a.lo {
			a.hi = cands[i]
		}
	}
	if math.Log10(a.hi/a.lo) <= 2.5 {
		for _, c := range cands {
			if c >= a.lo && c <= a.hi {
				a.ticks = append(a.ticks, c)
			}
		}
		return a
	}
	a.lo = math.Pow10(int(math.Floor(math.Log10(min) + eps)))
	a.hi = math.Pow10(int(math.Ceil(math.Log10(max) - eps)))
	for k := int(math.Round(math.Log10(a.lo))); k <= int(math.Round(math.Log10(a.hi))); k++ {
		p := math.Pow10(k)
		a.ticks = append(a.ticks, p)
		for m := 2.0; m <= 9 && k < int(math.Round(math.Log10(a.hi))); m++ {
			a.minor = append(a.minor, roundSig(m*p))
		}
	}
	return a
}

// newDataAxis is newLogAxis narrowed to [min, max] and a margin of a
// twentieth of its span (a tenth of a decade at least), with the grid
// lines that fall inside: the labels are then the data's own values.
func newDataAxis(min, max float64) logAxis {
	a := newLogAxis(min, max)
	pad := math.Max(0.05*math.Log10(max/min), 0.1)
	a.lo, a.hi = min/math.Pow(10, pad), max*math.Pow(10, pad)
	outside := func(v float64) bool { return v < a.lo || v > a.hi }
	a.ticks = slices.DeleteFunc(a.ticks, outside)
	a.minor = slices.DeleteFunc(a.minor, outside)
	return a
}

// roundSig drops the binary noise of m*10^k (0.30000000000000004), so
// that labels print as written.
func roundSig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// formatNumber prints a tick: thousands grouped, fractions as short as
// they are exact.
func formatNumber(v float64) string {
	if v < 1000 {
		return strconv.FormatFloat(roundSig(v), 'f', -1, 64)
	}
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// formatMs prints a time in nanoseconds as milliseconds with three
// significant digits or so.
func formatMs(ns float64) string {
	ms := ns / 1e6
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	default:
		return fmt.Sprintf("%.3f ms", ms)
	}
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func esc(s string) string { return escaper.Replace(s) }
