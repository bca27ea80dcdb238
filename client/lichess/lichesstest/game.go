package lichesstest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/notnil/chess"
)

const (
	white = 0
	black = 1
	none  = -1
)

var colorNames = [2]string{"white", "black"}

// unlimitedMillis is what Lichess reports as the clock of a game without
// one.
const unlimitedMillis = 2147483647

type gameSub struct {
	color int
	sub   *subscriber
}

type chatEntry struct {
	room, user, text string
}

type game struct {
	id       string
	fullID   [2]string
	players  [2]*account
	variant  string
	fen      string // initial position; "" for the standard start
	rated    bool
	speed    string
	hasClock bool
	initial  time.Duration
	inc      time.Duration
	days     int
	dayLen   time.Duration // one day of the days-per-move clock (WithCorrespondenceDay)
	// tournamentID is the arena of a game that PairArena started ("" for none).
	tournamentID string

	createdAt  time.Time
	cg         *chess.Game // nil for a variant the server does not check
	moves      []string
	status     string
	winner     int
	finishedAt time.Time
	ratingDiff *[2]int // a rated game that ended (not aborted): each player's rating change

	remaining    [2]time.Duration
	clockRunning bool
	lastMoveAt   time.Time // or the start of the game
	firstMove    time.Duration

	drawOffer [2]bool
	takeback  [2]bool
	gone      [2]bool
	claimAt   [2]time.Time // when the opponent of a gone player may claim

	streamSeen [2]bool        // the player has opened a game stream
	goneTimer  [2]*time.Timer // WithAutoGone

	chat     []chatEntry
	subs     []*gameSub
	watchers []*subscriber // public move streams
	timer    *time.Timer
	house    [2]*time.Timer // pending house-player moves
	dropAt   map[int]bool   // DropGameStreamsAfter: plies after whose state the streams are cut
}

var (
	errNotYourTurn  = errors.New("Not your turn, or game already over")
	errNotAbortable = errors.New("This game can no longer be aborted")
)

func (g *game) ongoing() bool { return g.status == "started" }

// correspondence: a game with days per move. Its clock runs from the start
// for the side to move, and each move gives the mover the full days per
// move again.
func (g *game) correspondence() bool { return g.days > 0 && !g.hasClock }

// ticking reports whether the side to move's clock runs now.
func (g *game) ticking() bool { return g.ongoing() && (g.clockRunning || g.correspondence()) }

// perMove is the time a correspondence move gets.
func (g *game) perMove() time.Duration { return time.Duration(g.days) * g.dayLen }

func (g *game) turn() int {
	if g.cg == nil { // unchecked variant: by ply parity
		if (g.firstTurn() == chess.White) == (len(g.moves)%2 == 0) {
			return white
		}
		return black
	}
	if g.cg.Position().Turn() == chess.White {
		return white
	}
	return black
}

// currentFEN is the position now; for a variant the server does not check,
// its initial position (the server does not follow it).
func (g *game) currentFEN() string {
	if g.cg != nil {
		return g.cg.FEN()
	}
	if g.fen != "" {
		return g.fen
	}
	return variantStartFEN[g.variant]
}

// abortable: Lichess lets a game be aborted until both players have moved.
func (g *game) abortable() bool { return g.ongoing() && len(g.moves) < 2 }

func (g *game) colorOf(a *account) int {
	switch a {
	case g.players[white]:
		return white
	case g.players[black]:
		return black
	}
	return none
}

