package ui

import (
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/kneepoint/kneepoint/engine"
)

// column is one column of the summary table. Columns are dropped in
// priority order (highest number first) when the terminal is narrow.
type column struct {
	title string
	width int
	prio  int
	value func(l *engine.LevelResult, i int) string
}

var summaryColumns = []column{
	{"#", 3, 9, func(_ *engine.LevelResult, i int) string { return strconv.Itoa(i + 1) }},
	{"c", 5, 0, func(l *engine.LevelResult, _ int) string { return strconv.Itoa(l.Concurrency) }},
	{"src", 6, 8, func(l *engine.LevelResult, _ int) string { return l.Source }},
	{"ok", 8, 3, func(l *engine.LevelResult, _ int) string { return fmtInt(l.Succeeded) }},
	{"err", 6, 2, func(l *engine.LevelResult, _ int) string { return fmtPct(l.ErrorShare()) }},
	{"tok/s", 8, 1, func(l *engine.LevelResult, _ int) string { return fmtRate(l.OutputTokPerS) }},
	{"req/s", 7, 5, func(l *engine.LevelResult, _ int) string { return fmtRate(l.RequestsPerS) }},
	{"p50", 7, 4, func(l *engine.LevelResult, _ int) string { return fmtMs(l.Latency.P50) }},
	{"p95", 7, 1, func(l *engine.LevelResult, _ int) string { return fmtMs(l.Latency.P95) }},
	{"p99", 7, 6, func(l *engine.LevelResult, _ int) string { return fmtMs(l.Latency.P99) }},
	{"TTFT95", 7, 5, func(l *engine.LevelResult, _ int) string { return fmtMs(l.TTFT.P95) }},
	{"ITL95", 7, 6, func(l *engine.LevelResult, _ int) string { return fmtMs(l.ITL.P95) }},
	{"inflt", 6, 7, func(l *engine.LevelResult, _ int) string {
		return strconv.FormatFloat(l.MeanInFlight, 'f', 1, 64)
	}},
	// The harness's p99 dispatch lag: a large one means the generator,
	// not the server, limited the level.
	{"lag99", 7, 8, func(l *engine.LevelResult, _ int) string { return fmtMs(l.DispatchLagMs) }},
}

// columns are the summary's columns for this run: the standard ones, with
// the SLO verdict and goodput (output tok/s and req/s of requests meeting
// every objective) when objectives are set and the cost per
// million output tokens and per request when prices are.
func (m *Model) columns() []column {
	cols := append([]column(nil), summaryColumns...)
	if !m.opts.SLO.IsZero() {
		// Goodput needs every request's figures: only the engine has them.
		engineJudged := m.results != nil && m.results.SLO != nil
		cols = append(cols,
			column{"SLO", 4, 1, func(l *engine.LevelResult, _ int) string {
				switch {
				case l.SLOMet == nil:
					return "–"
				case *l.SLOMet:
					return "ok"
				}
				return "miss"
			}},
			column{"goodput", 8, 3, func(l *engine.LevelResult, _ int) string {
				if !engineJudged {
					return "–"
				}
				return fmtRate(l.GoodputTokPerS)
			}},
			column{"good/s", 7, 7, func(l *engine.LevelResult, _ int) string {
				if !engineJudged {
					return "–"
				}
				return fmtRate(l.GoodputRPS)
			}})
	}
	if c := m.opts.Cost; !c.IsZero() {
		sym := currencySymbol(c.Currency)
		cols = append(cols,
			column{sym + "/Mout", 7, 3, func(l *engine.LevelResult, _ int) string {
				if _, perM, ok := levelCost(c, l); ok {
					return fmtMoney(perM)
				}
				return "–"
			}},
			column{sym + "/req", 8, 6, func(l *engine.LevelResult, _ int) string {
				if perReq, _, ok := levelCost(c, l); ok {
					return fmtMoney(perReq)
				}
				return "–"
			}})
	}
	return cols
}

// sloMaxConc is the highest planned concurrency meeting every objective:
// the engine's figure once it has judged the run, else the UI's own.
func (m *Model) sloMaxConc() int {
	if m.results != nil && m.results.SLO != nil {
		return m.results.SLOMaxConcurrency
	}
	return sloMax(m.curve.levels)
}

