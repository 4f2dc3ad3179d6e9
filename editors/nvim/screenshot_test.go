package nvim_test

import (
	"context"
	"flag"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/internal/testpeers"
	"github.com/agentls/agentls/internal/testwait"
)

var updateImages = flag.Bool("update", false, "rewrite docs/images/nvim-preview.svg from the screen of TestReadmeScreenshot")

// TestReadmeScreenshot runs the README's no-model demo in a real terminal
// Neovim (inside tmux), types the README's commands up to the preview, and
// checks the screen shows the line to replace and the agent's new line.
// With -update it renders that screen (tmux capture-pane, colours kept) as
// the README's picture, docs/images/nvim-preview.svg.
func TestReadmeScreenshot(t *testing.T) {
	nvim := nvimPath(t)
	tmux := testpeers.LookPath(t, "tmux", "apt-get install tmux")
	md, root := readme(t)
	shell, cmds := readmeDemo(t, md)
	dir := t.TempDir()
	testwait.EnvProcessesGone(t, "XDG_STATE_HOME="+filepath.Join(dir, "state")) // agentls ends before dir goes
	ready := filepath.Join(dir, "ready")
	hook := filepath.Join(pluginDir(t), "tests", "readme_screen.lua")
	// The README's lines as written; `nvim` adds only a fresh setup (no
	// shada, swap or user config) and the hook that reports attachment.
	script := fmt.Sprintf("nvim() { %q --clean -i NONE -n \"$@\" -c %q; }\n%s", nvim, "luafile "+hook, shell)
	env := append(cleanEnv(), binOnPath(t),
		"HOME="+dir,
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"AGENTLS_READY="+ready,
	)
	sock := filepath.Join(dir, "tmux.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...)
		cmd.Env = env
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	const cols, rows = 84, 12
	tm("new-session", "-d", "-s", "demo", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"env TERM=xterm-256color sh -c "+shellQuote(script))
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", sock, "kill-server").Run() })

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, tm("capture-pane", "-p", "-t", "demo"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("agentls to attach to greet.py", func() bool { _, err := os.Stat(ready); return err == nil })
	screen := func() string { return tm("capture-pane", "-p", "-t", "demo") }
	for _, c := range cmds {
		name := strings.Fields(strings.TrimPrefix(c, ":"))[0]
		if name == "AgentAccept" {
			break // the picture shows the proposal before it is accepted
		}
		tm("send-keys", "-t", "demo", "-l", c)
		tm("send-keys", "-t", "demo", "Enter")
		switch name {
		case "AgentRun":
			waitFor("the preview of the fix", func() bool { return strings.Contains(screen(), `return "Hello, " + name + "!"`) })
		case "AgentNextHunk":
			waitFor("the cursor on the hunk", func() bool { return strings.Contains(screen(), " 3,1 ") })
		}
	}
	plain := screen()
	for _, want := range []string{`return "Hello, " + nme + "!"`, `return "Hello, " + name + "!"`} {
		if !strings.Contains(plain, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, plain)
		}
	}
	svg := ansiToSVG(tm("capture-pane", "-p", "-e", "-t", "demo"), cols, rows)
	if !strings.Contains(svg, html.EscapeString(`+ name +`)) {
		t.Fatalf("the rendered picture lacks the new line:\n%s", svg)
	}
	if *updateImages {
		if err := os.WriteFile(filepath.Join(root, "docs", "images", "nvim-preview.svg"), []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cellStyle is the look of one terminal cell.
type cellStyle struct {
	fg, bg                   string // "" is the default colour
	bold, italic, under, rev bool
}

// ansiToSVG renders a `tmux capture-pane -e` screen (text with SGR colour
// sequences) as an SVG picture of a cols×rows terminal: a dark background,
// one <text> per run of cells with the same style, placed by column so the
// grid holds whatever the font.
func ansiToSVG(screen string, cols, rows int) string {
	const cw, lh, pad, size = 8.4, 18.0, 10.0, 14
	const defFg, defBg = "#d0d0d0", "#1c1c1c"
	var b strings.Builder
	w, h := float64(cols)*cw+2*pad, float64(rows)*lh+2*pad
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">`+"\n", w, h, w, h, size)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" rx="6" fill="%s"/>`+"\n", defBg)
	var st cellStyle
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for row, line := range lines {
		if row >= rows {
			break
		}
		type cell struct {
			r  rune
			st cellStyle
		}
		var cells []cell
		for i := 0; i < len(line); {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					st = applySGR(st, line[i+2:j])
				}
				i = j + 1
				continue
			}
			r, n := []rune(line[i:])[0], len(string([]rune(line[i:])[0]))
			cells = append(cells, cell{r, st})
			i += n
		}
		y := pad + float64(row)*lh
		for start := 0; start < len(cells); {
			end := start
			for end < len(cells) && cells[end].st == cells[start].st {
				end++
			}
			s := cells[start].st
			fg, bg := s.fg, s.bg
			if fg == "" {
				fg = defFg
			}
			if s.rev {
				fg, bg = bg, fg
				if fg == "" {
					fg = defBg
				}
			}
			x := pad + float64(start)*cw
			if bg != "" {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, y, float64(end-start)*cw, lh, bg)
			}
			var text strings.Builder
			for _, c := range cells[start:end] {
				text.WriteRune(c.r)
			}
			if t := strings.TrimRight(text.String(), " "); t != "" {
				attrs := ""
				if s.bold {
					attrs += ` font-weight="bold"`
				}
				if s.italic {
					attrs += ` font-style="italic"`
				}
				if s.under {
					attrs += ` text-decoration="underline"`
				}
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s" xml:space="preserve"%s>%s</text>`+"\n", x, y+lh-5, fg, attrs, html.EscapeString(t))
			}
			start = end
		}
		st = cellStyle{} // tmux restates the style on each line
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// applySGR applies one SGR parameter list ("1;38;5;214") to st.
func applySGR(st cellStyle, params string) cellStyle {
	if params == "" {
		return cellStyle{}
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i])
		switch {
		case n == 0:
			st = cellStyle{}
		case n == 1:
			st.bold = true
		case n == 3:
			st.italic = true
		case n == 4:
			st.under = true
		case n == 7:
			st.rev = true
		case n == 22:
			st.bold = false
		case n == 23:
			st.italic = false
		case n == 24:
			st.under = false
		case n == 27:
			st.rev = false
		case n >= 30 && n <= 37:
			st.fg = xterm256(n - 30)
		case n >= 90 && n <= 97:
			st.fg = xterm256(n - 90 + 8)
		case n >= 40 && n <= 47:
			st.bg = xterm256(n - 40)
		case n >= 100 && n <= 107:
			st.bg = xterm256(n - 100 + 8)
		case n == 39:
			st.fg = ""
		case n == 49:
			st.bg = ""
		case (n == 38 || n == 48) && i+2 < len(ps) && ps[i+1] == "5":
			c, _ := strconv.Atoi(ps[i+2])
			if n == 38 {
				st.fg = xterm256(c)
			} else {
				st.bg = xterm256(c)
			}
			i += 2
		case (n == 38 || n == 48) && i+4 < len(ps) && ps[i+1] == "2":
			r, _ := strconv.Atoi(ps[i+2])
			g, _ := strconv.Atoi(ps[i+3])
			bl, _ := strconv.Atoi(ps[i+4])
			c := fmt.Sprintf("#%02x%02x%02x", r, g, bl)
			if n == 38 {
				st.fg = c
			} else {
				st.bg = c
			}
			i += 4
		}
	}
	return st
}

// xterm256 is colour n of xterm's 256-colour palette.
func xterm256(n int) string {
	basic := []string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
		"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}
	switch {
	case n < 16:
		return basic[max(n, 0)]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	case n < 256:
		v := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
	return ""
}
