package ui

import "github.com/charmbracelet/bubbles/key"

// keyMap binds the dashboard's keys. It implements help.KeyMap so the
// footer and the full help come from the same bindings that Update matches.
type keyMap struct {
	Up     key.Binding
	Down   key.Binding
	Double key.Binding
	Halve  key.Binding
	Resume key.Binding
	Pause  key.Binding
	Next   key.Binding
	Metric key.Binding
	Theme  key.Binding
	Help   key.Binding
	Quit   key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Up:     key.NewBinding(key.WithKeys("up", "+", "="), key.WithHelp("↑/+", "c+1")),
		Down:   key.NewBinding(key.WithKeys("down", "-"), key.WithHelp("↓/-", "c-1")),
		Double: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "c×2")),
		Halve:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "c÷2")),
		Resume: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "auto sweep")),
		Pause:  key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause")),
		Next:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next level")),
		Metric: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "metric")),
		Theme:  key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "theme")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// setControl enables or disables the keys that steer the run: they do
// nothing once it is over or when there is no Controller (replay), and
// disabled bindings drop out of the help.
func (k *keyMap) setControl(on bool) {
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Double, &k.Halve, &k.Resume, &k.Pause, &k.Next} {
		b.SetEnabled(on)
	}
}

// ShortHelp is the footer: quitting and help first, so they survive
// truncation on a narrow terminal.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Quit, k.Help, k.Up, k.Down, k.Double, k.Halve, k.Pause, k.Next, k.Resume, k.Metric, k.Theme}
}

// FullHelp is the `?` view, one column per concern.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Double, k.Halve},
		{k.Resume, k.Pause, k.Next},
		{k.Metric, k.Theme, k.Help, k.Quit},
	}
}
