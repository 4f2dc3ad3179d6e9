package llm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/redact"
	"github.com/agentls/agentls/internal/safetext"
)

// modelsTimeout bounds GET /models: a picker must not wait on a slow
// endpoint, and the configured model works without the list.
const modelsTimeout = 10 * time.Second

// maxModels bounds the list an endpoint may return.
const maxModels = 1000

// maxModelName bounds a model name.
const maxModelName = 256

// ValidModelName reports whether id can be offered and shown as a model
// name: not empty, at most 256 bytes, and nothing internal/safetext would
// escape (C0 and C1 controls, DEL, bidi controls, invalid UTF-8). Model
// lists reach pickers on every face, and an id with U+202E would show
// another name than the one sent; such an id is left out, not escaped,
// because the id is also what goes back to the endpoint.
func ValidModelName(id string) bool {
	return id != "" && len(id) <= maxModelName && strings.TrimSpace(id) == id && safetext.Line(id) == id
}

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
		if !ValidModelName(id) || seen[id] {
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
