package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"
)

// checkTimeout bounds Models/Check when ctx has no deadline: a pre-flight
// check must fail fast, not hang a sweep that has not started.
const checkTimeout = 15 * time.Second

// Models lists the model IDs the server offers (GET {base}/models, through
// go-openai). Errors are plain sentences fit for a terminal, with secrets
// removed.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, checkTimeout)
		defer cancel()
	}
	list, err := p.oa.ListModels(ctx)
	if err != nil {
		return nil, p.modelsError(ctx, err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// modelsError turns a go-openai error into a sentence that says what to
// fix: the URL, the key or the server.
func (p *Provider) modelsError(ctx context.Context, err error) error {
	where := RedactURL(p.base)
	status, msg := 0, ""
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		msg = describeBody(status, "", reqErr.Body)
	case ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer within %s", where, checkTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("listing models at %s: %v", where, ctx.Err())
	default:
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return errors.New(p.message(fmt.Sprintf("%s did not answer: %s", where, innermost(err))))
		}
		if strings.Contains(err.Error(), "invalid character") {
			return fmt.Errorf("%s/models did not return JSON: is this an OpenAI-compatible API root (usually ending in /v1)?", where)
		}
		return errors.New(p.message(p.reachMessage(err)))
	}
	switch status {
	case http.StatusUnauthorized:
		return errors.New(p.message(fmt.Sprintf("the API key was refused (401) by %s: %s", where, msg)))
	case http.StatusForbidden:
		return errors.New(p.message(fmt.Sprintf("the API key may not list models (403) at %s: %s", where, msg)))
	case http.StatusNotFound:
		return fmt.Errorf("%s/models not found (404): is the base URL the API root (usually ending in /v1)?", where)
	}
	return errors.New(p.message(fmt.Sprintf("listing models at %s failed (%d): %s", where, status, msg)))
}

// Check is the pre-flight test before a sweep: the endpoint answers, the
// key is accepted and the configured model is served (the error names the
// ones that are). With no model configured, any reachable server passes.
func (p *Provider) Check(ctx context.Context) error {
	ids, err := p.Models(ctx)
	if err != nil {
		return err
	}
	if p.cfg.model == "" || slices.Contains(ids, p.cfg.model) {
		return nil
	}
	if len(ids) == 0 {
		return fmt.Errorf("model %q: %s lists no models", p.cfg.model, RedactURL(p.base))
	}
	shown := ids
	if len(shown) > 20 {
		shown = shown[:20]
	}
	more := ""
	if len(ids) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
	}
	return fmt.Errorf("model %q is not served by %s; available: %s%s",
		p.cfg.model, RedactURL(p.base), strings.Join(shown, ", "), more)
}
