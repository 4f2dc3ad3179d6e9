package lspserver

// DocumentMapSizes returns the size of every map that gains an entry when
// a document is opened, by name, for tests proving didClose removes them.
func DocumentMapSizes(s *Server) map[string]int {
	out := map[string]int{}
	out["view.overlays"], out["view.aliases"] = s.view.BufferMaps()
	out["docs.alias"], out["docs.editorKey"] = s.docs.AliasSizes()
	out["diags.pending"], out["diags.published"] = s.review.DiagnosticMaps()
	out["runs.tasks"] = s.runs.TaskMaps()
	return out
}
