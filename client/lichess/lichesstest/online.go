package lichesstest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/notnil/chess"

	eboard "github.com/ponderosa-chess/ponderosa/engine/board"
)

// Fakes of the online knowledge sources a bot may ask for a move: the
// Lichess tablebase, cloud evaluation and opening explorer, and chessdb.
// They live on the same server as the API, each under its own path, so a
// client points its base URL for each at the server's URL plus that path
// (the cloud evaluation is a Lichess API endpoint, at its own path):
//
//	tablebase   URL()+TablebasePath  GET /tablebase/standard?fen=
//	cloud eval  URL()                GET /api/cloud-eval?fen=&multiPv=&variant=
//	explorer    URL()+ExplorerPath   GET /explorer/masters?fen=, /explorer/lichess?fen=
//	chessdb     URL()+ChessDBPath    GET /chessdb/cdb.php?action=querybest|queryall&board=&json=1
//
// A good answer (OnlineGood, the default) recommends OnlineMove(fen), a
// legal move of the position chosen by a fixed rule, in the shape of each
// service; SetOnlineFault makes a service misbehave instead. The cloud
// evaluation also knows variant=chess960 (OnlineVariantMove: castling as
// the king taking its rook, as Lichess writes it in Chess960) and answers
// any other variant but standard (and fromPosition) as a position it does
// not know.
const (
	TablebasePath = "/tablebase"
	ExplorerPath  = "/explorer"
	ChessDBPath   = "/chessdb"
)

// OnlineService names one of the fake knowledge services.
type OnlineService string

// The fake knowledge services.
const (
	OnlineTablebase OnlineService = "tablebase"
	OnlineCloudEval OnlineService = "cloud-eval"
	OnlineExplorer  OnlineService = "explorer"
	OnlineChessDB   OnlineService = "chessdb"
)

// OnlineFault is how a fake knowledge service answers.
type OnlineFault int

const (
	// OnlineGood answers with OnlineMove(fen) as the best move.
	OnlineGood OnlineFault = iota
	// OnlineSlow waits (SetOnlineSlowness, 30 s by default, or until the
	// client gives up) before a good answer.
	OnlineSlow
	// Online429 answers 429 Too Many Requests, without Retry-After.
	Online429
	// Online500 answers 500 Internal Server Error.
	Online500
	// OnlineGarbage answers 200 with a body that is not JSON.
	OnlineGarbage
	// OnlineIllegal answers well-formed JSON recommending a move that is
	// not legal in the position.
	OnlineIllegal
	// OnlineNotFound answers as the service does for a position it does
	// not know: the tablebase with category "unknown", the cloud with 404,
	// the explorer with no moves, chessdb with status "unknown".
	OnlineNotFound
	// OnlineKingTakesRook answers as OnlineGood, but writes castling as
	// the king taking its rook (e1h1, e1a1, e8h8, e8a8), as the cloud
	// evaluation and the explorer do, and recommends castling when it is
	// legal (kingside first): KingTakesRookMove(fen).
	OnlineKingTakesRook
)

func (f OnlineFault) String() string {
	switch f {
	case OnlineGood:
		return "good"
	case OnlineSlow:
		return "slow"
	case Online429:
		return "429"
	case Online500:
		return "500"
	case OnlineGarbage:
		return "garbage"
	case OnlineIllegal:
		return "illegal"
	case OnlineNotFound:
		return "not found"
	case OnlineKingTakesRook:
		return "king takes rook"
	}
	return fmt.Sprintf("fault(%d)", int(f))
}

// OnlineAnswer records one request to a fake knowledge service.
type OnlineAnswer struct {
	Service OnlineService
	FEN     string
	Variant string // the variant parameter ("" when none was sent)
	Fault   OnlineFault
	Move    string // the move recommended ("" when none)
	// Authorized: the request carried an Authorization header.
	Authorized bool
}

// onlineState is the fakes' configuration and history; guarded by Server.mu.
type onlineState struct {
	faults   map[OnlineService]OnlineFault
	slowness time.Duration
	answers  []OnlineAnswer
}

// SetOnlineFault makes service answer with f from now on (OnlineGood
// restores good answers).
func (s *Server) SetOnlineFault(service OnlineService, f OnlineFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.online.faults == nil {
		s.online.faults = map[OnlineService]OnlineFault{}
	}
	s.online.faults[service] = f
}

// SetOnlineSlowness sets how long OnlineSlow waits before answering.
func (s *Server) SetOnlineSlowness(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.online.slowness = d
}

// OnlineAnswers returns the requests the fake knowledge services got, in
// order, with what they answered.
func (s *Server) OnlineAnswers() []OnlineAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.online.answers)
}

// OnlineMove is the move the fakes recommend in the position fen (X-FEN,
// underscores allowed for spaces): the last of its legal moves in UCI
// order, "" when it has none or fen cannot be read. The rule is fixed so
// that a test knows the move, and picks a move a player taking the first
// legal move would not.
func OnlineMove(fen string) string { return OnlineVariantMove("", fen) }

