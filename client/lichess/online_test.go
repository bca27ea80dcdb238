package lichess

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

const startFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// The knowledge endpoints reach their own servers (here the fake's paths),
// decode the answers, send the token to the explorer and the cloud but not
// to the tablebase, and report a position the cloud does not know as 404.
func TestKnowledgeEndpoints(t *testing.T) {
	s := newServer(t)
	c := newTestClient(t, s.URL())
	ctx := context.Background()
	fen := "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"
	want := lichesstest.OnlineMove(fen)

	tb, err := c.Tablebase(ctx, s.URL()+lichesstest.TablebasePath, fen)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Moves) == 0 || tb.Moves[0].UCI != want || tb.Moves[0].Category != "loss" || tb.Moves[0].DTZ == nil {
		t.Errorf("tablebase: %+v, want %s first as a loss for the opponent", tb.Moves, want)
	}

	ev, err := c.CloudEval(ctx, startFEN, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.PVs) != 3 || ev.Depth != 40 || ev.PVs[0].CP == nil || ev.PVs[0].Moves != lichesstest.OnlineMove(startFEN) {
		t.Errorf("cloud eval: %+v", ev)
	}

	for _, db := range []string{ExplorerMasters, ExplorerLichess} {
		ex, err := c.Explorer(ctx, ExplorerQuery{Base: s.URL() + lichesstest.ExplorerPath, Database: db, FEN: startFEN,
			Speeds: []string{"blitz"}, Ratings: []int{2200, 2500}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Moves) == 0 || ex.Moves[0].UCI != lichesstest.OnlineMove(startFEN) || ex.Moves[0].Games() != 100 {
			t.Errorf("explorer %s: %+v", db, ex.Moves)
		}
	}
	if _, err := c.Explorer(ctx, ExplorerQuery{Database: "nope", FEN: startFEN}); err == nil {
		t.Error("explorer: an unknown database was asked about")
	}

	auth := map[lichesstest.OnlineService][]bool{}
	for _, a := range s.OnlineAnswers() {
		auth[a.Service] = append(auth[a.Service], a.Authorized)
	}
	if got := auth[lichesstest.OnlineTablebase]; len(got) != 1 || got[0] {
		t.Errorf("tablebase requests authorized: %v, want one without the token", got)
	}
	if got := auth[lichesstest.OnlineExplorer]; len(got) != 2 || !got[0] || !got[1] {
		t.Errorf("explorer requests authorized: %v, want two with the token", got)
	}
	for _, r := range s.RequestsMatching("GET " + lichesstest.ExplorerPath + "/*") {
		if r.Account != botID {
			t.Errorf("explorer request %s from account %q, want %s", r.Path, r.Account, botID)
		}
	}

	s.SetOnlineFault(lichesstest.OnlineCloudEval, lichesstest.OnlineNotFound)
	if _, err := c.CloudEval(ctx, startFEN, 1, ""); !IsNotFound(err) {
		t.Errorf("cloud eval of an unknown position: %v, want a 404", err)
	}
}

// A 429 of a knowledge service cools that service down: the next question
// fails at once without a request, and the other services are still asked.
func TestKnowledgeRateLimited(t *testing.T) {
	s := newServer(t)
	c := newTestClient(t, s.URL())
	ctx := context.Background()
	base := s.URL() + lichesstest.ExplorerPath
	s.SetOnlineFault(lichesstest.OnlineExplorer, lichesstest.Online429)
	q := ExplorerQuery{Base: base, Database: ExplorerMasters, FEN: startFEN}
	if _, err := c.Explorer(ctx, q); !IsRateLimited(err) {
		t.Fatalf("explorer: %v, want a 429", err)
	}
	s.SetOnlineFault(lichesstest.OnlineExplorer, lichesstest.OnlineGood)
	if _, err := c.Explorer(ctx, q); !errors.Is(err, ErrCoolingDown) {
		t.Errorf("explorer in its cool-down: %v, want ErrCoolingDown", err)
	}
	if n := requestCount(s, "GET "+lichesstest.ExplorerPath+"/*"); n != 1 {
		t.Errorf("%d explorer requests, want 1 (none in the cool-down)", n)
	}
	if _, err := c.Tablebase(ctx, s.URL()+lichesstest.TablebasePath, "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"); err != nil {
		t.Errorf("tablebase during the explorer's cool-down: %v", err)
	}
}

// A request with the token that is redirected to another host is not
// followed (the oauth2 transport would put the token on the redirected
// request too): the other host never sees the token. A redirect on the
// same host is followed, with the token.
func TestTokenNotRedirectedToAnotherHost(t *testing.T) {
	var mu sync.Mutex
	var otherAuth, sameAuth []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		otherAuth = append(otherAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"moves": []}`))
	}))
	defer other.Close()
	var redir *httptest.Server
	redir = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/away/"), r.URL.Path == "/api/cloud-eval":
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/same/"):
			http.Redirect(w, r, "/ok/"+strings.TrimPrefix(r.URL.RequestURI(), "/same/"), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/ok/"):
			mu.Lock()
			sameAuth = append(sameAuth, r.Header.Get("Authorization"))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"moves": []}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer redir.Close()
	c := newTestClient(t, redir.URL)
	ctx := context.Background()

	if _, err := c.Explorer(ctx, ExplorerQuery{Base: redir.URL + "/away", Database: ExplorerMasters, FEN: startFEN}); !errors.Is(err, ErrRedirectRefused) {
		t.Errorf("explorer redirected to another host: %v, want ErrRedirectRefused", err)
	}
	if _, err := c.CloudEval(ctx, startFEN, 1, ""); !errors.Is(err, ErrRedirectRefused) {
		t.Errorf("cloud evaluation redirected to another host: %v, want ErrRedirectRefused", err)
	}
	if _, err := c.Explorer(ctx, ExplorerQuery{Base: redir.URL + "/same", Database: ExplorerMasters, FEN: startFEN}); err != nil {
		t.Errorf("explorer redirected on its host: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(otherAuth) != 0 {
		t.Errorf("the other host got %d requests (Authorization %q), want none", len(otherAuth), otherAuth)
	}
	if len(sameAuth) != 1 || sameAuth[0] != "Bearer "+testToken {
		t.Errorf("the redirect on the same host arrived with Authorization %q, want the token once", sameAuth)
	}
}

// CloudEval sends its variant (here chess960, whose X-FEN castling rights
// standard chess cannot read) and none for standard chess.
func TestCloudEvalVariant(t *testing.T) {
	s := newServer(t)
	c := newTestClient(t, s.URL())
	ctx := context.Background()
	const fen960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
	ev, err := c.CloudEval(ctx, fen960, 1, VariantChess960)
	if err != nil {
		t.Fatal(err)
	}
	if want := lichesstest.OnlineVariantMove(VariantChess960, fen960); len(ev.PVs) != 1 || ev.PVs[0].Moves != want {
		t.Errorf("chess960: %+v, want %s", ev.PVs, want)
	}
	if _, err := c.CloudEval(ctx, startFEN, 1, ""); err != nil {
		t.Fatal(err)
	}
	a := s.OnlineAnswers()
	if len(a) != 2 || a[0].Variant != VariantChess960 || a[1].Variant != "" {
		t.Errorf("requests %+v, want variant chess960 then none", a)
	}
}
