package tools

// Ledger records, per run, what the model has read. PLACEHOLDER: the tools
// owner replaces this file.
type Ledger struct{}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{} }
