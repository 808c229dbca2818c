package main

import (
	"bytes"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// table is a results table as the run script writes it: sizes in the
// order they ran, two rounds each, and one failed slice measurement.
const table = "services\tround\ttraefik_ns\ttraefik_bytes\ttraefik_allocs\tfull_ns\tfull_bytes\tfull_allocs\twarm_ns\twarm_bytes\twarm_allocs\tslice_ns\tslice_bytes\tslice_allocs\n" +
	"3000\t1\t90000000\t1\t1\t6000000\t1\t1\t9000000\t1\t1\t150000\t1\t1\n" +
	"3000\t2\t110000000\t1\t1\t4000000\t1\t1\t11000000\t1\t1\t-\t-\t-\n" +
	"1000\t1\t30000000\t1\t1\t2000000\t1\t1\t3000000\t1\t1\t70000\t1\t1\n" +
	"1000\t2\t40000000\t1\t1\t1000000\t1\t1\t5000000\t1\t1\t90000\t1\t1\n" +
	"10000\t1\t400000000\t1\t1\t20000000\t1\t1\t30000000\t1\t1\t250000\t1\t1\n"

func TestParseResultsMedians(t *testing.T) {
	res, err := ParseResults(strings.NewReader(table), "results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Series, ","), "traefik,full,warm,slice"; got != want {
		t.Errorf("series %s, want %s", got, want)
	}
	if got, want := res.Sizes, []int{1000, 3000, 10000}; !slices.Equal(got, want) {
		t.Errorf("sizes %v, want %v (increasing, whatever order they ran in)", got, want)
	}
	if res.Rounds != 2 {
		t.Errorf("rounds %d, want 2", res.Rounds)
	}
	for _, c := range []struct {
		series string
		want   []float64
	}{
		{"traefik", []float64{35e6, 100e6, 400e6}},
		{"full", []float64{1.5e6, 5e6, 20e6}},
		// The failed round at 3000 is left out, not counted as zero.
		{"slice", []float64{80e3, 150e3, 250e3}},
	} {
		for i, w := range c.want {
			if got := res.Medians[c.series][i]; got != w {
				t.Errorf("%s at %d services: median %v, want %v", c.series, res.Sizes[i], got, w)
			}
		}
	}

	var sum bytes.Buffer
	if err := res.Summary(&sum); err != nil {
		t.Fatal(err)
	}
	// Traefik / warm at 1000: 35 ms / 4 ms.
	if !strings.Contains(sum.String(), "traefik/warm") || !strings.Contains(sum.String(), " 8.8\n") {
		t.Errorf("summary without the ratio of Traefik to the warm render (8.8 at 1000):\n%s", sum.String())
	}
}

func TestParseResultsNamesTheBadLine(t *testing.T) {
	header := "services\tround\ttraefik_ns\tfull_ns\n"
	for _, c := range []struct {
		name, in, want string
	}{
		{"fields", header + "1000\t1\t5\t6\n1000\t2\t5\n", "results.tsv:3: 3 tab-separated fields, the header has 4"},
		{"time", header + "1000\t1\t5\t6\n3000\t1\tslow\t6\n", `results.tsv:3: column traefik_ns: "slow" is not a positive time`},
		{"zero", header + "1000\t1\t0\t6\n", `results.tsv:2: column traefik_ns: "0" is not a positive time`},
		{"size", header + "many\t1\t5\t6\n", `results.tsv:2: column services: "many" is not a positive number of services`},
		{"spaces", "services round traefik_ns\n1000 1 5\n", `results.tsv:1: the header has no column "services"`},
		{"no times", "services\tround\n1000\t1\n", "results.tsv:1: the header has no column of times"},
		{"twice", "services\tfull_ns\tfull_ns\n", `results.tsv:1: column "full_ns" appears twice`},
		{"empty", "", "results.tsv: empty"},
		{"header only", header, "results.tsv: no results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseResults(strings.NewReader(c.in), "results.tsv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// svgDoc is what the test reads back of the picture.
type svgDoc struct {
	Polylines []struct {
		Series string `xml:"data-series,attr"`
		Points string `xml:"points,attr"`
	} `xml:"polyline"`
	Texts []string `xml:"text"`
}

func TestWriteSVG(t *testing.T) {
	res, err := ParseResults(strings.NewReader(table), "results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteSVG(&out, res, Options{Title: "Render time & size", Labels: DefaultLabels}); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out.String())
	}
	if len(doc.Polylines) != len(res.Series) {
		t.Fatalf("%d polylines, want one for each of %d series", len(doc.Polylines), len(res.Series))
	}
	wantPoints := map[string]int{"traefik": 3, "full": 3, "warm": 3, "slice": 3}
	lastY := map[string]float64{}
	for i, p := range doc.Polylines {
		if p.Series != res.Series[i] {
			t.Errorf("polyline %d is %q, want %q (the header's order)", i, p.Series, res.Series[i])
		}
		xs, ys := parsePoints(t, p.Points)
		if len(xs) != wantPoints[p.Series] {
			t.Errorf("%s: %d points, want %d", p.Series, len(xs), wantPoints[p.Series])
		}
		for j := 1; j < len(xs); j++ {
			if xs[j] <= xs[j-1] {
				t.Errorf("%s: x %v after %v: points not in increasing size", p.Series, xs[j], xs[j-1])
			}
			// Every series grows with the cluster; SVG's y grows downwards.
			if ys[j] >= ys[j-1] {
				t.Errorf("%s: y %v after %v: a longer time drawn lower", p.Series, ys[j], ys[j-1])
			}
		}
		for _, x := range xs {
			if x < left || x > left+plotW {
				t.Errorf("%s: x %v outside the plot [%d, %d]", p.Series, x, left, left+plotW)
			}
		}
		lastY[p.Series] = ys[len(ys)-1]
	}
	// Traefik's provider is slowest, so highest: smallest y.
	if !(lastY["traefik"] < lastY["warm"] && lastY["warm"] < lastY["full"] && lastY["full"] < lastY["slice"]) {
		t.Errorf("lines at the largest size out of order (y): %v", lastY)
	}
	// The sizes measured label the x axis, 3,000 among them.
	texts := strings.Join(doc.Texts, "|")
	for _, want := range []string{"Render time & size", "Traefik's Ingress provider", "sliceway after one EndpointSlice change", "3,000", "10,000", "400 ms", "0.250 ms", "time per render (ms)"} {
		if !strings.Contains(texts, want) {
			t.Errorf("no text %q in the picture: %s", want, texts)
		}
	}

	out.Reset()
	if err := WriteSVG(&out, res, Options{YLabel: "time per configuration & more (ms)"}); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if !slices.Contains(doc.Texts, "time per configuration & more (ms)") {
		t.Errorf("the vertical axis does not say YLabel: %q", doc.Texts)
	}
}

func TestWriteSVGUnmeasuredSeries(t *testing.T) {
	res, err := ParseResults(strings.NewReader("services\tround\ttraefik_ns\tslice_ns\n300\t1\t5000000\t-\n"), "results.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteSVG(&out, res, Options{Labels: DefaultLabels}); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// One size, one point: a polyline of one point, which its marker shows.
	if len(doc.Polylines) != 1 || doc.Polylines[0].Series != "traefik" {
		t.Errorf("polylines %+v, want traefik's alone", doc.Polylines)
	}
	if !strings.Contains(strings.Join(doc.Texts, "|"), "(not measured)") {
		t.Errorf("the legend does not say the slice change was not measured: %v", doc.Texts)
	}

	none, _ := ParseResults(strings.NewReader("services\tfull_ns\n300\t-\n"), "results.tsv")
	if err := WriteSVG(&out, none, Options{}); err != errNoPoints {
		t.Errorf("error %v for a table without a time, want %v", err, errNoPoints)
	}
}

func TestRunWritesFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "results.tsv")
	if err := os.WriteFile(in, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "render-time.svg")
	if err := run(in, out, Options{Labels: DefaultLabels}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(data, []byte("<svg ")) {
		t.Fatalf("no SVG at %s: %v %.40q", out, err, data)
	}
	// A bad table fails and leaves the picture that was there.
	if err := os.WriteFile(in, []byte("services\tfull_ns\n1000\tx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(in, out, Options{}); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("error %v, want one naming line 2", err)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, data) {
		t.Error("a failed run changed the picture")
	}
}

func TestLogAxis(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		ticks    string
	}{
		// Less than a decade: ticks at 1, 2 and 5.
		{100, 300, "100 200 500"},
		{1000, 10000, "1000 2000 5000 10000"},
		// Four decades of times: powers of ten.
		{0.07, 400, "0.01 0.1 1 10 100 1000"},
		{300, 300, "200 500"},
	} {
		a := newLogAxis(c.min, c.max)
		var got []string
		for _, v := range a.ticks {
			got = append(got, strconv.FormatFloat(v, 'f', -1, 64))
		}
		if strings.Join(got, " ") != c.ticks {
			t.Errorf("ticks of [%v, %v]: %v, want %s", c.min, c.max, got, c.ticks)
		}
		if a.frac(c.min) < 0 || a.frac(c.max) > 1 || math.IsNaN(a.frac(c.max)) {
			t.Errorf("[%v, %v] not inside the axis [%v, %v]", c.min, c.max, a.lo, a.hi)
		}
		// The axis of the sizes holds them off its edges, with no grid
		// line outside it.
		d := newDataAxis(c.min, c.max)
		if d.frac(c.min) <= 0 || d.frac(c.max) >= 1 {
			t.Errorf("[%v, %v] on or past the edges of its data axis [%v, %v]", c.min, c.max, d.lo, d.hi)
		}
		for _, v := range append(d.ticks, d.minor...) {
			if v < d.lo || v > d.hi {
				t.Errorf("grid line %v outside the data axis [%v, %v]", v, d.lo, d.hi)
			}
		}
	}
}

func parsePoints(t *testing.T, s string) (xs, ys []float64) {
	t.Helper()
	for _, p := range strings.Fields(s) {
		x, y, ok := strings.Cut(p, ",")
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("point %q is not x,y", p)
		}
		xs = append(xs, fx)
		ys = append(ys, fy)
	}
	return xs, ys
}
