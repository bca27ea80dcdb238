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

	createdAt  time.Time
	cg         *chess.Game
	moves      []string
	status     string
	winner     int
	finishedAt time.Time

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
}

var (
	errNotYourTurn  = errors.New("Not your turn, or game already over")
	errNotAbortable = errors.New("This game can no longer be aborted")
)

func (g *game) ongoing() bool { return g.status == "started" }

func (g *game) turn() int {
	if g.cg.Position().Turn() == chess.White {
		return white
	}
	return black
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
		initial: c.params.ClockLimit, inc: c.params.ClockIncrement, days: c.params.Days,
		hasClock:  c.params.ClockLimit > 0 || c.params.ClockIncrement > 0,
		createdAt: now, lastMoveAt: now, status: "started", winner: none,
	}
	if c.finalColor == "white" {
		g.players = [2]*account{c.challenger, c.dest}
	} else {
		g.players = [2]*account{c.dest, c.challenger}
	}
	for i := range g.fullID {
		g.fullID[i] = g.id + s.newIDLocked(4)
	}
	cg, err := newChessGame(g.fen)
	if err != nil {
		return nil, err
	}
	g.cg = cg
	switch {
	case g.hasClock:
		g.remaining = [2]time.Duration{g.initial, g.initial}
	case g.days > 0:
		d := time.Duration(g.days) * 24 * time.Hour
		g.remaining = [2]time.Duration{d, d}
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
	if g.ongoing() && g.clockRunning {
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
		Type: "gameState", Moves: strings.Join(g.moves, " "),
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
		InitialFen: "startpos", State: s.gameStateLocked(g),
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
		FullID: g.fullID[col], GameID: g.id, Fen: g.cg.FEN(), Color: colorNames[col], LastMove: last,
		Source: "friend", Status: jsonGameStatus{ID: statusIDs[g.status], Name: g.status},
		Variant: jsonVariant{Key: g.variant, Name: variantNames[g.variant][0]}, Speed: g.speed,
		Perf: perfKey(g.variant, g.speed), Rated: g.rated, HasMoved: g.hasMoved(col),
		Opponent: jsonGameEventOpponent{ID: opp.id, Username: opp.username, Rating: opp.rating},
		IsMyTurn: g.ongoing() && g.turn() == col, Rating: g.players[col].rating,
		Compat: compatOf(g.speed), ID: g.id,
	}
	if g.hasClock || g.days > 0 {
		secs := int(g.clocks(time.Now())[col] / time.Second)
		info.SecondsLeft = &secs
	}
	if g.winner != none {
		info.Winner = colorNames[g.winner]
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
	s.notifyLocked()
}

// normalizeCastling turns king-takes-rook castling (e1h1) into the king's
// two-square move (e1g1) that notnil/chess understands.
func normalizeCastling(pos *chess.Position, uci string) string {
	if len(uci) != 4 {
		return uci
	}
	from, to := uci[:2], uci[2:]
	b := pos.Board()
	king := map[string]chess.Piece{"e1": chess.WhiteKing, "e8": chess.BlackKing}[from]
	if king == chess.NoPiece || b.Piece(squareOf(from)) != king {
		return uci
	}
	rook := chess.WhiteRook
	if king == chess.BlackKing {
		rook = chess.BlackRook
	}
	rank := from[1:]
	switch to {
	case "h" + rank:
		if b.Piece(squareOf(to)) == rook {
			return from + "g" + rank
		}
	case "a" + rank:
		if b.Piece(squareOf(to)) == rook {
			return from + "c" + rank
		}
	}
	return uci
}

func squareOf(name string) chess.Square {
	if len(name) != 2 || name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8' {
		return chess.NoSquare
	}
	return chess.Square(int(name[1]-'1')*8 + int(name[0]-'a'))
}

// moveError is a refused move (400).
type moveError struct{ msg string }

func (e *moveError) Error() string { return e.msg }

