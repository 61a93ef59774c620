// Package providers builds the engine.Provider a configuration asks for:
// the built-in simulator or an OpenAI-compatible endpoint. It is the one
// place that knows every backend, so main stays a thin composition root.
package providers

import (
	"context"
	"fmt"
	"slices"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/engine/config"
	"github.com/kneepoint/kneepoint/providers/openai"
	"github.com/kneepoint/kneepoint/providers/sim"
)

// Backend is a provider with its lifecycle and setup check.
type Backend struct {
	engine.Provider
	// Check verifies the target before a sweep starts (reachable, key
	// accepted, model served). Nil when there is nothing to check.
	Check func(context.Context) error
	Close func()
}

// New builds the backend for c. getenv resolves the API key.
func New(c config.Config, getenv func(string) string) (*Backend, error) {
	switch c.Target.Provider {
	case "sim":
		prof, err := sim.LookupProfile(c.Target.SimProfile)
		if err != nil {
			return nil, &config.Error{Key: "target.sim_profile", Msg: fmt.Sprintf("%v (profiles: %v)", err, sim.Profiles())}
		}
		if c.Workload.IgnoreEOS {
			prof.EarlyStop = 0 // every request runs to max_tokens, as the server would
		}
		s, err := sim.New(prof, sim.WithSeed(c.Sweep.Seed))
		if err != nil {
			return nil, err
		}
		return &Backend{Provider: s, Close: func() { s.Close() }}, nil
	case "openai":
		opts := []openai.Option{
			openai.WithBaseURL(c.Target.BaseURL),
			openai.WithAPIKey(openai.ResolveKey(getenv, c.Target.APIKeyEnv)),
			openai.WithModel(c.Target.Model),
			openai.WithStream(c.Workload.Stream),
			openai.WithTimeout(c.Target.Timeout.D()),
			openai.WithMaxConns(max(slices.Max(c.Sweep.Levels), 1)),
			openai.WithHTTP2(c.Target.HTTP2),
			openai.WithLeanHTTP(c.Target.LeanHTTP),
			openai.WithSystemPrompt(c.Workload.SystemPrompt),
			openai.WithSharedPrefix(c.Workload.SharedPrefixTokens),
			openai.WithIgnoreEOS(c.Workload.IgnoreEOS),
			openai.WithExtraBody(c.Workload.ExtraBody),
			openai.WithPromptsFile(c.Workload.PromptsFile),
		}
		if c.Workload.Temperature != nil {
			opts = append(opts, openai.WithTemperature(*c.Workload.Temperature))
		}
		p, err := openai.New(opts...)
		if err != nil {
			return nil, err
		}
		b := &Backend{Provider: p, Close: p.Close}
		if !c.Target.SkipCheck {
			b.Check = p.Check
		}
		return b, nil
	}
	return nil, &config.Error{Key: "target.provider", Msg: fmt.Sprintf("%q is not a provider", c.Target.Provider)}
}
