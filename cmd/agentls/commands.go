package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// command is one subcommand as help and completion know it. Its flags
// come from the same constructor its parser uses, so what `agentls help`
// and the completion scripts offer cannot drift from what is accepted.
type command struct {
	name, summary string
	flags         func() *flag.FlagSet // nil: no flags
	words         []string             // words it takes in place of free text (mcp list, completion bash …)
}

// commands lists the subcommands in the order the usage text gives them.
// A function, not a variable: help refers to the list and the list to help.
func commands() []command {
	return []command{
		{name: "serve", summary: "serve LSP on stdin/stdout", flags: func() *flag.FlagSet { return serveFlagSet(new(string), new(string)) }},
		{name: "run", summary: "run one agent task headless", flags: func() *flag.FlagSet { return runFlagSet(new(runFlags)) }},
		{name: "acp", summary: "serve the Agent Client Protocol", flags: func() *flag.FlagSet { return acpFlagSet(new(string), new(string)) }},
		{name: "sessions", summary: "list the saved sessions of a workspace", flags: func() *flag.FlagSet { return sessionsFlagSet(new(string)) }},
		{name: "mcp", summary: "inspect configured MCP servers", flags: func() *flag.FlagSet { return mcpFlagSet(new(mcpFlags)) }, words: mcpSubcommands},
		{name: "report", summary: "render a run's transcript as an HTML page", flags: func() *flag.FlagSet { return reportFlagSet(new(reportFlags)) }},
		{name: "revert", summary: "take back a run whose changes landed", flags: func() *flag.FlagSet { return revertFlagSet(new(string)) }},
		{name: "remember", summary: "add a rule to AGENTS.md (diff; --apply writes)", flags: func() *flag.FlagSet { return rememberFlagSet(new(rememberFlags)) }},
		{name: "version", summary: "print the version"},
		{name: "help", summary: "print a command's help", words: commandNames()},
		{name: "completion", summary: "print a shell completion script", words: shells},
	}
}

// commandNames are the subcommands' names (help's words, without the list
// itself: commands would call itself).
func commandNames() []string {
	return []string{"serve", "run", "acp", "sessions", "mcp", "report", "revert", "remember", "version", "help", "completion"}
}

// shells are the shells `agentls completion` writes a script for.
var shells = []string{"bash", "zsh", "fish"}

const versionUsage = `usage: agentls version

Prints the version (also agentls --version).
`

const helpUsage = `usage: agentls help [COMMAND]

Prints COMMAND's help (the same as agentls COMMAND --help), or without
COMMAND the list of commands.
`

// helpMain implements `agentls help [COMMAND]`: a newcomer types it before
// learning the --help convention, and the top-level usage would not answer.
func helpMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) > 1:
		fmt.Fprintf(stderr, "agentls help: want one COMMAND, got %q (see agentls help)\n", args)
		return 2
	}
	name := args[0]
	if !slices.Contains(commandNames(), name) {
		fmt.Fprintf(stderr, "agentls help: unknown command %q; the commands are %s\n", name, strings.Join(commandNames(), ", "))
		return 2
	}
	return dispatch(name, []string{"--help"}, stdin, stdout, stderr)
}

// isHelp says whether args ask for help (the commands that take no flags).
func isHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help")
}