// sloLine says where the objectives held and the verdict at the
// concurrency they must hold at; "" without objectives.
func (m *Model) sloLine() string {
	if m.opts.SLO.IsZero() {
		return ""
	}
	st := m.styles
	var parts []string
	if c := m.sloMaxConc(); c > 0 {
		parts = append(parts, st.SLO.Render("SLO met up to c="+strconv.Itoa(c)))
	} else {
		parts = append(parts, st.Warn.Render("no planned level met every SLO"))
	}
	if m.results != nil && m.results.SLOVerdict != nil {
		v := m.results.SLOVerdict
		at := "at c=" + strconv.Itoa(v.AtConcurrency) + ": "
		switch {
		case v.Note != "":
			parts = append(parts, st.Subtle.Render(at+oneLine(v.Note)))
		case v.Met:
			parts = append(parts, st.Good.Render(at+"met"))
		default:
			txt := at + "missed"
			if len(v.Misses) > 0 {
				txt += " (" + oneLine(strings.Join(v.Misses, "; ")) + ")"
			}
			parts = append(parts, st.Warn.Render(txt))
		}
	}
	return strings.Join(parts, st.Subtle.Render(" · "))
}

// kneeTag marks the knee's row.
const kneeTag = " ◀ knee"

// summaryView is the finished run: a table of every level (the knee's row
// marked), then the knee's reason and where the results go, in at most n
// lines of width w.
func (m *Model) summaryView(w, n int) []string {
	st := m.styles
	levels := m.curve.levels
	kneeRow := -1
	if m.knee != nil {
		kneeRow = m.knee.Level
	}

	// Pick the columns that fit, by priority, keep them in table order.
	all := m.columns()
	cols := make([]column, 0, len(all))
	budget := w - len([]rune(kneeTag))
	for prio := 0; prio <= 9; prio++ {
		for _, c := range all {
			if c.prio == prio && c.width+1 <= budget {
				cols = append(cols, c)
				budget -= c.width + 1
			}
		}
	}
	order := map[string]int{}
	for i, c := range all {
		order[c.title] = i
	}
	sort.SliceStable(cols, func(i, j int) bool { return order[cols[i].title] < order[cols[j].title] })

	cell := func(s string, width int) string {
		if len([]rune(s)) > width {
			s = string([]rune(s)[:width])
		}
		return strings.Repeat(" ", width-len([]rune(s))) + s + " "
	}
	var head strings.Builder
	for _, c := range cols {
		head.WriteString(cell(c.title, c.width))
	}
	var foot []string
	if m.knee != nil {
		k := m.knee
		txt := "knee c=" + strconv.Itoa(k.Concurrency)
		if k.Cause != "" {
			txt += " (" + k.Cause + ")"
		}
		if k.Reason != "" {
			txt += ": " + oneLine(k.Reason)
		}
		if k.BestX2C > 0 {
			txt += " · best tok/s²/c at c=" + strconv.Itoa(k.BestX2C)
		}
		foot = append(foot, st.Knee.Render(txt))
	} else if m.results != nil && m.results.KneeNote != "" {
		foot = append(foot, st.Subtle.Render("no knee: "+oneLine(m.results.KneeNote)))
	} else {
		foot = append(foot, st.Subtle.Render("no knee found"))
	}
	if line := m.sloLine(); line != "" {
		foot = append(foot, line)
	}
	var res []string
	if m.opts.OutPath != "" {
		res = append(res, st.Subtle.Render("results → ")+st.Value.Render(m.opts.OutPath))
	}
	if m.results != nil && len(m.results.Warnings) > 0 {
		res = append(res, st.Warn.Render(strconv.Itoa(len(m.results.Warnings))+" warning(s): "+oneLine(m.results.Warnings[0])))
	}
	res = append(res, st.Subtle.Render("press q to quit"))
	foot = append(foot, strings.Join(res, st.Subtle.Render(" · ")))

	rowsRoom := n - 1 - len(foot)
	if rowsRoom < 1 {
		out := append([]string{st.PaneTitle.Render("Summary")}, foot...)
		if len(out) > n {
			out = out[:max(n, 0)]
		}
		return boxClip(out, w)
	}
	from, to := window(len(levels), rowsRoom, kneeRow)
	lines := []string{st.TableHeader.Render(head.String())}
	for i := from; i < to; i++ {
		l := &levels[i]
		var row strings.Builder
		for _, c := range cols {
			row.WriteString(cell(c.value(l, i), c.width))
		}
		text := row.String()
		var style lipgloss.Style
		switch {
		case i == kneeRow:
			style = st.TableKnee
			text += kneeTag
		case l.ErrorShare() > m.opts.ErrorWarnShare:
			style = st.Warn
		default:
			style = st.Text
		}
		lines = append(lines, style.Render(text))
	}
	return boxClip(append(lines, foot...), w)
}

// window picks at most room of n rows, keeping the knee's row in view.
func window(n, room, keep int) (from, to int) {
	if n <= room {
		return 0, n
	}
	if keep < 0 || keep >= n {
		return n - room, n // the latest levels
	}
	from = max(keep-room/2, 0)
	to = from + room
	if to > n {
		to = n
		from = n - room
	}
	return from, to
}

// boxClip shortens every line to w cells.
func boxClip(lines []string, w int) []string {
	for i := range lines {
		lines[i] = ellipsize(lines[i], w)
	}
	return lines
}
