package simserver

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
)

// metrics serves GET /metrics in Prometheus text format with vLLM's gauge
// and counter names, so dashboards and scrapers built for vLLM read it.
func (s *server) metrics(w http.ResponseWriter, r *http.Request) {
	st := s.sim.Stats()
	label := `{model_name=` + strconv.Quote(s.model) + `}`
	var b bytes.Buffer
	metric := func(name, typ, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s%s %s\n", name, help, name, typ, name, label, strconv.FormatFloat(v, 'g', -1, 64))
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", float64(st.Running))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", float64(st.Waiting))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", st.KVUsage)
	metric("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage (pre-V1 name).", st.KVUsage)
	metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemptions from the engine.", float64(st.Preemptions))
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", float64(st.GenerationTokens))
	metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed (recomputation included).", float64(st.PromptTokens))
	metric("vllm:request_success_total", "counter", "Count of successfully processed requests.", float64(st.Finished))
	metric("kneepoint_sim_rate_limited_total", "counter", "Requests refused with 429 by the profile's rate limits.", float64(st.RateLimited))
	metric("kneepoint_sim_faults_injected_total", "counter", "Requests given an injected fault.", float64(s.faultsInjected.Load()))
	metric("kneepoint_sim_kv_cache_blocks", "gauge", "KV-cache blocks of 16 tokens.", float64(st.KVBlocks))
	metric("kneepoint_sim_steps_total", "counter", "Engine steps simulated.", float64(st.Steps))
	metric("kneepoint_sim_busy_seconds_total", "counter", "Simulated GPU time spent in steps.", st.Busy.Seconds())
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(b.Bytes())
}