func (s *Server) newGameLocked(c *challenge) (*game, error) {
	now := time.Now()
	g := &game{
		id: c.id, variant: c.variant, fen: c.fen, rated: c.params.Rated, speed: c.speed,
		initial: c.params.ClockLimit, inc: c.params.ClockIncrement, days: c.params.Days, dayLen: s.cfg.corrDay,
		hasClock:  c.params.ClockLimit > 0 || c.params.ClockIncrement > 0,
		createdAt: now, lastMoveAt: now, status: "started", winner: none, tournamentID: c.tournamentID,
	}
	if c.finalColor == "white" {
		g.players = [2]*account{c.challenger, c.dest}
	} else {
		g.players = [2]*account{c.dest, c.challenger}
	}
	for i := range g.fullID {
		g.fullID[i] = g.id + s.newIDLocked(4)
	}
	if checkedVariant(g.variant) {
		cg, err := newChessGame(g.fen)
		if err != nil {
			return nil, err
		}
		g.cg = cg
	}
	switch {
	case g.hasClock:
		g.remaining = [2]time.Duration{g.initial, g.initial}
	case g.days > 0:
		g.remaining = [2]time.Duration{g.perMove(), g.perMove()}
	default:
		g.remaining = [2]time.Duration{unlimitedMillis * time.Millisecond, unlimitedMillis * time.Millisecond}
	}
	g.firstMove = s.cfg.firstMoveTimeout
	if g.firstMove <= 0 {
		g.firstMove = firstMoveTimeoutFor(g.speed)
	}
	s.games[g.id] = g
	s.logLocked("game %s started: %s (white) vs %s (black)", g.id, g.players[white].username, g.players[black].username)
	s.gameOrder = append(s.gameOrder, g.id)
	for col := range 2 {
		s.pushEventLocked(g.players[col], jsonGameEvent{Type: "gameStart", Game: s.gameEventInfoLocked(g, col)})
	}
	s.scheduleGameTimerLocked(g)
	s.houseScheduleLocked(g)
	s.notifyLocked()
	return g, nil
}

func firstMoveTimeoutFor(speed string) time.Duration {
	switch speed {
	case "ultraBullet":
		return 15 * time.Second
	case "bullet":
		return 20 * time.Second
	case "blitz":
		return 25 * time.Second
	case "rapid":
		return 30 * time.Second
	}
	return 35 * time.Second
}

func newChessGame(fen string) (*chess.Game, error) {
	uci := chess.UseNotation(chess.UCINotation{})
	if fen == "" {
		return chess.NewGame(uci), nil
	}
	opt, err := chess.FEN(fen)
	if err != nil {
		return nil, fmt.Errorf("invalid FEN %q: %w", fen, err)
	}
	return chess.NewGame(opt, uci), nil
}

// clocksLocked returns the remaining time of both players at now.
func (g *game) clocks(now time.Time) [2]time.Duration {
	r := g.remaining
	if g.ticking() {
		t := g.turn()
		r[t] -= now.Sub(g.lastMoveAt)
		if r[t] < 0 {
			r[t] = 0
		}
	}
	return r
}

func (s *Server) gameStateLocked(g *game) jsonGameState {
	now := time.Now()
	c := g.clocks(now)
	st := jsonGameState{
		Type: "gameState", Moves: strings.Join(s.writtenMovesLocked(g), " "),
		Wtime: c[white].Milliseconds(), Btime: c[black].Milliseconds(),
		Winc: g.inc.Milliseconds(), Binc: g.inc.Milliseconds(),
		Status: g.status,
		Wdraw:  g.drawOffer[white], Bdraw: g.drawOffer[black],
		Wtakeback: g.takeback[white], Btakeback: g.takeback[black],
	}
	if g.winner != none {
		st.Winner = colorNames[g.winner]
	}
	if g.ongoing() && g.hasClock && !g.clockRunning {
		st.Expiration = &jsonExpiration{
			IdleMillis:   now.Sub(g.lastMoveAt).Milliseconds(),
			MillisToMove: g.firstMove.Milliseconds(),
		}
	}
	return st
}

func (s *Server) gamePlayerLocked(a *account) jsonGameEventPlayer {
	p := jsonGameEventPlayer{ID: a.id, Name: a.username, Rating: a.rating}
	if a.bot {
		t := "BOT"
		p.Title = &t
	}
	return p
}

func (s *Server) gameFullLocked(g *game) jsonGameFull {
	pk := perfKey(g.variant, g.speed)
	f := jsonGameFull{
		Type: "gameFull", ID: g.id, Variant: variantJSON(g.variant), Speed: g.speed,
		Perf: jsonPerfName{Name: perfName(pk)}, Rated: g.rated, CreatedAt: g.createdAt.UnixMilli(),
		White: s.gamePlayerLocked(g.players[white]), Black: s.gamePlayerLocked(g.players[black]),
		InitialFen: "startpos", State: s.gameStateLocked(g), TournamentID: g.tournamentID,
	}
	if g.fen != "" {
		f.InitialFen = g.fen
	}
	if g.hasClock {
		f.Clock = &jsonClock{Initial: g.initial.Milliseconds(), Increment: g.inc.Milliseconds()}
	}
	if g.days > 0 {
		f.DaysPerTurn = g.days
	}
	return f
}

