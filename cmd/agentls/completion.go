package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/safetext"
)

const completionUsage = `usage: agentls completion bash|zsh|fish

Prints a shell completion script for agentls: its commands, each
command's flags, and files or directories where a flag wants one.

  bash:  source <(agentls completion bash)          (in ~/.bashrc)
  zsh:   source <(agentls completion zsh)           (in ~/.zshrc, after compinit)
  fish:  agentls completion fish > ~/.config/fish/completions/agentls.fish
`

// completionMain implements `agentls completion SHELL`. The scripts are
// generated from the commands' flag sets, so they offer exactly what the
// parsers accept.
func completionMain(args []string, stdout, stderr io.Writer) int {
	if isHelp(args) {
		fmt.Fprint(stdout, completionUsage)
		return 0
	}
	if len(args) != 1 || !slices.Contains(shells, args[0]) {
		fmt.Fprintf(stderr, "agentls completion: want one shell: bash, zsh or fish (see agentls help completion)\n")
		return 2
	}
	var script string
	switch args[0] {
	case "bash":
		script = bashCompletion(commands())
	case "zsh":
		script = zshCompletion(commands())
	case "fish":
		script = fishCompletion(commands())
	}
	fmt.Fprint(stdout, script)
	return 0
}

// compFlag is a flag as the completion scripts need it.
type compFlag struct {
	name  string // as typed: --dir, -o
	short bool   // a single letter
	value string // "": takes no value; "directory", "file" or another placeholder
	help  string // the usage's first clause
}

// compFlags lists a command's flags (none for nil).
func compFlags(c command) []compFlag {
	if c.flags == nil {
		return nil
	}
	var out []compFlag
	c.flags().VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		help, _, _ := strings.Cut(usage, ";")
		help, _, _ = strings.Cut(help, " (")
		out = append(out, compFlag{name: flagName(f.Name), short: len(f.Name) == 1, value: value, help: strings.TrimSpace(help)})
	})
	return out
}

// names joins the flags' names.
func names(fs []compFlag) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.name)
	}
	return strings.Join(out, " ")
}

// bashCompletion writes the bash script. The command is the first word,
// as run decides it: a first word starting with - means serve.
func bashCompletion(cmds []command) string {
	var b strings.Builder
	var top []string
	for _, c := range cmds {
		top = append(top, c.name)
	}
	serveFlags := compFlags(cmds[0])
	b.WriteString("# bash completion for agentls (agentls completion bash); generated, do not edit.\n")
	b.WriteString("_agentls() {\n")
	b.WriteString("    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd=serve\n")
	b.WriteString("    COMPREPLY=()\n")
	b.WriteString("    if [[ $COMP_CWORD -eq 1 ]]; then\n")
	fmt.Fprintf(&b, "        if [[ $cur == -* ]]; then\n            COMPREPLY=($(compgen -W %s -- \"$cur\"))\n", bashWords(names(serveFlags)+" --help --version"))
	fmt.Fprintf(&b, "        else\n            COMPREPLY=($(compgen -W %s -- \"$cur\"))\n        fi\n        return 0\n    fi\n", bashWords(strings.Join(top, " ")))
	b.WriteString("    [[ ${COMP_WORDS[1]} == -* ]] || cmd=${COMP_WORDS[1]}\n")
	b.WriteString("    case \"$cmd\" in\n")
	for _, c := range cmds {
		fl := compFlags(c)
		fmt.Fprintf(&b, "    %s)\n", c.name)
		var dirs, files, other []string
		for _, f := range fl {
			switch f.value {
			case "":
			case "directory":
				dirs = append(dirs, f.name)
			case "file":
				files = append(files, f.name)
			default:
				other = append(other, f.name)
			}
		}
		if len(dirs)+len(files)+len(other) > 0 {
			b.WriteString("        case \"$prev\" in\n")
			if len(dirs) > 0 {
				fmt.Fprintf(&b, "        %s) COMPREPLY=($(compgen -d -- \"$cur\")); return 0 ;;\n", strings.Join(dirs, "|"))
			}
			if len(files) > 0 {
				fmt.Fprintf(&b, "        %s) COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n", strings.Join(files, "|"))
			}
			if len(other) > 0 {
				fmt.Fprintf(&b, "        %s) return 0 ;;\n", strings.Join(other, "|"))
			}
			b.WriteString("        esac\n")
		}
		flagWords := strings.TrimSpace(names(fl) + " --help")
		fmt.Fprintf(&b, "        if [[ $cur == -* ]]; then\n            COMPREPLY=($(compgen -W %s -- \"$cur\"))\n", bashWords(flagWords))
		if len(c.words) > 0 {
			fmt.Fprintf(&b, "        else\n            COMPREPLY=($(compgen -W %s -- \"$cur\"))\n", bashWords(strings.Join(c.words, " ")))
		}
		b.WriteString("        fi\n        ;;\n")
	}
	b.WriteString("    esac\n    return 0\n}\ncomplete -o default -F _agentls agentls\n")
	return b.String()
}