// playMoveLocked plays uci for col in g. offeringDraw is nil when the
// client did not say.
func (s *Server) playMoveLocked(g *game, col int, uci string, offeringDraw *bool) error {
	if !g.ongoing() || g.turn() != col {
		s.stats.IllegalMoves++
		return &moveError{errNotYourTurn.Error()}
	}
	now := time.Now()
	if g.clockRunning && now.Sub(g.lastMoveAt) >= g.remaining[col] {
		s.flagLocked(g, col)
		s.stats.IllegalMoves++
		return &moveError{errNotYourTurn.Error()}
	}
	pos := g.cg.Position()
	norm := normalizeCastling(pos, strings.ToLower(uci))
	m, err := chess.UCINotation{}.Decode(pos, norm)
	if err != nil || squareOf(norm[:2]) == chess.NoSquare || squareOf(norm[2:4]) == chess.NoSquare {
		s.stats.IllegalMoves++
		return &moveError{"Invalid UCI: " + uci}
	}
	var legal *chess.Move
	for _, v := range pos.ValidMoves() {
		if v.S1() == m.S1() && v.S2() == m.S2() && v.Promo() == m.Promo() {
			legal = v
			break
		}
	}
	if legal == nil {
		s.stats.IllegalMoves++
		if pos.Board().Piece(m.S1()) == chess.NoPiece {
			return &moveError{fmt.Sprintf("No piece on %s", m.S1())}
		}
		return &moveError{fmt.Sprintf("Piece on %s cannot move to %s", m.S1(), m.S2())}
	}
	if err := g.cg.Move(legal); err != nil {
		s.stats.IllegalMoves++
		return &moveError{err.Error()}
	}
	s.stats.MovesPlayed++
	s.logLocked("game %s: %s plays %s", g.id, g.players[col].username, uci)
	g.moves = append(g.moves, legal.S1().String()+legal.S2().String()+legal.Promo().String())
	if g.clockRunning {
		g.remaining[col] -= now.Sub(g.lastMoveAt)
		g.remaining[col] += g.inc
	} else if g.hasClock && len(g.moves) >= 2 {
		g.clockRunning = true // both players have moved: clocks start
	}
	g.lastMoveAt = now
	s.watchPositionLocked(g)
	opp := 1 - col
	oppOffered := g.drawOffer[opp]
	g.drawOffer[opp] = false // a move declines a pending offer
	g.takeback = [2]bool{}
	if offeringDraw != nil {
		g.drawOffer[col] = *offeringDraw && !g.abortable()
	}
	if s.checkEndLocked(g) {
		return nil
	}
	if offeringDraw != nil && *offeringDraw && oppOffered {
		s.endGameLocked(g, "draw", none)
		return nil
	}
	s.pushStateLocked(g)
	s.scheduleGameTimerLocked(g)
	s.houseScheduleLocked(g)
	if offeringDraw != nil && *offeringDraw {
		s.houseOnOfferLocked(g)
	}
	return nil
}

// checkEndLocked ends g if the position ends it (mate, stalemate,
// insufficient material, threefold repetition, fifty moves).
func (s *Server) checkEndLocked(g *game) bool {
	mover := 1 - g.turn()
	switch g.cg.Method() {
	case chess.Checkmate:
		s.endGameLocked(g, "mate", mover)
		return true
	case chess.Stalemate:
		s.endGameLocked(g, "stalemate", none)
		return true
	case chess.InsufficientMaterial, chess.FivefoldRepetition, chess.SeventyFiveMoveRule:
		s.endGameLocked(g, "draw", none)
		return true
	}
	for _, d := range g.cg.EligibleDraws() {
		if d == chess.ThreefoldRepetition || d == chess.FiftyMoveRule {
			s.endGameLocked(g, "draw", none)
			return true
		}
	}
	return false
}

// flagLocked ends g on time for col; a draw if the opponent cannot mate.
func (s *Server) flagLocked(g *game, col int) {
	g.remaining[col] = 0
	g.lastMoveAt = time.Now()
	g.clockRunning = false
	winner := 1 - col
	if !canMate(g.cg.Position().Board(), winner) {
		winner = none
	}
	s.endGameLocked(g, "outoftime", winner)
}

// canMate is false when col has a bare king or king and one minor piece.
func canMate(b *chess.Board, col int) bool {
	c := chess.White
	if col == black {
		c = chess.Black
	}
	minors := 0
	for _, p := range b.SquareMap() {
		if p.Color() != c || p.Type() == chess.King {
			continue
		}
		if p.Type() != chess.Knight && p.Type() != chess.Bishop {
			return true
		}
		minors++
	}
	return minors > 1
}

