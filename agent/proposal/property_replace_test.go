package proposal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPropertyReplaceCreated drives two runs' proposals to create one file,
// the later replacing the earlier (ReplaceCreated), through random accepts
// (landing, failing, or still in flight when the replacement comes),
// rejects and user edits, and checks after every step that the replaced
// proposal is never applied once replaced, that no plan ever applies both,
// and that an accept of everything creates the file once with the later
// run's text.
func TestPropertyReplaceCreated(t *testing.T) {
	iterations := 400
	if testing.Short() {
		iterations = 60
	}
	texts := []string{"a\n", "a\nb\n", "x\r\ny\r\n", "", "\n", "b\na\n", "a\nb\nc\n"}
	for seed := range iterations {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		p1 := "def test_cart():\n    assert Cart().total == 0\n"
		if r.IntN(3) == 0 {
			p1 = "é🙂\r\nline\r\n"
		}
		p2 := p1 + "def test_empty():\n    assert not Cart().items\n"
		if r.IntN(4) == 0 {
			p2 = "something else\n"
		}
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			s := New()
			doc := ""
			v := int32(1)
			s.Put("r1", "f", "", nil, p1, true)
			var inFlight []AcceptPlan
			r1Flight := false // an r1 plan was in flight when r2 replaced it
			replaced := false
			edited := false // the user edited the document after the replacement
			check := func(step string) {
				t.Helper()
				checkInvariants(t, s)
				if got, ok := storeText(t, s, "f"); ok && got != doc {
					t.Fatalf("%s: store text %q, document %q", step, got, doc)
				}
				if !replaced || r1Flight {
					return
				}
				for _, h := range s.Select(Filter{RunID: "r1"}) {
					if h.Status != StatusConflicted || !strings.HasPrefix(h.SupersededBy, "r2#") || !strings.Contains(h.Reason, "change "+h.SupersededBy+" of run r2") {
						t.Fatalf("%s: replaced hunk is %+v", step, h)
					}
					if _, live := s.Hunk(h.SupersededBy); !live && len(s.Select(Filter{RunID: "r2"})) > 0 {
						t.Fatalf("%s: replaced hunk points at %s, which r2 no longer holds", step, h.SupersededBy)
					}
				}
			}
			accept := func(step string, f Filter) {
				t.Helper()
				plan, err := s.Accept(f, allEncodings[r.IntN(3)])
				if err != nil {
					t.Fatal(err)
				}
				checkPlan(t, plan)
				if plan.Empty() {
					return
				}
				for _, fe := range plan.Files {
					runs := map[string]bool{}
					for _, id := range fe.HunkIDs {
						runs[strings.SplitN(id, "#", 2)[0]] = true
						if replaced && !r1Flight && strings.HasPrefix(id, "r1#") {
							t.Fatalf("%s: plan holds replaced hunk %s", step, id)
						}
					}
					if len(runs) > 1 {
						t.Fatalf("%s: plan applies both runs' new files: %v", step, fe.HunkIDs)
					}
				}
				switch r.IntN(4) {
				case 0:
					s.Failed(plan, "the editor refused")
				case 1:
					inFlight = append(inFlight, plan)
				default:
					clients[r.IntN(len(clients))].land(t, s, plan)
					doc = plan.Files[0].Expected
					v = 50
				}
			}
			step := func(i int) {
				switch r.IntN(5) {
				case 0:
					accept(fmt.Sprintf("step %d: accept all", i), Filter{Path: "f"})
				case 1:
					accept(fmt.Sprintf("step %d: accept r1", i), Filter{RunID: "r1"})
				case 2:
					accept(fmt.Sprintf("step %d: accept r2", i), Filter{RunID: "r2"})
				case 3:
					if len(inFlight) > 0 {
						p := inFlight[0]
						inFlight = inFlight[1:]
						if r.IntN(2) == 0 {
							s.Failed(p, "gave up")
						} else {
							s.Applied(p)
							doc = p.Files[0].Expected
						}
					} else if hs := s.Select(Filter{}); len(hs) > 0 && r.IntN(3) == 0 {
						s.Reject(Filter{HunkID: hs[r.IntN(len(hs))].ID})
					}
				case 4:
					if len(inFlight) == 0 {
						v++
						doc = texts[r.IntN(len(texts))]
						s.DocumentChanged("f", &v, doc)
						edited = edited || replaced
					}
				}
				check(fmt.Sprintf("step %d", i))
			}
			check("put r1")
			for i := range r.IntN(3) {
				step(i)
			}
			// The follow-up writes its version (sometimes twice) and
			// replaces r1's: a new file, or (the user opened the path: an
			// empty buffer as Neovim shows it) a change of that buffer.
			r2Base, r2Created := "", true
			if doc == "" && len(inFlight) == 0 && r.IntN(2) == 0 {
				v++
				doc = "\n"
				s.DocumentChanged("f", &v, doc)
				r2Base, r2Created = doc, false
				check("open an empty buffer")
			}
			for range 1 + r.IntN(2) {
				s.Put("r2", "f", r2Base, nil, p2, r2Created)
				s.DocumentChanged("f", &v, doc) // as review.Stage does
				flight := false
				for _, h := range s.Select(Filter{RunID: "r1"}) {
					flight = flight || h.Applying
				}
				r1Flight = r1Flight || flight
				s.ReplaceCreated("f", "r1", "r2")
				replaced = true
				check("replace")
				p2 += "# again\n"
			}
			final := strings.TrimSuffix(p2, "# again\n")
			clean := doc == r2Base && len(inFlight) == 0 && !r1Flight
			for i := range 8 {
				step(10 + i)
			}
			// Whatever happened, the document is never both files.
			if strings.Contains(doc, p1) && strings.Contains(doc, final) && p1 != final && !strings.HasPrefix(final, p1) {
				t.Fatalf("document holds both runs' files: %q", doc)
			}
			// A change of the empty buffer is an ordinary change: once the
			// user edited its line it is conflicted like any other, and an
			// empty buffer again does not heal it.
			if clean && (r2Created || !edited) {
				// From a clean start after the replacement: settle what
				// is in flight, empty the document, accept everything:
				// the file is r2's text exactly, once.
				for _, p := range inFlight {
					s.Failed(p, "gave up")
				}
				inFlight = nil
				if len(s.Select(Filter{RunID: "r2"})) == 0 {
					return // rejected or applied already
				}
				if doc != r2Base {
					v++
					doc = r2Base
					s.DocumentChanged("f", &v, doc)
				}
				plan, err := s.Accept(Filter{Path: "f"}, allEncodings[0])
				if err != nil {
					t.Fatal(err)
				}
				if len(plan.Files) != 1 || plan.Files[0].Expected != final {
					t.Fatalf("accept all after the replacement: %+v, want the file to be %q", plan, final)
				}
				clients[0].land(t, s, plan)
				doc = final
				check("accept all")
				for _, h := range s.Select(Filter{}) {
					if h.Status == StatusPending {
						t.Fatalf("after accepting everything, %+v is still pending", h)
					}
				}
			}
		})
	}
}
