package workspace

// View is the workspace view. PLACEHOLDER: the workspace owner replaces this
// file with the implementation of the contract in api.go.
type View struct{}