// bashWords quotes a word list for compgen -W (names and words are plain
// ASCII without quotes).
func bashWords(s string) string { return "'" + s + "'" }

// zshCompletion writes the zsh script (compsys: _describe and _arguments).
func zshCompletion(cmds []command) string {
	var b strings.Builder
	b.WriteString("#compdef agentls\n# zsh completion for agentls (agentls completion zsh); generated, do not edit.\n")
	b.WriteString("_agentls() {\n    local -a commands\n    commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "        %s\n", safetext.ShellQuote(c.name+":"+c.summary))
	}
	b.WriteString("    )\n")
	b.WriteString("    if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then\n        _describe -t commands 'agentls command' commands\n        return\n    fi\n")
	b.WriteString("    local cmd=serve\n    [[ $words[2] == -* ]] || { cmd=$words[2]; shift words; (( CURRENT-- )); }\n")
	b.WriteString("    case $cmd in\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "    %s)\n        _arguments -s", c.name)
		for _, f := range compFlags(c) {
			spec := f.name + "[" + zshDesc(f.help) + "]"
			switch f.value {
			case "":
			case "directory":
				spec += ":directory:_files -/"
			case "file":
				spec += ":file:_files"
			default:
				spec += ":" + f.value + ": "
			}
			fmt.Fprintf(&b, " \\\n            %s", safetext.ShellQuote(spec))
		}
		if len(c.words) > 0 {
			fmt.Fprintf(&b, " \\\n            %s", safetext.ShellQuote("*:word:("+strings.Join(c.words, " ")+")"))
		} else {
			b.WriteString(" \\\n            '*:argument:_default'")
		}
		b.WriteString("\n        ;;\n")
	}
	b.WriteString("    esac\n}\nif [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n    _agentls \"$@\"\nelse\n    compdef _agentls agentls\nfi\n")
	return b.String()
}

// zshDesc makes a description safe inside an _arguments [..] spec.
func zshDesc(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", ":", " -", "\\", "", "`", "").Replace(s)
}

// fishCompletion writes the fish script (complete -c agentls …).
func fishCompletion(cmds []command) string {
	var b strings.Builder
	b.WriteString("# fish completion for agentls (agentls completion fish); generated, do not edit.\n")
	b.WriteString("complete -c agentls -f\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c agentls -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range cmds {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		if c.name == "serve" { // serve's flags also come without the word serve
			cond = fishQuote("__fish_use_subcommand; or __fish_seen_subcommand_from serve")
		}
		for _, f := range compFlags(c) {
			opt := "-l " + strings.TrimPrefix(f.name, "--")
			if f.short {
				opt = "-s " + strings.TrimPrefix(f.name, "-")
			}
			switch f.value {
			case "":
			case "directory":
				opt += " -x -a '(__fish_complete_directories)'"
			case "file":
				opt += " -r -F"
			default:
				opt += " -x"
			}
			fmt.Fprintf(&b, "complete -c agentls -n %s %s -d %s\n", cond, opt, fishQuote(f.help))
		}
		if len(c.words) > 0 {
			fmt.Fprintf(&b, "complete -c agentls -n %s -a %s\n", cond, fishQuote(strings.Join(c.words, " ")))
		}
	}
	return b.String()
}

// fishQuote single-quotes s for fish, whose quotes escape \\ and \' (not
// POSIX, so safetext.ShellQuote does not apply).
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
