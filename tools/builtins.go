package tools

// Builtins returns the built-in tools for policy: the one registration
// list (the registry sorts by name for the model).
//
// run_command is off by default: a shell can do anything the user can
// (delete files, reach the network, read secrets the other tools refuse),
// and the other tools already cover reading and editing. It is registered
// only when the user sets tools.runCommand to "ask", and then every call
// asks the user (allow once / always / deny) through the Env's Approver;
// with no Approver it is denied.
func Builtins(policy Policy) []Tool {
	ts := []Tool{
		ReadFile(),
		ListDir(),
		Glob(),
		Grep(),
		EditFile(),
		MultiEdit(),
		WriteFile(),
		Remember(),
	}
	if policy.RunCommand == "ask" {
		ts = append(ts, RunCommand())
	}
	return ts
}