// OnlineVariantMove is OnlineMove in a variant of the cloud evaluation:
// in "chess960", the last legal move in UCI order with castling written
// as the king taking its rook; "", "standard" and "fromPosition" are
// standard chess; "" for any other variant.
func OnlineVariantMove(variant, fen string) string {
	legal := onlineLegal(variant, fen)
	if len(legal) == 0 {
		return ""
	}
	return legal[len(legal)-1]
}

// KingTakesRookMove is the move the fakes recommend in fen under
// OnlineKingTakesRook: castling written as the king taking its rook
// (kingside first) when castling is legal, OnlineMove(fen) otherwise.
func KingTakesRookMove(fen string) string {
	c := castles(fen)
	for _, m := range []string{"e1g1", "e8g8", "e1c1", "e8c8"} {
		if k, ok := c[m]; ok {
			return k
		}
	}
	return OnlineMove(fen)
}

// castles maps the legal castling moves of fen, as notnil/chess writes
// them (e1g1), to the king taking its rook (e1h1).
func castles(fen string) map[string]string {
	out := map[string]string{}
	opt, err := chess.FEN(strings.ReplaceAll(fen, "_", " "))
	if err != nil {
		return out
	}
	pos := chess.NewGame(opt).Position()
	for _, m := range pos.ValidMoves() {
		if m.HasTag(chess.KingSideCastle) || m.HasTag(chess.QueenSideCastle) {
			uci := chess.UCINotation{}.Encode(pos, m)
			out[uci] = uci[:2] + map[byte]string{'g': "h", 'c': "a"}[uci[2]] + uci[3:4]
		}
	}
	return out
}

// kingTakesRook writes the castling moves among legal, the legal moves of
// fen, as the king taking its rook.
func kingTakesRook(fen string, legal []string) []string {
	c := castles(fen)
	out := make([]string, len(legal))
	for i, m := range legal {
		if k, ok := c[m]; ok {
			m = k
		}
		out[i] = m
	}
	return out
}

// onlineLegal lists the legal moves of fen in variant in UCI, sorted (see
// OnlineVariantMove).
func onlineLegal(variant, fen string) []string {
	fen = strings.ReplaceAll(fen, "_", " ")
	switch variant {
	case "", "standard", "fromPosition":
	case "chess960":
		// notnil/chess knows no Chess960 castling: the project's board does.
		pos, err := eboard.ParseFEN(fen)
		if err != nil {
			return nil
		}
		pos.SetChess960(true)
		var ml eboard.MoveList
		pos.GenerateLegal(&ml)
		var out []string
		for _, m := range ml.Slice() {
			out = append(out, pos.MoveToUCI(m))
		}
		slices.Sort(out)
		return out
	default:
		return nil
	}
	opt, err := chess.FEN(fen)
	if err != nil {
		return nil
	}
	pos := chess.NewGame(opt).Position()
	var out []string
	for _, m := range pos.ValidMoves() {
		out = append(out, chess.UCINotation{}.Encode(pos, m))
	}
	slices.Sort(out)
	return out
}

// illegalMove returns a move of the shape of UCI that is not legal in the
// position whose legal moves are legal.
func illegalMove(legal []string) string {
	for from := 0; from < 64; from++ {
		for to := 63; to >= 0; to-- {
			if from == to {
				continue
			}
			m := square(from) + square(to)
			if !slices.Contains(legal, m) {
				return m
			}
		}
	}
	return "a1a2"
}

func square(i int) string { return string(rune('a'+i%8)) + string(rune('1'+i/8)) }

