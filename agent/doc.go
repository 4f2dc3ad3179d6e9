// Package agent is the run loop: it calls the model, runs the tool calls it
// asks for, feeds the results back, and stops on a final answer or a limit.
// It also assembles the prompt and editor context, keeps the conversation
// inside the model's window (truncation, placeholders, summaries), counts
// tokens and writes a redacted JSONL transcript of every run.
//
// It knows tools only through tools.Registry/tools.Tool and the model only
// through the Model interface (*llm.Client implements it).
//
// Front-ends (lspserver, `agentls run`) go through a Session, the one owner
// of building a run and of the conversation across runs:
//
//	sess := agent.NewSession("")                 // or a restored one (SessionStore)
//	run, err := sess.Prepare(ctx, agent.Setup{Config: cfg, View: view, Approver: a},
//		agent.RunRequest{Prompt: "Fix the failing test", OnEvent: onEvent})
//	out := run.Execute(ctx)                      // events: text, tool calls, EventStaged, todo, end
//	sess.Decide(agent.Decision{...})             // review outcomes: inputs, never callbacks
//
// Underneath, Run is the loop itself:
//
//	env := tools.NewEnv(agent.NewRunID(), view, approver, policy)
//	tr, _ := agent.OpenTranscript("", env.RunID, agent.NewRedactor(cfg.APIKey()))
//	defer tr.Close()
//	out := agent.Run(ctx, agent.Options{
//		Model:      client,                       // *llm.Client
//		Registry:   registry,                     // or ToolsForTurn
//		Env:        env,                          // env.Changes holds the staged edits
//		Limits:     agent.LimitsFromConfig(cfg),
//		Prompt:     "Fix the failing test",
//		Editor:     &agent.EditorContext{Path: path, Range: &rng, Selection: sel, Diagnostics: diags},
//		OnEvent:    func(ev agent.Event) { /* agentls/runEvent with kind ev.Kind.String() */ },
//		Transcript: tr,
//	})
//	// out.Status is StatusFinished (out.Answer), StatusFailed (out.Err:
//	// errors.Is ErrMaxTurns, ErrWallClock, ErrTokenBudget, ErrToolErrors,
//	// ErrRepeatedCall, ErrModel wrapping *llm.Error) or StatusCancelled.
//
// Run blocks; run it on its own goroutine and cancel ctx to stop it (the
// model stream closes at once and running tools see the cancellation).
package agent
