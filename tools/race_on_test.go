//go:build race

package tools

// raceEnabled: the race detector slows code 5-20x, so timing comparisons
// (grep vs ripgrep) are skipped under it.
const raceEnabled = true
