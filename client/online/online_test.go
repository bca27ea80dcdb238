package online

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

const token = "lip_secretTOKEN123"

// canned serves body (JSON) for every request and records the requests'
// Authorization headers and queries.
type canned struct {
	mu     sync.Mutex
	body   string
	status int
	auth   []string
	query  []string
}

func serve(t *testing.T, c *canned) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.auth = append(c.auth, r.Header.Get("Authorization"))
		c.query = append(c.query, r.URL.Path+"?"+r.URL.RawQuery)
		body, status := c.body, c.status
		c.mu.Unlock()
		if status == 0 {
			status = 200
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func client(t *testing.T, base string) *lichess.Client {
	t.Helper()
	c, err := lichess.New(base, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPosition(t *testing.T) {
	p := Position{FEN: "8/8/8/4k3/8/8/4P3/4K2R b K - 0 1"}
	if p.Pieces() != 4 || !p.CanCastle() || p.WhiteToMove() {
		t.Errorf("%s: %d pieces, castle %v, white %v", p.FEN, p.Pieces(), p.CanCastle(), p.WhiteToMove())
	}
	tb := &Tablebase{MaxPieces: 5}
	if tb.Applies(p) {
		t.Error("the tablebase applies to a position with a castling right")
	}
	if !tb.Applies(Position{FEN: "8/8/8/4k3/8/8/4P3/4K2R w - - 0 1"}) || tb.Applies(Position{FEN: "8/8/2pp4/4k3/8/8/4P3/4K2R w - - 0 1"}) {
		t.Error("the tablebase's piece limit")
	}
}

// The tablebase plays a win first (mate, then zeroing, then the least
// DTZ), a draw rather than a loss, the slowest loss, and no move when
// nothing is known.
func TestTablebaseChoice(t *testing.T) {
	cases := []struct {
		name, moves, want string
	}{
		{"win beats draw", `{"uci":"a1a2","category":"draw","dtz":0},{"uci":"b1b2","category":"loss","dtz":-9}`, "b1b2"},
		{"mate first", `{"uci":"a1a2","category":"loss","dtz":-1,"zeroing":true},{"uci":"b1b2","category":"loss","dtz":-1,"checkmate":true}`, "b1b2"},
		{"zeroing", `{"uci":"a1a2","category":"loss","dtz":-3},{"uci":"b1b2","category":"loss","dtz":-20,"zeroing":true}`, "b1b2"},
		{"least dtz", `{"uci":"a1a2","category":"loss","dtz":-9,"dtm":-3},{"uci":"b1b2","category":"loss","dtz":-5,"dtm":-30}`, "b1b2"},
		{"dtm breaks a tie", `{"uci":"a1a2","category":"loss","dtz":-5,"dtm":-31},{"uci":"b1b2","category":"loss","dtz":-5,"dtm":-29}`, "b1b2"},
		{"a sure win beats a cursed one", `{"uci":"a1a2","category":"blessed-loss","dtz":-101},{"uci":"b1b2","category":"loss","dtz":-50}`, "b1b2"},
		{"draw beats cursed loss", `{"uci":"a1a2","category":"cursed-win","dtz":101},{"uci":"b1b2","category":"draw","dtz":0}`, "b1b2"},
		{"slowest loss", `{"uci":"a1a2","category":"win","dtz":3},{"uci":"b1b2","category":"win","dtz":11}`, "b1b2"},
		{"unknown", `{"uci":"a1a2","category":"unknown"}`, ""},
		{"none", ``, ""},
	}
	c := &canned{}
	base := serve(t, c)
	tb := &Tablebase{Client: client(t, base), BaseURL: base}
	for _, tc := range cases {
		c.mu.Lock()
		c.body = `{"category":"win","moves":[` + tc.moves + `]}`
		c.mu.Unlock()
		m, err := tb.Move(context.Background(), Position{FEN: "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"})
		if tc.want == "" {
			if !errors.Is(err, ErrNoMove) {
				t.Errorf("%s: %v %v, want ErrNoMove", tc.name, m, err)
			}
			continue
		}
		if err != nil || m.UCI != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.name, m, err, tc.want)
		}
	}
	for _, a := range c.auth {
		if a != "" {
			t.Errorf("tablebase request with Authorization %q", a)
		}
	}
	if !strings.HasPrefix(c.query[0], "/standard?fen=") {
		t.Errorf("tablebase request %s", c.query[0])
	}
}

// The tablebase's result for the mover comes with its move: the
// position's category, or else the best move's (the opponent's after it)
// turned round; maybe-results count as cursed or blessed, unknown as no
// result.
func TestTablebaseWDL(t *testing.T) {
	cases := []struct {
		name, body string
		wdl        int
		known      bool
	}{
		{"win", `{"category":"win","moves":[{"uci":"a1a2","category":"loss","dtz":-3}]}`, 2, true},
		{"draw", `{"category":"draw","moves":[{"uci":"a1a2","category":"draw","dtz":0}]}`, 0, true},
		{"loss", `{"category":"loss","moves":[{"uci":"a1a2","category":"win","dtz":5}]}`, -2, true},
		{"syzygy loss", `{"category":"syzygy-loss","moves":[{"uci":"a1a2","category":"syzygy-win","dtz":5}]}`, -2, true},
		{"blessed loss", `{"category":"blessed-loss","moves":[{"uci":"a1a2","category":"cursed-win","dtz":105}]}`, -1, true},
		{"maybe loss", `{"category":"maybe-loss","moves":[{"uci":"a1a2","category":"maybe-win","dtz":99}]}`, -1, true},
		{"maybe win", `{"category":"maybe-win","moves":[{"uci":"a1a2","category":"maybe-loss","dtz":-99}]}`, 1, true},
		{"position unknown, from the best move", `{"category":"unknown","moves":[{"uci":"a1a2","category":"blessed-loss","dtz":-101}]}`, 1, true},
		{"position missing, from the best move", `{"moves":[{"uci":"a1a2","category":"win","dtz":3}]}`, -2, true},
	}
	// A syzygy-win or syzygy-loss is exact only at a halfmove clock of
	// 0: else it may be spoilt (or saved) by the fifty-move rule, as a
	// maybe-result. The best move's is exact after a zeroing move.
	clocked := []struct {
		name, fen, body string
		wdl             int
	}{
		{"syzygy loss at clock 7", "8/8/8/4k3/8/8/4P3/4K3 w - - 7 40", `{"category":"syzygy-loss","moves":[{"uci":"a1a2","category":"syzygy-win","dtz":5}]}`, -1},
		{"syzygy win at clock 7", "8/8/8/4k3/8/8/4P3/4K3 w - - 7 40", `{"category":"syzygy-win","moves":[{"uci":"a1a2","category":"syzygy-loss","dtz":-5}]}`, 1},
		{"syzygy win at clock 0", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 40", `{"category":"syzygy-win","moves":[{"uci":"a1a2","category":"syzygy-loss","dtz":-5}]}`, 2},
		{"syzygy win without a clock", "8/8/8/4k3/8/8/4P3/4K3 w -", `{"category":"syzygy-win","moves":[{"uci":"a1a2","category":"syzygy-loss","dtz":-5}]}`, 1},
		{"best move's syzygy loss, zeroing", "8/8/8/4k3/8/8/4P3/4K3 w - - 7 40", `{"category":"unknown","moves":[{"uci":"e2e4","category":"syzygy-loss","dtz":-5,"zeroing":true}]}`, 2},
		{"best move's syzygy loss, not zeroing", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 40", `{"category":"unknown","moves":[{"uci":"e1d1","category":"syzygy-loss","dtz":-5}]}`, 1},
	}
	c := &canned{}
	base := serve(t, c)
	tb := &Tablebase{Client: client(t, base), BaseURL: base}
	for _, tc := range cases {
		c.mu.Lock()
		c.body = tc.body
		c.mu.Unlock()
		m, err := tb.Move(context.Background(), Position{FEN: "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"})
		if err != nil || m.HasWDL != tc.known || m.WDL != tc.wdl {
			t.Errorf("%s: %+v %v, want WDL %d (known %v)", tc.name, m, err, tc.wdl, tc.known)
		}
	}
	for _, tc := range clocked {
		c.mu.Lock()
		c.body = tc.body
		c.mu.Unlock()
		m, err := tb.Move(context.Background(), Position{FEN: tc.fen})
		if err != nil || !m.HasWDL || m.WDL != tc.wdl {
			t.Errorf("%s: %+v %v, want WDL %d", tc.name, m, err, tc.wdl)
		}
	}
	if _, ok := WDL("unknown", 0); ok {
		t.Error(`WDL("unknown") is known`)
	}
}

// The cloud's score is turned to the mover's side; a shallow evaluation,
// a 404 and an evaluation without variations are no move.
func TestCloudChoice(t *testing.T) {
	c := &canned{}
	base := serve(t, c)
	cl := &Cloud{Client: client(t, base), MultiPV: 2, MinDepth: 20}
	black := Position{FEN: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"}
	c.body = `{"depth":30,"knodes":5,"pvs":[{"moves":"e7e5 g1f3","cp":-20},{"moves":"c7c5","cp":40}]}`
	m, err := cl.Move(context.Background(), black)
	if err != nil || m.UCI != "e7e5" || m.ScoreCP != 20 || !m.HasScore || m.Depth != 30 {
		t.Errorf("cloud: %+v %v, want e7e5 at +20 for black", m, err)
	}
	if !strings.Contains(c.query[0], "multiPv=2") {
		t.Errorf("cloud request %s does not ask for 2 variations", c.query[0])
	}
	c.body = `{"depth":30,"knodes":5,"pvs":[{"moves":"d8h4","mate":-2},{"moves":"e7e5","cp":100}]}`
	if m, err := cl.Move(context.Background(), black); err != nil || m.UCI != "d8h4" || m.Mate != 2 {
		t.Errorf("cloud: %+v %v, want the mate d8h4", m, err)
	}
	c.body = `{"depth":19,"knodes":5,"pvs":[{"moves":"e7e5","cp":0}]}`
	if _, err := cl.Move(context.Background(), black); !errors.Is(err, ErrNoMove) {
		t.Errorf("shallow cloud evaluation: %v, want ErrNoMove", err)
	}
	c.body = `{"depth":40,"knodes":5,"pvs":[]}`
	if _, err := cl.Move(context.Background(), black); !errors.Is(err, ErrNoMove) {
		t.Errorf("cloud evaluation without variations: %v, want ErrNoMove", err)
	}
	c.body, c.status = `{"error":"No cloud evaluation available for that position"}`, 404
	if _, err := cl.Move(context.Background(), black); !errors.Is(err, ErrNoMove) {
		t.Errorf("cloud 404: %v, want ErrNoMove", err)
	}
}

// The explorer ranks by games or by score for the side to move, leaves
// out moves with too few games, and sends the token.
func TestExplorerChoice(t *testing.T) {
	c := &canned{body: `{"white":0,"draws":0,"black":0,"moves":[
		{"uci":"e7e5","white":50,"draws":30,"black":20},
		{"uci":"c7c5","white":10,"draws":10,"black":30},
		{"uci":"a7a6","white":0,"draws":0,"black":5}]}`}
	base := serve(t, c)
	black := Position{FEN: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Ply: 1}
	for _, tc := range []struct {
		sort     string
		minGames int
		want     string
	}{
		{SortGames, 1, "e7e5"},
		{SortScore, 10, "c7c5"},
		{SortScore, 1, "a7a6"},
	} {
		e := &Explorer{Client: client(t, base), BaseURL: base, Database: lichess.ExplorerMasters, Sort: tc.sort, MinGames: tc.minGames}
		m, err := e.Move(context.Background(), black)
		if err != nil || m.UCI != tc.want {
			t.Errorf("explorer by %s, min %d games: %+v %v, want %s", tc.sort, tc.minGames, m, err, tc.want)
		}
	}
	e := &Explorer{Client: client(t, base), BaseURL: base, Database: lichess.ExplorerMasters, MinGames: 1000}
	if _, err := e.Move(context.Background(), black); !errors.Is(err, ErrNoMove) {
		t.Errorf("explorer with too few games: %v, want ErrNoMove", err)
	}
	if (&Explorer{MaxPly: 1}).Applies(black) || !(&Explorer{MaxPly: 2}).Applies(black) {
		t.Error("explorer's max ply")
	}
	for _, a := range c.auth {
		if a != "Bearer "+token {
			t.Errorf("explorer request with Authorization %q, want the bot's token", a)
		}
	}
}

// chessdb's queryall keeps the moves of the rank and score asked; its
// answers never carry a token; a 429 stops the asking.
func TestChessDBChoice(t *testing.T) {
	c := &canned{body: `{"status":"ok","moves":[
		{"uci":"e2e4","score":40,"rank":2},{"uci":"d2d4","score":35,"rank":1},{"uci":"a2a3","score":-80,"rank":0}]}`}
	base := serve(t, c)
	start := Position{FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}
	db := &ChessDB{BaseURL: base, Action: ChessDBAll, MinRank: 2, MinScore: -50}
	for range 10 {
		if m, err := db.Move(context.Background(), start); err != nil || m.UCI != "e2e4" {
			t.Fatalf("chessdb rank 2: %+v %v, want e2e4", m, err)
		}
	}
	db = &ChessDB{BaseURL: base, Action: ChessDBAll, MinRank: 0, MinScore: 36}
	if m, err := db.Move(context.Background(), start); err != nil || m.UCI != "e2e4" {
		t.Errorf("chessdb score 36: %+v %v, want e2e4", m, err)
	}
	db = &ChessDB{BaseURL: base, Action: ChessDBAll, MinRank: 0, MinScore: 50}
	if _, err := db.Move(context.Background(), start); !errors.Is(err, ErrNoMove) {
		t.Errorf("chessdb with no move good enough: %v, want ErrNoMove", err)
	}
	c.body = `{"status":"ok","move":"g1f3"}`
	db = &ChessDB{BaseURL: base, Action: ChessDBBest}
	if m, err := db.Move(context.Background(), start); err != nil || m.UCI != "g1f3" {
		t.Errorf("chessdb querybest: %+v %v", m, err)
	}
	c.body = `{"status":"unknown"}`
	if _, err := db.Move(context.Background(), start); !errors.Is(err, ErrNoMove) {
		t.Errorf("chessdb unknown position: %v, want ErrNoMove", err)
	}
	if !strings.Contains(c.query[len(c.query)-1], "action=querybest") || !strings.Contains(c.query[len(c.query)-1], "json=1") {
		t.Errorf("chessdb request %s", c.query[len(c.query)-1])
	}
	c.body, c.status = `{}`, 429
	if _, err := db.Move(context.Background(), start); err == nil {
		t.Error("chessdb 429: no error")
	}
	n := len(c.query)
	if _, err := db.Move(context.Background(), start); !errors.Is(err, ErrCoolingDown) || len(c.query) != n {
		t.Errorf("chessdb after a 429: %v, %d requests more; want ErrCoolingDown and none", err, len(c.query)-n)
	}
	for _, a := range c.auth {
		if a != "" {
			t.Errorf("chessdb request with Authorization %q", a)
		}
	}
}

// In a Chess960 game the cloud is asked with variant=chess960 (and not
// otherwise); the tablebase and the cloud serve Chess960, the explorer
// and chessdb do not.
func TestChess960Sources(t *testing.T) {
	c := &canned{body: `{"depth":30,"knodes":5,"pvs":[{"moves":"g1h1","cp":20}]}`}
	base := serve(t, c)
	cl := &Cloud{Client: client(t, base), MinDepth: 20}
	const fen960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
	if m, err := cl.Move(context.Background(), Position{FEN: fen960, Chess960: true}); err != nil || m.UCI != "g1h1" {
		t.Fatalf("cloud in Chess960: %+v %v", m, err)
	}
	if _, err := cl.Move(context.Background(), Position{FEN: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}); err != nil {
		t.Fatal(err)
	}
	if len(c.query) != 2 || !strings.Contains(c.query[0], "variant=chess960") || strings.Contains(c.query[1], "variant") {
		t.Errorf("cloud requests %q, want variant=chess960 in the first only", c.query)
	}
	for _, tc := range []struct {
		s    Source
		want bool
	}{{&Tablebase{}, true}, {&Cloud{}, true}, {&Explorer{}, false}, {&ChessDB{}, false}} {
		c, ok := tc.s.(Chess960Source)
		if got := ok && c.ServesChess960(); got != tc.want {
			t.Errorf("%s serves Chess960: %v, want %v", tc.s.Name(), got, tc.want)
		}
	}
}