// handleOnline serves one fake knowledge service.
func (s *Server) handleOnline(service OnlineService) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		fen := q.Get("fen")
		if service == OnlineChessDB {
			fen = q.Get("board")
		}
		fen = strings.ReplaceAll(fen, "_", " ")
		variant := q.Get("variant")
		legal := onlineLegal(variant, fen)
		s.mu.Lock()
		fault, slow := s.online.faults[service], s.online.slowness
		if slow <= 0 {
			slow = 30 * time.Second
		}
		move := ""
		switch fault {
		case OnlineGood, OnlineSlow:
			if len(legal) > 0 {
				move = legal[len(legal)-1]
			}
		case OnlineIllegal:
			move = illegalMove(legal)
		case OnlineKingTakesRook:
			move = KingTakesRookMove(fen)
			legal = kingTakesRook(fen, legal)
		}
		s.online.answers = append(s.online.answers, OnlineAnswer{Service: service, FEN: fen, Variant: variant, Fault: fault, Move: move,
			Authorized: r.Header.Get("Authorization") != ""})
		s.logLocked("%s: %s → %s %s", service, fen, fault, move)
		s.mu.Unlock()
		if len(legal) == 0 && fault != OnlineIllegal && fault != Online429 && fault != Online500 && fault != OnlineGarbage {
			fault = OnlineNotFound
		}
		switch fault {
		case OnlineSlow:
			t := time.NewTimer(slow)
			defer t.Stop()
			select {
			case <-r.Context().Done():
				return
			case <-t.C:
			}
		case Online429:
			writeError(w, http.StatusTooManyRequests, "Too many requests. Try again later.")
			return
		case Online500:
			writeError(w, http.StatusInternalServerError, "Internal server error")
			return
		case OnlineGarbage:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"moves": [{"uci": "e2e4", <html>oops`))
			return
		}
		found := fault != OnlineNotFound
		switch service {
		case OnlineTablebase:
			writeJSON(w, http.StatusOK, fakeTablebase(legal, move, found))
		case OnlineCloudEval:
			if !found {
				writeError(w, http.StatusNotFound, "No cloud evaluation available for that position")
				return
			}
			n := 1
			fmt.Sscan(q.Get("multiPv"), &n)
			writeJSON(w, http.StatusOK, fakeCloudEval(fen, legal, move, n))
		case OnlineExplorer:
			writeJSON(w, http.StatusOK, fakeExplorer(legal, move, found, strings.Fields(fen)[1] == "w"))
		case OnlineChessDB:
			writeJSON(w, http.StatusOK, fakeChessDB(q.Get("action"), legal, move, found))
		}
	}
}

func intp(n int) *int { return &n }

func fakeTablebase(legal []string, best string, found bool) map[string]any {
	moves := []map[string]any{}
	cat := "win"
	if !found {
		cat = "unknown"
	}
	if found {
		moves = append(moves, map[string]any{"uci": best, "san": best, "category": "loss", "dtz": intp(-3), "dtm": intp(-5), "zeroing": false, "checkmate": false, "stalemate": false})
	}
	for _, m := range legal {
		if m == best && found {
			continue
		}
		c, dtz := "draw", intp(0)
		if !found {
			c, dtz = "unknown", nil
		}
		moves = append(moves, map[string]any{"uci": m, "san": m, "category": c, "dtz": dtz, "dtm": nil, "zeroing": false, "checkmate": false, "stalemate": false})
	}
	out := map[string]any{"category": cat, "dtz": intp(3), "dtm": intp(5), "checkmate": false, "stalemate": false, "moves": moves}
	if !found {
		out["dtz"], out["dtm"] = nil, nil
	}
	return out
}

// fakeCloudEval answers n variations: best (+0.30 for the side to move),
// then other moves well below it.
func fakeCloudEval(fen string, legal []string, best string, n int) map[string]any {
	sign := 1
	if f := strings.Fields(fen); len(f) > 1 && f[1] == "b" {
		sign = -1
	}
	pvs := []map[string]any{{"moves": best, "cp": 30 * sign}}
	for _, m := range legal {
		if len(pvs) >= max(n, 1) {
			break
		}
		if m != best {
			pvs = append(pvs, map[string]any{"moves": m, "cp": -200 * sign})
		}
	}
	return map[string]any{"fen": fen, "knodes": 12345, "depth": 40, "pvs": pvs}
}

// fakeExplorer answers best with 100 games scoring 75% for the side to
// move, and two other moves with 5 games scoring 40%.
func fakeExplorer(legal []string, best string, found, whiteToMove bool) map[string]any {
	moves := []map[string]any{}
	res := func(win, draw, loss int) (white, black int) {
		if whiteToMove {
			return win, loss
		}
		return loss, win
	}
	if found {
		w, b := res(60, 30, 10)
		moves = append(moves, map[string]any{"uci": best, "san": best, "averageRating": 2500, "white": w, "draws": 30, "black": b})
		for _, m := range legal {
			if len(moves) >= 3 {
				break
			}
			if m != best {
				w, b := res(1, 2, 2)
				moves = append(moves, map[string]any{"uci": m, "san": m, "averageRating": 2400, "white": w, "draws": 2, "black": b})
			}
		}
	}
	total := 0
	for _, m := range moves {
		total += m["white"].(int) + m["draws"].(int) + m["black"].(int)
	}
	return map[string]any{"white": total / 2, "draws": total / 4, "black": total - total/2 - total/4, "moves": moves, "topGames": []any{}, "opening": nil}
}

// fakeChessDB answers querybest with best, and queryall with best (rank 2,
// score +50 for the side to move) and the other moves (rank 0, -100).
func fakeChessDB(action string, legal []string, best string, found bool) map[string]any {
	if !found {
		return map[string]any{"status": "unknown"}
	}
	switch action {
	case "querybest":
		return map[string]any{"status": "ok", "move": best}
	case "queryall":
		moves := []map[string]any{{"uci": best, "san": best, "score": 50, "rank": 2, "note": "! (00-00)", "winrate": "55.00"}}
		for _, m := range legal {
			if m != best {
				moves = append(moves, map[string]any{"uci": m, "san": m, "score": -100, "rank": 0, "note": "? (00-00)", "winrate": "40.00"})
			}
		}
		return map[string]any{"status": "ok", "moves": moves}
	}
	return map[string]any{"status": "invalid action"}
}
