package ui

import "strings"

// footerView is the key help: one line, or the full help after `?`.
func (m *Model) footerView(w int) []string {
	m.help.Width = w
	if m.showHelp {
		full := m.help.FullHelpView(m.keys.FullHelp())
		lines := strings.Split(full, "\n")
		extra := m.styles.Subtle.Render("metric: " + m.metric.String() + " · theme: " + m.theme.Name)
		return boxClip(append(lines, extra), w)
	}
	return []string{clip(m.help.ShortHelpView(m.keys.ShortHelp()), w)}
}
