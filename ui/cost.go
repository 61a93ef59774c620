package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/kneepoint/kneepoint/engine"
)

// levelCost is a level's cost per request and per million output tokens:
// the figures the engine recorded when it priced the level, else the same
// arithmetic as the engine (token prices plus the hourly price over the
// measurement window). ok is false when there is nothing to price.
func levelCost(c engine.Cost, l *engine.LevelResult) (perReq, perMOut float64, ok bool) {
	if l.CostPerRequest > 0 || l.CostPerMOutput > 0 {
		return l.CostPerRequest, l.CostPerMOutput, true
	}
	if c.IsZero() || l.Succeeded <= 0 || l.OutputTokens <= 0 {
		return 0, 0, false
	}
	tokens := (float64(l.InputTokens)*c.InputPerMillion + float64(l.OutputTokens)*c.OutputPerMillion) / 1e6
	total := tokens + c.PerHour*max(l.DurationS, 0)/3600
	perReq, perMOut = total/float64(l.Succeeded), total/float64(l.OutputTokens)*1e6
	if !finite(perReq) || !finite(perMOut) {
		return 0, 0, false
	}
	return perReq, perMOut, true
}

// liveCostPerMOut is what a million output tokens cost at the current
// throughput: the hourly price spread over an hour of it, plus the output
// token price. ok is false without an hourly price or throughput.
func liveCostPerMOut(c engine.Cost, tokPerS float64) (float64, bool) {
	if c.PerHour <= 0 || !finite(tokPerS) || tokPerS <= 0 {
		return 0, false
	}
	v := c.PerHour/(tokPerS*3600)*1e6 + c.OutputPerMillion
	return v, finite(v)
}

// currencySymbol is how prices are written: a symbol for the common
// currencies, else the code itself.
func currencySymbol(code string) string {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "", "USD", "$":
		return "$"
	case "EUR", "€":
		return "€"
	case "GBP", "£":
		return "£"
	case "JPY", "¥":
		return "¥"
	}
	return oneLine(code)
}

// fmtMoney writes an amount with two significant figures below a cent
// (0.00042), cents below a hundred (4.20) and whole units above.
func fmtMoney(v float64) string {
	switch {
	case !finite(v) || v == 0:
		return "0"
	case v >= 99.5:
		return fmtInt(int64(math.Round(v)))
	case v >= 0.01:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	decimals := min(int(-math.Floor(math.Log10(v)))+1, 9)
	return strconv.FormatFloat(v, 'f', decimals, 64)
}
