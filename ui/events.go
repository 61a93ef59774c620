package ui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
)

// eventMsg carries one engine event into Update.
type eventMsg struct{ ev engine.Event }

// closedMsg says the engine closed its event channel (after Finished).
type closedMsg struct{}

// waitForEvent blocks, outside Update, on the next engine event. Update
// re-arms it after every event (Bubble Tea's realtime pattern), so exactly
// one read is outstanding and the engine's channel is drained in order.
func waitForEvent(ch <-chan engine.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return closedMsg{}
		}
		return eventMsg{ev}
	}
}
