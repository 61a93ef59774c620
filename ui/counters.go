package ui

import (
	"sort"
	"strings"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// countersView lists the run's request counters, most important first,
// in at most n lines: totals and error rate, the latest event, errors by
// class, rate-limit hints, the last error message.
func (m *Model) countersView(w, n int) []string {
	st := m.styles
	s := m.snap
	sep := st.Subtle.Render(" · ")
	kv := func(k, v string) string { return st.Subtle.Render(k+" ") + st.Value.Render(v) }

	// Totals and error rate.
	parts := []string{kv("sent", fmtInt(s.Sent)), st.Subtle.Render("ok ") + st.Good.Render(fmtInt(s.Succeeded))}
	rl := kv("429", fmtInt(s.RateLimited))
	if s.RateLimited > 0 {
		rl = st.Subtle.Render("429 ") + st.Warn.Render(fmtInt(s.RateLimited))
	}
	parts = append(parts, rl, kv("timeouts", fmtInt(s.Errors[string(engine.ClassTimeout)])),
		kv("retries", fmtInt(s.Retries)))
	runShare := 0.0
	if done := s.Succeeded + s.Failed; done > 0 {
		runShare = float64(s.Failed) / float64(done)
	}
	// The engine's live window gives the recent rate; it holds completions
	// when anything succeeded (latency count) or failed (a share above 0).
	haveNow := s.Latency.Count > 0 || s.ErrorShare > 0
	shown := runShare
	if haveNow {
		shown = s.ErrorShare
	}
	rate := st.Good
	if shown > m.opts.ErrorWarnShare {
		rate = st.Warn
	}
	errText := rate.Render(fmtPct(shown))
	if haveNow {
		errText += st.Subtle.Render(" now, " + fmtPct(runShare) + " run")
	}
	parts = append(parts, st.Subtle.Render("errors ")+errText)
	// Lines are kept by priority (lowest first) when n is short, and shown
	// in the order added.
	var lines []string
	var prios []int
	add := func(prio int, line string) {
		lines = append(lines, line)
		prios = append(prios, prio)
	}
	add(0, st.PaneTitle.Render("Requests   ")+strings.Join(parts, sep))

	if m.status != "" {
		add(1, st.Subtle.Render("›          ")+st.Text.Render(m.status))
	}

	// Errors by class, other than 429s and timeouts (counted above).
	var classes []string
	for _, c := range engine.Classes {
		if c == engine.ClassRateLimited || c == engine.ClassTimeout {
			continue
		}
		if v := s.Errors[string(c)]; v > 0 {
			classes = append(classes, st.Subtle.Render(string(c)+" ")+st.Error.Render(fmtInt(v)))
		}
	}
	known := map[string]bool{}
	for _, c := range engine.Classes {
		known[string(c)] = true
	}
	var extra []string
	for c, v := range s.Errors {
		if !known[c] && v > 0 {
			extra = append(extra, c)
		}
	}
	sort.Strings(extra)
	for _, c := range extra {
		classes = append(classes, st.Subtle.Render(c+" ")+st.Error.Render(fmtInt(s.Errors[c])))
	}
	if len(classes) > 0 {
		add(3, st.PaneTitle.Render("Errors     ")+strings.Join(classes, sep))
	}

	if hint := rateHint(s.LastRetryAfter, s.LastRateHeaders); hint != "" {
		add(4, st.PaneTitle.Render("Rate limit ")+st.Warn.Render(hint))
	}
	if s.LastError != "" {
		add(6, st.PaneTitle.Render("Last error ")+st.Error.Render(oneLine(s.LastError)))
	}
	if m.haveSnap {
		// A client-bound harness outranks every error detail: it says the
		// figures above may be the generator's, not the server's.
		prio := 5
		if s.ClientBound {
			prio = 2
		}
		add(prio, m.healthView())
	}
	return boxClip(keepByPriority(lines, prios, n), w)
}

// keepByPriority keeps the n lines with the lowest priority numbers (the
// earlier line on a tie), in their original order.
func keepByPriority(lines []string, prios []int, n int) []string {
	if len(lines) <= n {
		return lines
	}
	if n <= 0 {
		return nil
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return prios[idx[a]] < prios[idx[b]] })
	keep := idx[:n]
	sort.Ints(keep)
	out := make([]string, 0, n)
	for _, i := range keep {
		out = append(out, lines[i])
	}
	return out
}

// rateHint formats the last Retry-After and x-ratelimit-* headers seen.
func rateHint(retryAfter time.Duration, headers map[string]string) string {
	var parts []string
	if retryAfter > 0 {
		parts = append(parts, "retry-after "+fmtSeconds(retryAfter))
	}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		if retryAfter > 0 && (lk == "retry-after" || lk == "retry-after-ms") {
			continue // already shown, parsed
		}
		name := strings.TrimPrefix(lk, "x-ratelimit-")
		parts = append(parts, name+"="+oneLine(headers[k]))
	}
	return strings.Join(parts, " · ")
}

// oneLine keeps server text from breaking the layout.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
