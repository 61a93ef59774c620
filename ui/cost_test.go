package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

func TestLevelCost(t *testing.T) {
	l := engine.LevelResult{Succeeded: 100, InputTokens: 51200, OutputTokens: 25600, DurationS: 60}
	tests := []struct {
		name         string
		cost         engine.Cost
		l            engine.LevelResult
		perReq, perM float64
		ok           bool
	}{
		// (51200*3 + 25600*15)/1e6 = 0.5376 over 100 requests, 25600 tokens.
		{"token prices", engine.Cost{InputPerMillion: 3, OutputPerMillion: 15}, l, 0.005376, 21, true},
		// 3.6/h for a minute = 0.06.
		{"hourly", engine.Cost{PerHour: 3.6}, l, 0.0006, 0.06 / 25600 * 1e6, true},
		{"both", engine.Cost{OutputPerMillion: 15, PerHour: 3.6}, l, (0.384 + 0.06) / 100, (0.384 + 0.06) / 25600 * 1e6, true},
		{"no prices", engine.Cost{}, l, 0, 0, false},
		{"no output", engine.Cost{PerHour: 1}, engine.LevelResult{Succeeded: 3}, 0, 0, false},
		{"recorded figures win", engine.Cost{PerHour: 1000},
			engine.LevelResult{Succeeded: 1, OutputTokens: 1, CostPerRequest: 0.25, CostPerMOutput: 2}, 0.25, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			perReq, perM, ok := levelCost(tt.cost, &tt.l)
			if ok != tt.ok || math.Abs(perReq-tt.perReq) > 1e-12 || math.Abs(perM-tt.perM) > 1e-9 {
				t.Errorf("levelCost = %v %v %v, want %v %v %v", perReq, perM, ok, tt.perReq, tt.perM, tt.ok)
			}
		})
	}
}

func TestLiveCost(t *testing.T) {
	// $3.60/h at 1,000 tok/s: 3.6M tokens an hour cost $1/M, plus $0.50/M.
	if v, ok := liveCostPerMOut(engine.Cost{PerHour: 3.6, OutputPerMillion: 0.5}, 1000); !ok || math.Abs(v-1.5) > 1e-9 {
		t.Errorf("live cost %v %v, want 1.5", v, ok)
	}
	for _, c := range []struct {
		cost engine.Cost
		tok  float64
	}{{engine.Cost{OutputPerMillion: 2}, 1000}, {engine.Cost{PerHour: 3}, 0}, {engine.Cost{PerHour: 3}, math.NaN()}} {
		if _, ok := liveCostPerMOut(c.cost, c.tok); ok {
			t.Errorf("live cost for %+v at %v tok/s", c.cost, c.tok)
		}
	}

	opts := scriptOpts
	opts.Cost = engine.Cost{PerHour: 3.6, Currency: "EUR"}
	m := feed(sized(New(nil, &fakeCtl{}, opts), 120, 40),
		engine.Snapshot{At: time.Second, Phase: engine.PhaseMeasuring, OutputTokPerS: 1000, Latency: engine.Dist{Count: 5, P50: 100, P95: 120}})
	if v := m.View(); !strings.Contains(v, "€1.00/M out") {
		t.Errorf("no live cost on the throughput line:\n%s", v)
	}
	// Token prices alone do not change with throughput: nothing live.
	opts.Cost = engine.Cost{OutputPerMillion: 2}
	m = feed(sized(New(nil, &fakeCtl{}, opts), 120, 40),
		engine.Snapshot{At: time.Second, Phase: engine.PhaseMeasuring, OutputTokPerS: 1000})
	if v := m.View(); strings.Contains(v, "/M out") {
		t.Errorf("live cost without an hourly price:\n%s", v)
	}
}

func TestCostColumns(t *testing.T) {
	opts := scriptOpts
	opts.Cost = engine.Cost{InputPerMillion: 0.1, OutputPerMillion: 0.4}
	m := feed(sized(New(nil, &fakeCtl{}, opts), 200, 50), script(9, false, true)...)
	v := m.View()
	// The first level's figures, as the table should print them.
	l := m.curve.levels[0]
	perReq, perM, _ := levelCost(opts.Cost, &l)
	for _, want := range []string{"$/Mout", "$/req", fmtMoney(perM), fmtMoney(perReq)} {
		if !strings.Contains(v, want) {
			t.Errorf("summary lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "SLO") {
		t.Errorf("SLO columns without objectives:\n%s", v)
	}
}

func TestFmtMoney(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "0"}, {math.NaN(), "0"}, {1234.4, "1,234"}, {4.2, "4.20"}, {0.0123, "0.01"}, {0.00042, "0.00042"}, {0.0000217, "0.000022"}} {
		if got := fmtMoney(tt.v); got != tt.want {
			t.Errorf("fmtMoney(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if currencySymbol("") != "$" || currencySymbol("eur") != "€" || currencySymbol("CHF") != "CHF" {
		t.Error("currency symbols")
	}
}