var statusIDs = map[string]int{
	"created": 10, "started": 20, "aborted": 25, "mate": 30, "resign": 31, "stalemate": 32,
	"timeout": 33, "draw": 34, "outoftime": 35, "cheat": 36, "noStart": 37, "unknownFinish": 38,
	"insufficientMaterialClaim": 39, "variantEnd": 60,
}

func (s *Server) gameEventInfoLocked(g *game, col int) jsonGameEventInfo {
	opp := g.players[1-col]
	last := ""
	if n := len(g.moves); n > 0 {
		last = g.moves[n-1]
	}
	info := jsonGameEventInfo{
		FullID: g.fullID[col], GameID: g.id, Fen: g.currentFEN(), Color: colorNames[col], LastMove: last,
		Source: "friend", Status: jsonGameStatus{ID: statusIDs[g.status], Name: g.status},
		Variant: jsonVariant{Key: g.variant, Name: variantNames[g.variant][0]}, Speed: g.speed,
		Perf: perfKey(g.variant, g.speed), Rated: g.rated, HasMoved: g.hasMoved(col),
		Opponent: jsonGameEventOpponent{ID: opp.id, Username: opp.username, Rating: opp.rating},
		IsMyTurn: g.ongoing() && g.turn() == col, Rating: g.players[col].rating,
		Compat: compatOf(g.speed), ID: g.id, TournamentID: g.tournamentID,
	}
	if g.tournamentID != "" {
		info.Source = "arena"
	}
	if g.hasClock || g.days > 0 {
		secs := int(g.clocks(time.Now())[col] / time.Second)
		info.SecondsLeft = &secs
	}
	if g.winner != none {
		info.Winner = colorNames[g.winner]
	}
	if d := g.ratingDiff; d != nil {
		mine, theirs := d[col], d[1-col]
		info.RatingDiff, info.Opponent.RatingDiff = &mine, &theirs
	}
	return info
}

// hasMoved reports whether col has played a move in g.
func (g *game) hasMoved(col int) bool {
	first := white
	if g.firstTurn() == chess.Black {
		first = black
	}
	if col == first {
		return len(g.moves) >= 1
	}
	return len(g.moves) >= 2
}

func (g *game) firstTurn() chess.Color {
	if g.fen == "" {
		return chess.White
	}
	f := strings.Fields(g.fen)
	if len(f) > 1 && f[1] == "b" {
		return chess.Black
	}
	return chess.White
}

// broadcastLocked pushes v to the game's streams of the given colours
// (none: all).
func (s *Server) broadcastLocked(g *game, v any, only int) {
	line := s.marshalLine(v)
	for _, gs := range g.subs {
		if only == none || gs.color == only {
			gs.sub.push(line)
		}
	}
}

func (s *Server) pushStateLocked(g *game) {
	s.broadcastLocked(g, s.gameStateLocked(g), none)
	if ply := len(g.moves); g.dropAt[ply] {
		delete(g.dropAt, ply)
		s.dropGameStreamsLocked(g)
	}
	s.notifyLocked()
}

// writtenMovesLocked returns g's moves as the game streams write them:
// castling as the king taking its rook with WithCastlingAsKingTakesRook.
func (s *Server) writtenMovesLocked(g *game) []string {
	if !s.cfg.kingTakesRook || g.cg == nil {
		return g.moves
	}
	out := append([]string(nil), g.moves...)
	for i, m := range g.cg.Moves() {
		if i < len(out) && (m.HasTag(chess.KingSideCastle) || m.HasTag(chess.QueenSideCastle)) {
			rookFile := "h"
			if m.HasTag(chess.QueenSideCastle) {
				rookFile = "a"
			}
			from := m.S1().String()
			out[i] = from + rookFile + from[1:]
		}
	}
	return out
}
