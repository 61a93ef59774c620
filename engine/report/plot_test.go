package report

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kneepoint/kneepoint/engine"
)

// Rendered plots of the fixture, committed at the repository root so a
// reviewer can open them; go test ./engine/report -run TestPlotFiles -update
// regenerates them.
const (
	sweepSVG = "../../testdata/sweep.svg"
	sweepPNG = "../../testdata/sweep.png"
)

// checkSVG parses the whole output as XML and returns its text content.
func checkSVG(t *testing.T, out []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(out))
	var text strings.Builder
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = v.Name.Local
			}
		case xml.CharData:
			text.Write(v)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return text.String()
}

func checkPNG(t *testing.T, out []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 500 {
		t.Errorf("PNG is %dx%d, too small to read", b.Dx(), b.Dy())
	}
}

func TestPlot(t *testing.T) {
	v := variants(t)
	one := fixture(t, "results.json")
	one.Levels, one.Knee = one.Levels[9:10], &engine.Knee{Concurrency: 512, Level: 0, Cause: "capacity"}
	odd := fixture(t, "results.json")
	odd.Levels = odd.Levels[5:6]
	odd.Levels[0].Concurrency = 48 // no power of two within the axis range
	odd.Knee = nil
	// Levels out of order and a manual hold: only planned ones, sorted.
	shuffled := fixture(t, "results.json")
	shuffled.Levels[0], shuffled.Levels[4] = shuffled.Levels[4], shuffled.Levels[0]
	shuffled.Levels[2].Source = engine.SourceManual

	tests := []struct {
		name  string
		res   engine.Results
		texts []string // must appear in the SVG
		png   bool     // also render a PNG (slow under -race: only a few)
	}{
		{"fixture", v["h200"], []string{"knee c=512", "output throughput (tok/s)", "end-to-end latency (s)", "150-token prompts, up to 128 output tokens", "1,024"}, true},
		{"rate limited", v["ratelimited"], []string{"knee c=4", "end-to-end latency (ms)"}, false},
		{"no knee", v["no-knee"], []string{"32"}, false},
		{"no levels", v["empty"], []string{"no planned levels measured"}, true},
		{"one level", one, []string{"knee c=512"}, true},
		{"one level between powers of two", odd, []string{"48"}, false},
		{"shuffled with manual", shuffled, []string{"knee c=512"}, false},
		{"partial", v["stopped"], []string{"(partial run)"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := checkSVG(t, render(t, Plot(tc.res, "svg")))
			for _, want := range tc.texts {
				if !strings.Contains(text, want) {
					t.Errorf("the SVG lacks %q; its text:\n%s", want, text)
				}
			}
			if tc.res.Knee == nil && strings.Contains(text, "knee c=") {
				t.Error("a knee is marked in a run without one")
			}
			if tc.png {
				checkPNG(t, render(t, Plot(tc.res, "png")))
			}
		})
	}
}

func TestPlotRejectsUnknownFormat(t *testing.T) {
	err := Plot(fixture(t, "results.json"), "gif")(io.Discard)
	if err == nil || !strings.Contains(err.Error(), `"gif"`) {
		t.Fatalf("want an error naming the format, got %v", err)
	}
}

// powerOfTwoTicks must label every power of two up to twelve of them and
// thin the labels beyond.
func TestPowerOfTwoTicks(t *testing.T) {
	labels := func(min, max float64) (out []string) {
		for _, tk := range powerOfTwoTicks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := strings.Join(labels(-0.3, 10.3), " "); got != "1 2 4 8 16 32 64 128 256 512 1,024" {
		t.Errorf("1..1024: %s", got)
	}
	if got := len(labels(-0.3, 16.3)); got > 12 {
		t.Errorf("1..65536: %d labels, want at most 12", got)
	}
	if got := labels(5.2, 5.8); len(got) != 1 {
		t.Errorf("single odd level: %v", got)
	}
}

// TestPlotFiles keeps the committed example plots readable and, with
// -update, regenerates them from the fixture.
func TestPlotFiles(t *testing.T) {
	res := fixture(t, "results.json")
	if updating() {
		for path, format := range map[string]string{sweepSVG: "svg", sweepPNG: "png"} {
			if err := engine.WriteFileAtomic(path, Plot(res, format)); err != nil {
				t.Fatal(err)
			}
		}
	}
	svg, err := os.ReadFile(sweepSVG)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/report -run TestPlotFiles -update)", err)
	}
	if text := checkSVG(t, svg); !strings.Contains(text, "knee c=512") {
		t.Errorf("%s lacks the knee label", sweepSVG)
	}
	pngData, err := os.ReadFile(sweepPNG)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, pngData)
}

func TestComparePlot(t *testing.T) {
	a, b := fixture(t, "results.json"), fixture(t, "results-ratelimited.json")
	text := checkSVG(t, render(t, ComparePlot([]engine.Results{a, b}, []string{"h200", "hosted"}, "svg")))
	for _, want := range []string{"knee c=512 (h200)", "knee c=4 (hosted)", "h200 p95", "hosted p95", "Comparison: h200 vs hosted"} {
		if !strings.Contains(text, want) {
			t.Errorf("the comparison SVG lacks %q", want)
		}
	}
	checkPNG(t, render(t, ComparePlot([]engine.Results{a, b}, nil, "png")))
	if err := ComparePlot(nil, nil, "svg")(io.Discard); err == nil {
		t.Error("want an error for no runs")
	}
}
