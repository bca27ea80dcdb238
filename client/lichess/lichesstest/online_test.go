package lichesstest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each fake knowledge service answers each fault as documented: a good
// answer recommends OnlineMove, an illegal one a move that is not legal,
// not found the service's own way of saying so, and the HTTP faults their
// status; a slow answer waits past the client's patience.
func TestOnlineFakes(t *testing.T) {
	s := newTestServer(t)
	fen := "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	best := OnlineMove(fen)
	legal := onlineLegal("", fen)
	if len(legal) != 20 || best != legal[19] {
		t.Fatalf("legal moves of the start: %v, best %s", legal, best)
	}
	q := url.Values{"fen": {fen}}
	urls := map[OnlineService]string{
		OnlineTablebase: s.URL() + TablebasePath + "/standard?" + q.Encode(),
		OnlineCloudEval: s.URL() + "/api/cloud-eval?" + q.Encode(),
		OnlineExplorer:  s.URL() + ExplorerPath + "/masters?" + q.Encode(),
		OnlineChessDB:   s.URL() + ChessDBPath + "/cdb.php?" + url.Values{"board": {fen}, "action": {"querybest"}, "json": {"1"}}.Encode(),
	}
	get := func(u string, timeout time.Duration) (int, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	for svc, u := range urls {
		for _, f := range []OnlineFault{OnlineGood, OnlineIllegal, OnlineNotFound, Online429, Online500, OnlineGarbage, OnlineSlow} {
			s.SetOnlineFault(svc, f)
			status, body, err := get(u, 300*time.Millisecond)
			switch f {
			case OnlineSlow:
				if err == nil {
					t.Errorf("%s %s: answered %d within 300ms", svc, f, status)
				}
				continue
			case Online429, Online500:
				want := map[OnlineFault]int{Online429: 429, Online500: 500}[f]
				if status != want {
					t.Errorf("%s %s: status %d", svc, f, status)
				}
				continue
			case OnlineGarbage:
				if status != 200 || json.Valid([]byte(body)) {
					t.Errorf("%s %s: %d %s", svc, f, status, body)
				}
				continue
			}
			if svc == OnlineCloudEval && f == OnlineNotFound {
				if status != 404 {
					t.Errorf("%s %s: status %d, want 404", svc, f, status)
				}
				continue
			}
			if status != 200 || !json.Valid([]byte(body)) {
				t.Errorf("%s %s: %d %s", svc, f, status, body)
				continue
			}
			answers := s.OnlineAnswers()
			a := answers[len(answers)-1]
			switch f {
			case OnlineGood:
				if a.Move != best || !strings.Contains(body, `"`+best) {
					t.Errorf("%s good: recorded %q, body %s; want %s", svc, a.Move, body, best)
				}
			case OnlineIllegal:
				if a.Move == "" || slices.Contains(legal, a.Move) || !strings.Contains(body, `"`+a.Move) {
					t.Errorf("%s illegal: recorded %q (legal %v), body %s", svc, a.Move, legal, body)
				}
			case OnlineNotFound:
				// The tablebase lists the moves, all of unknown value.
				found := strings.Contains(body, `"`+best)
				if svc == OnlineTablebase {
					found = strings.Contains(body, `"loss"`) || !strings.Contains(body, `"unknown"`)
				}
				if a.Move != "" || found {
					t.Errorf("%s not found: recorded %q, body %s", svc, a.Move, body)
				}
			}
		}
	}
}

// Under OnlineKingTakesRook each service recommends castling written as
// the king taking its rook, and writes no castling the other way.
func TestOnlineFakesKingTakesRook(t *testing.T) {
	s := newTestServer(t)
	fen := "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
	if m := KingTakesRookMove(fen); m != "e1h1" {
		t.Fatalf("KingTakesRookMove: %s, want e1h1", m)
	}
	if m := KingTakesRookMove("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"); m != "e8h8" {
		t.Errorf("KingTakesRookMove for Black: %s, want e8h8", m)
	}
	// A rook on e1 going to g1 is no castling.
	if m, noCastle := KingTakesRookMove("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"), "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"; m != OnlineMove(noCastle) {
		t.Errorf("KingTakesRookMove without castling: %s, want %s", m, OnlineMove(noCastle))
	}
	q := url.Values{"fen": {fen}}
	urls := map[OnlineService]string{
		OnlineTablebase: s.URL() + TablebasePath + "/standard?" + q.Encode(),
		OnlineCloudEval: s.URL() + "/api/cloud-eval?" + q.Encode(),
		OnlineExplorer:  s.URL() + ExplorerPath + "/masters?" + q.Encode(),
		OnlineChessDB:   s.URL() + ChessDBPath + "/cdb.php?" + url.Values{"board": {fen}, "action": {"queryall"}, "json": {"1"}}.Encode(),
	}
	for svc, u := range urls {
		s.SetOnlineFault(svc, OnlineKingTakesRook)
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body := string(b)
		answers := s.OnlineAnswers()
		if a := answers[len(answers)-1]; resp.StatusCode != 200 || a.Move != "e1h1" || !strings.Contains(body, `"e1h1`) || strings.Contains(body, `"e1g1`) {
			t.Errorf("%s: %d, recorded %q, body %s; want e1h1 and no e1g1", svc, resp.StatusCode, a.Move, body)
		}
	}
}

// The cloud evaluation's fake knows variant=chess960: a Chess960 position
// (X-FEN castling rights notnil/chess cannot read) gets
// OnlineVariantMove's move, castling as the king taking its rook, and the
// variant is recorded; another variant is a position it does not know.
func TestOnlineFakesCloudChess960(t *testing.T) {
	s := newTestServer(t)
	const fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
	best := OnlineVariantMove("chess960", fen)
	if best == "" || OnlineMove(fen) != "" {
		t.Fatalf("chess960 move %q, standard move %q: want one in Chess960 only", best, OnlineMove(fen))
	}
	if legal := onlineLegal("chess960", "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"); !slices.Contains(legal, "e1h1") || !slices.Contains(legal, "e1a1") || slices.Contains(legal, "e1g1") {
		t.Errorf("chess960 castling: %v, want e1h1 and e1a1 (king takes rook)", legal)
	}
	get := func(variant string) (int, string) {
		t.Helper()
		q := url.Values{"fen": {fen}, "multiPv": {"2"}}
		if variant != "" {
			q.Set("variant", variant)
		}
		resp, err := http.Get(s.URL() + "/api/cloud-eval?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := get("chess960"); status != 200 || !strings.Contains(body, `"moves":"`+best+`"`) {
		t.Errorf("chess960: %d %s, want %s", status, body, best)
	}
	a := s.OnlineAnswers()
	if len(a) != 1 || a[0].Variant != "chess960" || a[0].Move != best {
		t.Errorf("recorded %+v, want variant chess960 and move %s", a, best)
	}
	for _, v := range []string{"", "atomic"} {
		if status, body := get(v); status != 404 {
			t.Errorf("variant %q: %d %s, want 404", v, status, body)
		}
	}
}
