package tools

import (
	"context"
	_ "embed"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/tools/skills"
)

//go:embed descriptions/skill.md
var skillDescription string

type skillParams struct {
	Name string `json:"name" jsonschema:"skill name from the Skills list"`
}

// Skill is the skill tool: it returns a skill's full instructions, which
// the system prompt leaves out (only names and descriptions are listed, so
// unused skills cost a line each). The loop offers it only when the run
// has skills (Env.Skills).
func Skill() Tool {
	return New("skill", skillDescription, true, loadSkill)
}

func loadSkill(_ context.Context, env *Env, p skillParams) (Result, error) {
	sk, text, err := env.Skills.Load(strings.TrimSpace(p.Name))
	if err != nil {
		return Errorf("%v", err), nil
	}
	return Result{Text: text, Summary: "loaded skill " + sk.Name}, nil
}

// readSkillFile serves read_file for a path inside a skill's folder (user
// skills live outside the workspace): read-only, confined to that folder.
// ok is false when path is not in a skill folder, and read_file goes on
// with its usual workspace rules.
func (env *Env) readSkillFile(path string, offset, limit int) (Result, bool) {
	if env.Skills.Len() == 0 || !filepath.IsAbs(path) {
		return Result{}, false
	}
	abs := filepath.Clean(path)
	sk, ok := env.Skills.Contains(abs)
	if !ok || sk.Source == skills.Workspace {
		return Result{}, false // workspace skills are read (and locked) like any workspace file
	}
	if env.isSecret(abs) {
		return secretRefusal(abs), true
	}
	text, err := skills.ReadFile(sk, abs)
	if err != nil {
		return Errorf("skill %s: %v", sk.Name, err), true
	}
	return formatRead(abs, text, offset, limit, "a file of skill "+sk.Name+" (read-only)"), true
}
