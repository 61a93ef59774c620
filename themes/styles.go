package themes

import "github.com/charmbracelet/lipgloss"

// Styles are a theme's colours turned into lipgloss styles: the only place
// where palette entries become styles. Mono themes get attributes only
// (bold, reverse, underline), which NO_COLOR allows.
type Styles struct {
	Title     lipgloss.Style // product name in the header
	PaneTitle lipgloss.Style // the title line of each pane
	Text      lipgloss.Style
	Subtle    lipgloss.Style
	Value     lipgloss.Style // a figure the eye should find quickly

	P50   lipgloss.Style
	P95   lipgloss.Style
	Knee  lipgloss.Style
	SLO   lipgloss.Style // objective bounds over charts, SLO verdicts
	Good  lipgloss.Style
	Warn  lipgloss.Style
	Error lipgloss.Style

	Axis      lipgloss.Style // chart axes
	AxisLabel lipgloss.Style // tick labels
	Boundary  lipgloss.Style // level boundaries drawn over charts

	// State badges in the header.
	BadgeRun  lipgloss.Style // measuring
	BadgeWarm lipgloss.Style // warming up
	BadgeHold lipgloss.Style // manual hold, paused
	BadgeStop lipgloss.Style // stopping
	BadgeDone lipgloss.Style // done

	BarFill  lipgloss.Style
	BarEmpty lipgloss.Style

	TableHeader lipgloss.Style
	TableKnee   lipgloss.Style

	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	HelpSep  lipgloss.Style
}

// Styles builds the lipgloss styles for t with the default renderer.
func (t Theme) Styles() Styles {
	return t.StylesFor(lipgloss.DefaultRenderer())
}

// StylesFor builds the lipgloss styles for t with renderer r (nil means the
// default renderer), so a caller writing somewhere other than stdout gets
// styles for that output's colour profile.
func (t Theme) StylesFor(r *lipgloss.Renderer) Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	p := t.Palette
	if t.Mono {
		p = Palette{}
	}
	fg := func(c string) lipgloss.Style {
		s := r.NewStyle()
		if c != "" {
			s = s.Foreground(lipgloss.Color(c))
		}
		return s
	}
	badge := func(c string) lipgloss.Style {
		s := r.NewStyle().Bold(true).Padding(0, 1)
		if c == "" {
			return s.Reverse(true)
		}
		if p.OnBadge != "" {
			s = s.Foreground(lipgloss.Color(p.OnBadge))
		}
		return s.Background(lipgloss.Color(c))
	}
	s := Styles{
		Title:     fg(p.Accent).Bold(true),
		PaneTitle: fg(p.Text).Bold(true),
		Text:      fg(p.Text),
		Subtle:    fg(p.Subtle),
		Value:     fg(p.Text).Bold(true),

		P50:   fg(p.P50),
		P95:   fg(p.P95),
		Knee:  fg(p.Knee).Bold(true),
		SLO:   fg(p.SLO),
		Good:  fg(p.Good),
		Warn:  fg(p.Warn).Bold(true),
		Error: fg(p.Error).Bold(true),

		Axis:      fg(p.Axis),
		AxisLabel: fg(p.Subtle),
		Boundary:  fg(p.Axis),

		BadgeRun:  badge(p.Good),
		BadgeWarm: badge(p.Warn),
		BadgeHold: badge(p.Knee),
		BadgeStop: badge(p.Error),
		BadgeDone: badge(p.Accent),

		BarFill:  fg(p.Good),
		BarEmpty: fg(p.Axis),

		TableHeader: fg(p.Subtle).Bold(true),
		TableKnee:   fg(p.Knee).Bold(true),

		HelpKey:  fg(p.Text).Bold(true),
		HelpDesc: fg(p.Subtle),
		HelpSep:  fg(p.Axis),
	}
	if t.Mono {
		// Without colour, the tail line and warnings must still stand out.
		s.P95 = s.P95.Bold(true)
		s.Error = s.Error.Underline(true)
		s.TableKnee = s.TableKnee.Reverse(true)
	}
	return s
}
