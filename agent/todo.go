package agent

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/agentls/agentls/tools"
)

//go:embed descriptions/todo_write.md
var todoWriteDescription string

// Todo is one item of the model's plan (the todo_write tool).
type Todo struct {
	Content string `json:"content" jsonschema:"what to do, short"`
	Status  string `json:"status" jsonschema:"pending, in_progress or completed"`
}

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// maxTodos bounds the plan: a checklist, not a dump.
const (
	maxTodos       = 50
	maxTodoContent = 300
)

type todoParams struct {
	Todos []Todo `json:"todos" jsonschema:"the whole plan; replaces the previous one"`
}

// plan is the run's checklist. The loop restates it to the model after a
// compaction summary, so a long run does not lose it.
type plan struct {
	mu    sync.Mutex
	todos []Todo
}

func (p *plan) set(ts []Todo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.todos = append([]Todo(nil), ts...)
}

func (p *plan) get() []Todo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Todo(nil), p.todos...)
}

// PlanProgress is the one-line progress text of a plan: the current item
// and how far along it is ("2/5 · update the tests"); empty for no plan.
func PlanProgress(ts []Todo) string {
	if len(ts) == 0 {
		return ""
	}
	done, current := 0, ""
	for _, t := range ts {
		switch t.Status {
		case TodoCompleted:
			done++
		case TodoInProgress:
			if current == "" {
				current = t.Content
			}
		}
	}
	if current == "" {
		if done == len(ts) {
			return fmt.Sprintf("%d/%d · plan done", done, len(ts))
		}
		return fmt.Sprintf("%d/%d done", done, len(ts))
	}
	return fmt.Sprintf("%d/%d · %s", done+1, len(ts), current)
}

// planText renders the plan for the model (a compaction summary, the
// tool's answer).
func planText(ts []Todo) string {
	var b strings.Builder
	for _, t := range ts {
		mark := "[ ]"
		switch t.Status {
		case TodoInProgress:
			mark = "[~]"
		case TodoCompleted:
			mark = "[x]"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, t.Content)
	}
	return strings.TrimRight(b.String(), "\n")
}

// todoWriteTool is the todo_write tool of one run: it validates and stores
// the plan and reports it as an EventTodo. It is read-only as far as the
// workspace goes, so it may run alongside lookups.
func (r *runner) todoWriteTool() tools.Tool {
	return tools.New("todo_write", todoWriteDescription, true, func(_ context.Context, _ *tools.Env, p todoParams) (tools.Result, error) {
		if len(p.Todos) > maxTodos {
			return tools.Errorf("the plan has %d items; keep it to at most %d", len(p.Todos), maxTodos), nil
		}
		inProgress := 0
		for i, t := range p.Todos {
			t.Content = strings.TrimSpace(t.Content)
			if t.Content == "" {
				return tools.Errorf("todos[%d].content is empty", i), nil
			}
			if len(t.Content) > maxTodoContent {
				return tools.Errorf("todos[%d].content is %d characters; keep items under %d", i, len(t.Content), maxTodoContent), nil
			}
			switch t.Status {
			case TodoPending, TodoCompleted:
			case TodoInProgress:
				inProgress++
			default:
				return tools.Errorf("todos[%d].status %q must be pending, in_progress or completed", i, t.Status), nil
			}
			p.Todos[i] = t
		}
		if inProgress > 1 {
			return tools.Errorf("%d items are in_progress; at most one may be (finish or reset the others)", inProgress), nil
		}
		r.todos.set(p.Todos)
		r.events.emit(Event{Kind: EventTodo, Todos: append([]Todo(nil), p.Todos...)})
		r.transcript.record("todo", map[string]any{"todos": p.Todos})
		summary := PlanProgress(p.Todos)
		if summary == "" {
			summary = "plan cleared"
		}
		return tools.Result{Text: "Plan updated:\n" + planText(p.Todos), Summary: summary}, nil
	})
}
