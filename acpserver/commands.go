package acpserver

import (
	"context"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/tools/skills"
)

// Skills as slash commands: every skill the session's runs can load (the
// user's and the workspace's, tools/skills) is announced as an available
// command; a prompt starting with "/NAME" asks the agent to use that
// skill for the rest of the prompt.

// skillSet discovers the session's skills.
func (ss *session) skillSet() *skills.Set {
	return skills.Discover(skills.UserDir(ss.srv.opts.Env), []string{ss.cwd})
}

// announceCommands sends available_commands_update with the skills.
func (ss *session) announceCommands(ctx context.Context) {
	set := ss.skillSet()
	cmds := []acp.AvailableCommand{}
	for _, sk := range set.All() {
		desc := sk.Description
		if len(desc) > 200 {
			desc = desc[:200] + "…"
		}
		cmds = append(cmds, acp.AvailableCommand{Name: sk.Name, Description: desc,
			Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "what to do with this skill"}}})
	}
	ss.update(ctx, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}

// expandCommand rewrites "/NAME rest" for a skill NAME into a prompt that
// asks the agent to load and follow the skill.
func (ss *session) expandCommand(prompt string) string {
	if !strings.HasPrefix(prompt, "/") {
		return prompt
	}
	name, rest, _ := strings.Cut(strings.TrimPrefix(prompt, "/"), " ")
	name = strings.TrimSpace(name)
	for _, sk := range ss.skillSet().All() {
		if sk.Name == name {
			task := strings.TrimSpace(rest)
			if task == "" {
				task = "(no further instructions: do what the skill is for)"
			}
			return "Use the skill " + sk.Name + " (load it with the skill tool and follow it) for this task:\n" + task
		}
	}
	return prompt
}
