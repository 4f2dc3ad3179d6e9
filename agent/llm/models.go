package llm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/redact"
)

// modelsTimeout bounds GET /models: a picker must not wait on a slow
// endpoint, and the configured model works without the list.
const modelsTimeout = 10 * time.Second

// maxModels bounds the list an endpoint may return.
const maxModels = 1000

// ListModels asks the endpoint which models it serves (GET /models), for
// model pickers. A replayed client has no endpoint: it lists nothing.
// Errors say what the endpoint did; callers fall back to the configured
// model and model.choices.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	if c.cfg.Replay != "" {
		return nil, errors.New("models: the model is replayed from a cassette (model.replay); there is no endpoint to ask")
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	list, err := c.api.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("models: GET %s/models: %s", redact.URL(c.cfg.BaseURL), redact.Text(err.Error()))
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range list.Models {
		id := strings.TrimSpace(m.ID)
		if id == "" || len(id) > 256 || seen[id] || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			continue
		}
		seen[id] = true
		out = append(out, id)
		if len(out) == maxModels {
			break
		}
	}
	sort.Strings(out)
	return out, nil
}
