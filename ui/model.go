package ui

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/themes"
)

// Default size used until the terminal reports its own.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// Model is the dashboard. It implements tea.Model. All state changes
// happen in Update, which also renders the frame and caches it, so View
// only returns a string. Update never mutates the Model it was given; the
// one thing copies share is the scratch drawing memory, which holds nothing
// from one frame to the next.
type Model struct {
	events <-chan engine.Event
	ctl    engine.Controller
	opts   Options

	keys   keyMap
	help   help.Model
	theme  themes.Theme
	styles themes.Styles

	width, height int

	snap     engine.Snapshot
	haveSnap bool
	latency  latencyPane
	curve    curvePane
	knee     *engine.Knee
	results  *engine.Results
	status   string // the latest notable event, one line

	metric   metric
	showHelp bool
	stopping bool // the user asked to stop; quit when the channel closes
	closed   bool // the engine closed its channel
	done     bool // Finished arrived (or a replay)

	scratch *scratch // drawing buffers reused across frames (see scratch)
	frame   string   // the cached render View returns
	err     error    // a render that panicked: Run reports it

	beforeRender func() // tests only: runs inside the render's recover
}

var _ tea.Model = Model{}

// New builds the dashboard for a run publishing on events and steered by
// ctl. ctl may be nil (nothing to steer); events may be nil (nothing to
// wait for).
func New(events <-chan engine.Event, ctl engine.Controller, opts Options) Model {
	opts = opts.withDefaults()
	m := Model{
		events:  events,
		ctl:     ctl,
		opts:    opts,
		keys:    newKeyMap(),
		help:    help.New(),
		width:   defaultWidth,
		height:  defaultHeight,
		status:  "starting…",
		scratch: &scratch{},
	}
	th, err := themes.Lookup(opts.Theme)
	if err != nil {
		th, _ = themes.Lookup(themes.Default)
		m.status = err.Error()
	}
	m.setTheme(th)
	m.setSLO(opts.SLO)
	m.keys.setControl(ctl != nil)
	m.redraw()
	return m
}

// NewReplay builds the finished view of a recorded run: the sweep curve,
// the knee, the summary table and per-level latency steps. Nothing is sent
// and no keys steer anything. Target, Workload and Plan levels default to
// those recorded in res.
func NewReplay(res engine.Results, opts Options) Model {
	if opts.Target == (engine.Target{}) {
		opts.Target = res.Target
	}
	if opts.Workload == (engine.Workload{}) {
		opts.Workload = res.Workload
	}
	if len(opts.Plan.Levels) == 0 {
		opts.Plan.Levels = res.Plan.Levels
	}
	m := New(nil, nil, opts)
	m.finish(res)
	m.latency.fromLevels(res.Levels)
	m.closed = true
	m.redraw()
	return m
}

// Init starts listening to the engine.
func (m Model) Init() tea.Cmd { return waitForEvent(m.events) }

// View returns the frame rendered by the last Update.
func (m Model) View() string { return m.frame }

// Results returns the run's results once Finished has arrived.
func (m Model) Results() (engine.Results, bool) {
	if m.results == nil {
		return engine.Results{}, false
	}
	return *m.results, true
}

// Err returns the error that ended the dashboard, if any (a render panic).
func (m Model) Err() error { return m.err }

// setTheme switches palette and rebuilds every style from it.
func (m *Model) setTheme(th themes.Theme) {
	if m.opts.NoColor {
		th = themes.Mono(th)
	}
	m.theme = th
	m.styles = th.Styles()
	m.help.Styles.ShortKey = m.styles.HelpKey
	m.help.Styles.ShortDesc = m.styles.HelpDesc
	m.help.Styles.ShortSeparator = m.styles.HelpSep
	m.help.Styles.FullKey = m.styles.HelpKey
	m.help.Styles.FullDesc = m.styles.HelpDesc
	m.help.Styles.FullSeparator = m.styles.HelpSep
	m.help.Styles.Ellipsis = m.styles.HelpSep
}

// setSLO sets the objectives the charts draw and levels are judged by.
func (m *Model) setSLO(s engine.SLO) {
	m.opts.SLO = s
	m.latency.slo = s
	m.curve.sloP95 = s.LatencyP95Ms
}
