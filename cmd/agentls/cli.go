package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// printFlags lists a flag set's flags the way the usage texts and
// docs/cli.md write them: --long, -o (flag.PrintDefaults writes "-apply",
// and "--o" reads as a typo).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		left := "  " + flagName(f.Name)
		if name != "" {
			left += " " + strings.ToUpper(name)
		}
		if len(left) < 26 {
			fmt.Fprintf(w, "%-26s%s", left, usage)
		} else {
			fmt.Fprintf(w, "%s\n%26s%s", left, "", usage)
		}
		if f.DefValue != "" && f.DefValue != "false" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// parseFlags parses args with fs and applies the command-line conventions:
// --help/-h prints usage to stdout (exit 0); a bad flag is reported on
// stderr with a pointer to --help (exit 2). It returns -1 to go on.
func parseFlags(fs *flag.FlagSet, args []string, usage func(io.Writer), stdout, stderr io.Writer) int {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", fs.Name(), dashes(err.Error()), fs.Name())
		return 2
	}
	return -1
}

// flagName is how a flag is written: one dash for a single letter (-o,
// -v), two for a word (--dir), as in the usage texts and docs/cli.md.
// The flag package accepts either.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// dashes rewrites the flag package's "-name" in its messages as flagName
// writes it.
func dashes(msg string) string {
	i := strings.LastIndex(msg, ": -")
	if i < 0 || strings.HasPrefix(msg[i+2:], "--") {
		return msg
	}
	name, _, _ := strings.Cut(msg[i+3:], " ")
	if len(name) == 1 {
		return msg
	}
	return msg[:i+2] + "-" + msg[i+2:]
}

// parseInterleaved parses flags placed before and after positional words
// (`agentls run --dir x fix it --apply`) with the conventions of parseFlags.
// It returns the words, and an exit code >= 0 when the command should stop.
func parseInterleaved(fs *flag.FlagSet, args []string, usage func(io.Writer), stdout, stderr io.Writer) ([]string, int) {
	var words []string
	for {
		if code := parseFlags(fs, args, usage, stdout, stderr); code >= 0 {
			return nil, code
		}
		if fs.NArg() == 0 {
			return words, -1
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