// endGameLocked finishes g with status and winner (none for no winner).
func (s *Server) endGameLocked(g *game, status string, winner int) {
	if !g.ongoing() {
		return
	}
	if g.clockRunning {
		t := g.turn()
		g.remaining[t] -= time.Since(g.lastMoveAt)
		if g.remaining[t] < 0 {
			g.remaining[t] = 0
		}
		g.clockRunning = false
	}
	g.status, g.winner, g.finishedAt = status, winner, time.Now()
	if winner != none {
		s.logLocked("game %s over: %s, %s (%s) wins after %d plies", g.id, status, colorNames[winner], g.players[winner].username, len(g.moves))
	} else {
		s.logLocked("game %s over: %s, no winner, after %d plies", g.id, status, len(g.moves))
	}
	g.drawOffer, g.takeback = [2]bool{}, [2]bool{}
	s.stopTimerLocked(g.timer)
	g.timer = nil
	for i, t := range g.house {
		s.stopTimerLocked(t)
		g.house[i] = nil
	}
	for i, t := range g.goneTimer {
		s.stopTimerLocked(t)
		g.goneTimer[i] = nil
	}
	if status != "aborted" {
		for col, a := range g.players {
			a.played++
			switch winner {
			case none:
				a.draws++
			case col:
				a.wins++
			default:
				a.losses++
			}
		}
	}
	s.broadcastLocked(g, s.gameStateLocked(g), none)
	for _, gs := range g.subs {
		gs.sub.finish()
	}
	g.subs = nil
	s.watchEndLocked(g)
	for col := range 2 {
		s.pushEventLocked(g.players[col], jsonGameEvent{Type: "gameFinish", Game: s.gameEventInfoLocked(g, col)})
	}
	s.notifyLocked()
}

// scheduleGameTimerLocked arms the one timer a game needs: the first-move
// expiration before the clocks run, the flag of the side to move after.
func (s *Server) scheduleGameTimerLocked(g *game) {
	s.stopTimerLocked(g.timer)
	g.timer = nil
	if !g.ongoing() || !g.hasClock {
		return
	}
	var due time.Duration
	if g.clockRunning {
		due = g.remaining[g.turn()] - time.Since(g.lastMoveAt)
	} else {
		due = g.firstMove - time.Since(g.lastMoveAt)
	}
	if due < 0 {
		due = 0
	}
	id, ply := g.id, len(g.moves)
	g.timer = s.afterFuncLocked(due, func() { s.onGameTimer(id, ply) })
}

func (s *Server) onGameTimer(id string, ply int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.games[id]
	if g == nil || !g.ongoing() || len(g.moves) != ply {
		return
	}
	g.timer = nil
	since := time.Since(g.lastMoveAt)
	switch {
	case g.clockRunning && since >= g.remaining[g.turn()]:
		s.flagLocked(g, g.turn())
	case !g.clockRunning && since >= g.firstMove:
		// A player did not make their first move in time: Lichess
		// aborts casual games (status aborted, no winner).
		s.endGameLocked(g, "aborted", none)
	default:
		s.scheduleGameTimerLocked(g)
	}
}

// takebackLocked handles takeback/{yes|no} from col.
func (s *Server) takebackLocked(g *game, col int, yes bool) error {
	if !g.ongoing() {
		return errors.New("This game is over")
	}
	opp := 1 - col
	if !yes {
		if g.takeback[opp] {
			g.takeback[opp] = false
			s.pushStateLocked(g)
		}
		return nil
	}
	if !g.takeback[opp] {
		if !g.hasMoved(col) {
			return errors.New("You have no move to take back")
		}
		if !g.takeback[col] {
			g.takeback[col] = true
			s.pushStateLocked(g)
			s.houseOnOfferLocked(g)
		}
		return nil
	}
	// Accept opp's proposal: undo opp's last move, and the moves after it.
	n := 1
	if g.turn() == opp {
		n = 2
	}
	if n > len(g.moves) {
		n = len(g.moves)
	}
	moves := g.moves[:len(g.moves)-n]
	cg, err := newChessGame(g.fen)
	if err != nil {
		return err
	}
	for _, m := range moves {
		if err := cg.MoveStr(m); err != nil {
			return fmt.Errorf("replay %s: %w", m, err)
		}
	}
	if g.clockRunning {
		t := g.turn()
		g.remaining[t] -= time.Since(g.lastMoveAt)
	}
	g.cg, g.moves = cg, append([]string(nil), moves...)
	g.lastMoveAt = time.Now()
	if len(g.moves) < 2 {
		g.clockRunning = false
	}
	g.takeback = [2]bool{}
	g.drawOffer = [2]bool{}
	s.watchPositionLocked(g)
	s.pushStateLocked(g)
	s.scheduleGameTimerLocked(g)
	s.houseScheduleLocked(g)
	return nil
}

