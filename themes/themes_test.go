package themes

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name    string
		want    string
		wantErr bool
	}{
		{"", Default, false},
		{"dark", "dark", false},
		{"LIGHT", "light", false},
		{" okabe-ito ", "okabe-ito", false},
		{"solarized", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := Lookup(tt.name)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Lookup(%q) err = %v, wantErr %v", tt.name, err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "dark") {
					t.Errorf("error %q does not list the known themes", err)
				}
				return
			}
			if th.Name != tt.want {
				t.Errorf("Lookup(%q).Name = %q, want %q", tt.name, th.Name, tt.want)
			}
		})
	}
}

func TestNamesAreComplete(t *testing.T) {
	names := Names()
	if len(names) < 3 {
		t.Fatalf("want at least 3 themes, have %v", names)
	}
	for _, n := range names {
		th, err := Lookup(n)
		if err != nil {
			t.Fatalf("Names() lists %q but Lookup fails: %v", n, err)
		}
		p := th.Palette
		for field, c := range map[string]string{"P50": p.P50, "P95": p.P95, "Knee": p.Knee, "SLO": p.SLO,
			"Good": p.Good, "Warn": p.Warn, "Error": p.Error, "Axis": p.Axis,
			"Text": p.Text, "Subtle": p.Subtle, "Accent": p.Accent} {
			if c == "" {
				t.Errorf("theme %s has no %s colour", n, field)
			}
		}
		if p.P50 == p.P95 {
			t.Errorf("theme %s draws p50 and p95 in the same colour", n)
		}
		for _, c := range []string{p.P50, p.P95, p.Knee, p.Good, p.Axis} {
			if p.SLO == c {
				t.Errorf("theme %s draws SLO bounds like a chart series or marker (%s)", n, c)
			}
		}
	}
	names[0] = "mutated"
	if Names()[0] == "mutated" {
		t.Error("Names returns the package's own slice")
	}
}

func TestNextCycles(t *testing.T) {
	seen := map[string]bool{}
	n := Default
	for range Names() {
		seen[n] = true
		n = Next(n)
	}
	if n != Default || len(seen) != len(Names()) {
		t.Errorf("Next does not cycle through every theme once: ended at %q, saw %v", n, seen)
	}
	if Next("nope") != Names()[0] {
		t.Error("Next of an unknown name should start over")
	}
}

// TestMonoHasNoColour renders every style with a true-colour renderer and
// checks that a mono theme emits no colour escape (38;/48;).
func TestMonoHasNoColour(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.TrueColor)
	th, _ := Lookup("dark")
	colour := th.StylesFor(r)
	if out := colour.P50.Render("x"); !strings.Contains(out, "38;2;") {
		t.Fatalf("colour theme renders no colour: %q", out)
	}
	mono := Mono(th).StylesFor(r)
	for i, s := range []lipgloss.Style{mono.Title, mono.P50, mono.P95, mono.Knee, mono.SLO, mono.Good,
		mono.Warn, mono.Error, mono.Axis, mono.BadgeRun, mono.BadgeDone, mono.TableKnee, mono.HelpKey} {
		out := s.Render("x")
		if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
			t.Errorf("mono style %d renders colour: %q", i, out)
		}
	}
	if out := mono.BadgeRun.Render("x"); !strings.Contains(out, "7") {
		t.Errorf("mono badge should be reversed: %q", out)
	}
	if Mono(th).Name != "dark" {
		t.Error("Mono should keep the theme name")
	}
}
