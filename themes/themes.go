// Package themes holds the dashboard's colour themes as data: a palette of
// semantic colours (what a colour means, not what it looks like) that
// Styles turns into lipgloss styles in one place. The ui package never
// names a colour itself, so a theme is changed by editing a table here.
package themes

import (
	"fmt"
	"sort"
	"strings"
)

// Default is the theme used when none is named.
const Default = "dark"

// Palette is a theme's semantic colours as terminal colour strings
// ("#RRGGBB" or an ANSI number). An empty string means "no colour": the
// terminal's own foreground is used.
type Palette struct {
	P50     string // the median latency line
	P95     string // the tail latency line
	Knee    string // the knee marker and everything that points at it
	SLO     string // service-level objective bounds drawn over charts
	Good    string // healthy figures: successes, throughput
	Warn    string // figures past a warning bound, 429s
	Error   string // failures
	Axis    string // chart axes and level boundaries
	Text    string // ordinary text
	Subtle  string // labels, hints, secondary text
	Accent  string // titles and the state badge
	OnBadge string // text drawn on a coloured badge
}

// Theme is a named palette. Mono themes carry no colour at all and rely on
// bold, reverse and glyph shape instead (NO_COLOR).
type Theme struct {
	Name    string
	Palette Palette
	Mono    bool
}

// builtin lists the shipped themes. It is only read, never written.
var builtin = map[string]Palette{
	"dark": {
		P50: "#5FAFFF", P95: "#FF875F", Knee: "#FFD75F", SLO: "#FF87D7",
		Good: "#87D787", Warn: "#FFAF00", Error: "#FF5F5F",
		Axis: "#6C6C6C", Text: "#D0D0D0", Subtle: "#8A8A8A", Accent: "#AF87FF",
		OnBadge: "#000000",
	},
	"light": {
		P50: "#005FAF", P95: "#D75F00", Knee: "#8700AF", SLO: "#008787",
		Good: "#008700", Warn: "#AF5F00", Error: "#D70000",
		Axis: "#8A8A8A", Text: "#262626", Subtle: "#6C6C6C", Accent: "#5F00AF",
		OnBadge: "#FFFFFF",
	},
	// okabe-ito uses the Okabe & Ito palette, distinguishable under the
	// common colour-vision deficiencies, at full brightness for projectors.
	// Its seven colours are all taken, so SLO bounds are white: on a chart
	// every series is coloured, and the dashed glyph says the rest.
	"okabe-ito": {
		P50: "#56B4E9", P95: "#E69F00", Knee: "#F0E442", SLO: "#FFFFFF",
		Good: "#009E73", Warn: "#CC79A7", Error: "#D55E00",
		Axis: "#BBBBBB", Text: "#FFFFFF", Subtle: "#BBBBBB", Accent: "#0072B2",
		OnBadge: "#000000",
	},
}

// order is the display and cycling order of the themes.
var order = []string{"dark", "light", "okabe-ito"}

// Names lists the theme names in cycling order.
func Names() []string {
	return append([]string(nil), order...)
}

// Lookup returns the named theme ("" means Default). Names are matched
// case-insensitively.
func Lookup(name string) (Theme, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		n = Default
	}
	p, ok := builtin[n]
	if !ok {
		names := Names()
		sort.Strings(names)
		return Theme{}, fmt.Errorf("unknown theme %q (have %s)", name, strings.Join(names, ", "))
	}
	return Theme{Name: n, Palette: p}, nil
}

// Mono returns t with every colour removed, for NO_COLOR. The name is kept
// so the dashboard can still say which theme is selected.
func Mono(t Theme) Theme {
	return Theme{Name: t.Name, Mono: true}
}

// Next returns the name after name in cycling order (wrapping round).
func Next(name string) string {
	for i, n := range order {
		if n == name {
			return order[(i+1)%len(order)]
		}
	}
	return order[0]
}
