package ui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
)

// controlMsg reports that a Controller call was made. Update ignores it;
// it exists so a test can run a returned Cmd and see what it did.
type controlMsg struct{ action string }

// control wraps a Controller call in a Cmd: Update stays pure and the call
// happens on Bubble Tea's command goroutine. A nil Controller (replay)
// yields no Cmd.
func control(ctl engine.Controller, action string, call func(engine.Controller)) tea.Cmd {
	if ctl == nil {
		return nil
	}
	return func() tea.Msg {
		call(ctl)
		return controlMsg{action}
	}
}