// drawLocked handles draw/{yes|no} from col.
func (s *Server) drawLocked(g *game, col int, yes bool) error {
	if !g.ongoing() {
		return errors.New("This game is over")
	}
	opp := 1 - col
	if yes && g.abortable() {
		return nil // as Lichess: no draw offers before both players moved (silently ignored)
	}
	switch {
	case yes && g.drawOffer[opp]:
		s.endGameLocked(g, "draw", none)
	case yes && !g.drawOffer[col]:
		g.drawOffer[col] = true
		s.pushStateLocked(g)
		s.houseOnOfferLocked(g)
	case !yes && g.drawOffer[opp]:
		g.drawOffer[opp] = false
		s.pushStateLocked(g)
	}
	return nil
}

func (s *Server) resignLocked(g *game, col int) error {
	if !g.ongoing() {
		return errors.New("This game cannot be resigned")
	}
	if g.abortable() {
		s.endGameLocked(g, "aborted", none)
		return nil
	}
	s.endGameLocked(g, "resign", 1-col)
	return nil
}

func (s *Server) abortLocked(g *game) error {
	if !g.abortable() {
		return errNotAbortable
	}
	s.endGameLocked(g, "aborted", none)
	return nil
}

func (s *Server) chatLocked(g *game, col int, room, text string) error {
	if room != "player" && room != "spectator" {
		return fmt.Errorf("Invalid room %q", room)
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("Empty text")
	}
	user := g.players[col].username
	g.chat = append(g.chat, chatEntry{room: room, user: user, text: text})
	s.broadcastLocked(g, jsonChatLine{Type: "chatLine", Room: room, Username: user, Text: text}, none)
	s.notifyLocked()
	return nil
}

// setGoneLocked marks col as gone (or back) and tells the opponent.
func (s *Server) setGoneLocked(g *game, col int, gone bool, wait time.Duration) {
	if !g.ongoing() {
		return
	}
	g.gone[col] = gone
	opp := 1 - col
	if !gone {
		g.claimAt[col] = time.Time{}
		s.broadcastLocked(g, jsonOpponentGone{Type: "opponentGone", Gone: false}, opp)
		s.notifyLocked()
		return
	}
	g.claimAt[col] = time.Now().Add(wait)
	s.houseOnGoneLocked(g, col, wait)
	s.goneTickLocked(g, col, g.claimAt[col])
	s.notifyLocked()
}

// goneTickLocked tells col's opponent how many seconds are left before it
// may claim (rounded up), then again every second down to 0.
func (s *Server) goneTickLocked(g *game, col int, at time.Time) {
	left := time.Until(at)
	if left < 0 {
		left = 0
	}
	secs := int((left + time.Second - 1) / time.Second)
	s.broadcastLocked(g, jsonOpponentGone{Type: "opponentGone", Gone: true, ClaimWinInSeconds: &secs}, 1-col)
	if secs == 0 {
		return
	}
	next := left - time.Duration(secs-1)*time.Second // until the count drops by one
	id := g.id
	s.afterFuncLocked(next, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		g := s.games[id]
		if g == nil || !g.ongoing() || !g.gone[col] || !g.claimAt[col].Equal(at) {
			return
		}
		s.goneTickLocked(g, col, at)
		s.notifyLocked()
	})
}

// claimLocked handles claim-victory (win) and claim-draw from col.
func (s *Server) claimLocked(g *game, col int, win bool) error {
	opp := 1 - col
	if !g.ongoing() || !g.gone[opp] || time.Now().Before(g.claimAt[opp]) {
		if win {
			return errors.New("You cannot claim the win yet")
		}
		return errors.New("You cannot claim a draw yet")
	}
	if win {
		s.endGameLocked(g, "timeout", col)
	} else {
		s.endGameLocked(g, "timeout", none)
	}
	return nil
}
