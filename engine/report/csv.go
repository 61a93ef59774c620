package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/kneepoint/kneepoint/engine"
)

// csvHeader is the header of the per-level CSV. Units are in the names,
// the columns are always all present (empty cells when a figure does not
// apply), so scripts can rely on the header across runs.
func csvHeader() []string {
	return []string{
		"index", "concurrency", "source", "complete", "knee",
		"start_s", "warmup_s", "duration_s",
		"sent", "requests", "succeeded", "failed", "rate_limited", "other_errors", "retries",
		"latency_p50_ms", "latency_p90_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms", "latency_mean_ms",
		"ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms",
		"itl_p50_ms", "itl_p95_ms", "itl_p99_ms",
		"tpot_p50_ms", "tpot_p95_ms", "tpot_p99_ms",
		"input_tokens", "output_tokens", "tokens_estimated",
		"output_tokens_per_s", "requests_per_s",
		"mean_in_flight", "littles_law_in_flight", "dispatch_lag_p99_ms",
		"good_requests", "goodput_requests_per_s", "goodput_output_tokens_per_s", "slo_met",
		"cost_per_request", "cost_per_million_output_tokens",
	}
}

// CSV is the per-level table as CSV: a header row, then one row per level
// in the order measured.
func CSV(res engine.Results) Reporter {
	return func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader()); err != nil {
			return err
		}
		hasCost := res.Cost != nil && !res.Cost.IsZero()
		for i, l := range res.Levels {
			slo := ""
			if l.SLOMet != nil {
				slo = strconv.FormatBool(*l.SLOMet)
			}
			good := []string{"", "", ""}
			if res.SLO != nil {
				good = []string{itoa(l.GoodRequests), num(l.GoodputRPS, 3), num(l.GoodputTokPerS, 3)}
			}
			cost := []string{"", ""}
			if hasCost {
				cost = []string{num(l.CostPerRequest, 9), num(l.CostPerMOutput, 6)}
			}
			row := []string{
				strconv.Itoa(l.Index), strconv.Itoa(l.Concurrency), l.Source,
				strconv.FormatBool(l.Complete), strconv.FormatBool(res.Knee != nil && res.Knee.Level == i),
				num(l.StartS, 3), num(l.WarmupS, 3), num(l.DurationS, 3),
				itoa(l.Sent), itoa(l.Requests), itoa(l.Succeeded), itoa(l.Failed), itoa(l.RateLimited),
				itoa(l.Failed - l.RateLimited), itoa(l.Retries),
				num(l.Latency.P50, 3), num(l.Latency.P90, 3), num(l.Latency.P95, 3), num(l.Latency.P99, 3),
				num(l.Latency.Max, 3), num(l.Latency.Mean, 3),
				num(l.TTFT.P50, 3), num(l.TTFT.P95, 3), num(l.TTFT.P99, 3),
				num(l.ITL.P50, 3), num(l.ITL.P95, 3), num(l.ITL.P99, 3),
				num(l.TPOT.P50, 3), num(l.TPOT.P95, 3), num(l.TPOT.P99, 3),
				itoa(l.InputTokens), itoa(l.OutputTokens), strconv.FormatBool(l.TokensEstimated),
				num(l.OutputTokPerS, 3), num(l.RequestsPerS, 3),
				num(l.MeanInFlight, 3), num(l.LittleInFlight, 3), num(l.DispatchLagMs, 3),
			}
			row = append(row, good...)
			row = append(row, slo)
			row = append(row, cost...)
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
