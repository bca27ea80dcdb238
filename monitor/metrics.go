package monitor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// BotView is what Metrics reads of the running bot when scraped
// (*client.Bot).
type BotView interface {
	// Games returns the ids of the games being played.
	Games() []string
	// BotGamesToday returns the bot games of the last 24 hours and the
	// most allowed.
	BotGamesToday() (played, limit int)
}

// Metrics is the daemon's metrics: a client.Observer and a
// lichess.Observer that count what they are told into a metrics.Set.
// Safe for concurrent use.
type Metrics struct {
	set *metrics.Set
	// families: name → HELP and TYPE, written before each family (the
	// set alone writes none without the library's global switch).
	families map[string]family

	bot atomic.Pointer[BotView]

	moves        *metrics.Counter
	thinkTime    *metrics.PrometheusHistogram
	keptFraction *metrics.PrometheusHistogram
	predicted    *metrics.Counter
	ponderHits   *metrics.Counter
	ponderTop3   *metrics.Counter
	reconnects   *metrics.Counter

	mu   sync.Mutex
	mem  map[string]gameMemory // game id → its engine's memory at its last move
	seen map[string]bool       // games started and not finished, for games_running without a bot
}

type family struct{ typ, help string }

type gameMemory struct{ tree, hash int64 }

// Metric names (all start with ponderosa_).
const (
	mGamesRunning      = "ponderosa_games_running"
	mGamesStarted      = "ponderosa_games_started_total"
	mGamesFinished     = "ponderosa_games_finished_total"
	mMoves             = "ponderosa_moves_total"
	mMovesBySource     = "ponderosa_moves_by_source_total"
	mThinkTime         = "ponderosa_move_think_seconds"
	mPonderPredicted   = "ponderosa_ponder_predictions_total"
	mPonderHits        = "ponderosa_ponder_hits_total"
	mPonderTop3        = "ponderosa_ponder_top3_hits_total"
	mKeptFraction      = "ponderosa_tree_kept_fraction"
	mTreeBytes         = "ponderosa_tree_memory_bytes"
	mHashBytes         = "ponderosa_hash_memory_bytes"
	mRateLimited       = "ponderosa_lichess_rate_limited_total"
	mCooldownSeconds   = "ponderosa_lichess_cooldown_seconds_total"
	mCooldownRefused   = "ponderosa_lichess_cooldown_refused_total"
	mStreamReconnects  = "ponderosa_event_stream_reconnects_total"
	mChallengeAccepted = "ponderosa_challenges_accepted_total"
	mChallengeQueued   = "ponderosa_challenges_queued_total"
	mChallengeDeclined = "ponderosa_challenges_declined_total"
	mBotGamesToday     = "ponderosa_bot_games_last_24h"
	mBotGamesLeft      = "ponderosa_bot_games_left"
	mStreamAge         = "ponderosa_event_stream_silence_seconds"
	mBuildInfo         = "ponderosa_build_info"
)

// Buckets of the histograms.
var (
	thinkBuckets = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300}
	keptBuckets  = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
)

// NewMetrics makes the metrics of one daemon; version goes into
// ponderosa_build_info.
func NewMetrics(version string) *Metrics {
	s := metrics.NewSet()
	m := &Metrics{
		set:  s,
		mem:  map[string]gameMemory{},
		seen: map[string]bool{},
		families: map[string]family{
			mGamesRunning:      {"gauge", "Games being played now."},
			mGamesStarted:      {"counter", "Games begun (joined after a restart included), by speed."},
			mGamesFinished:     {"counter", "Games over, by our result (win, loss, draw, aborted, unknown) and speed."},
			mMoves:             {"counter", "Our moves that reached Lichess."},
			mMovesBySource:     {"counter", "Our moves that reached Lichess, by where the move came from (search, ponder, tree, book, tablebase, ...)."},
			mThinkTime:         {"histogram", "The player's thinking time of our moves, in seconds."},
			mPonderPredicted:   {"counter", "Our moves (built-in engine) before which the opponent's move had been predicted."},
			mPonderHits:        {"counter", "Our moves (built-in engine) before which the opponent played the predicted move."},
			mPonderTop3:        {"counter", "Our moves (built-in engine) before which the opponent played one of our three likeliest replies."},
			mKeptFraction:      {"histogram", "The share of the search tree kept at each re-rooting (built-in engine)."},
			mTreeBytes:         {"gauge", "Search tree memory of the games being played, at their last move (built-in engine)."},
			mHashBytes:         {"gauge", "Transposition table memory of the games being played (built-in engine)."},
			mRateLimited:       {"counter", "HTTP 429 answers from Lichess, by endpoint."},
			mCooldownSeconds:   {"counter", "Seconds of cool-down begun by 429 answers, by endpoint."},
			mCooldownRefused:   {"counter", "Requests not sent because their endpoint was cooling down, by endpoint."},
			mStreamReconnects:  {"counter", "Times the Lichess event stream dropped and was opened again."},
			mChallengeAccepted: {"counter", "Incoming challenges accepted."},
			mChallengeQueued:   {"counter", "Incoming challenges queued because every slot was busy."},
			mChallengeDeclined: {"counter", "Incoming challenges declined, by Lichess decline reason."},
			mBotGamesToday:     {"gauge", "Games against bots in the last 24 hours."},
			mBotGamesLeft:      {"gauge", "Games against bots still allowed in the last 24 hours (challenge.max_bot_games_per_day)."},
			mStreamAge:         {"gauge", "Seconds since the Lichess event stream last showed life."},
			mBuildInfo:         {"gauge", "Always 1; the version is a label."},
		},
	}
	m.moves = s.NewCounter(mMoves)
	m.thinkTime = s.NewPrometheusHistogramExt(mThinkTime, thinkBuckets)
	m.keptFraction = s.NewPrometheusHistogramExt(mKeptFraction, keptBuckets)
	m.predicted = s.NewCounter(mPonderPredicted)
	m.ponderHits = s.NewCounter(mPonderHits)
	m.ponderTop3 = s.NewCounter(mPonderTop3)
	m.reconnects = s.NewCounter(mStreamReconnects)
	s.NewCounter(mChallengeAccepted)
	s.NewCounter(mChallengeQueued)
	s.NewGauge(mGamesRunning, m.gamesRunning)
	s.NewGauge(mTreeBytes, func() float64 { t, _ := m.memory(); return float64(t) })
	s.NewGauge(mHashBytes, func() float64 { _, h := m.memory(); return float64(h) })
	s.NewGauge(mBotGamesToday, func() float64 { p, _ := m.botGames(); return float64(p) })
	s.NewGauge(mBotGamesLeft, func() float64 { p, l := m.botGames(); return float64(max(l-p, 0)) })
	s.NewGauge(fmt.Sprintf(`%s{version=%q}`, mBuildInfo, labelValue(version)), func() float64 { return 1 })
	return m
}

// SetBot tells the metrics which bot to read when scraped (games running,
// bot games today). Without one, games running are counted from the
// games started and not finished.
func (m *Metrics) SetBot(b BotView) { m.bot.Store(&b) }

// SetStreamSilence adds ponderosa_event_stream_silence_seconds, read from
// silence when scraped. Call it once.
func (m *Metrics) SetStreamSilence(silence func() time.Duration) {
	m.set.NewGauge(mStreamAge, func() float64 { return silence().Seconds() })
}

// Set is the metrics.Set, for metrics added elsewhere (their HELP and
// TYPE lines are not written).
func (m *Metrics) Set() *metrics.Set { return m.set }

func (m *Metrics) botView() BotView {
	if p := m.bot.Load(); p != nil {
		return *p
	}
	return nil
}

func (m *Metrics) gamesRunning() float64 {
	if b := m.botView(); b != nil {
		return float64(len(b.Games()))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return float64(len(m.seen))
}

func (m *Metrics) botGames() (played, limit int) {
	if b := m.botView(); b != nil {
		return b.BotGamesToday()
	}
	return 0, 0
}

// memory sums the engine memory of the games being played; games the
// bot no longer plays (stopped without an end, e.g. at shutdown) are
// forgotten.
func (m *Metrics) memory() (tree, hash int64) {
	var running map[string]bool
	if b := m.botView(); b != nil {
		ids := b.Games()
		running = make(map[string]bool, len(ids))
		for _, id := range ids {
			running[id] = true
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, g := range m.mem {
		if running != nil && !running[id] {
			delete(m.mem, id)
			continue
		}
		tree += g.tree
		hash += g.hash
	}
	return tree, hash
}

// GameStarted implements client.Observer.
func (m *Metrics) GameStarted(g client.GameFacts) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`%s{speed=%q}`, mGamesStarted, labelValue(g.Speed))).Inc()
	m.mu.Lock()
	m.seen[g.ID] = true
	m.mu.Unlock()
}

// GameFinished implements client.Observer.
func (m *Metrics) GameFinished(g client.GameFacts, result string) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`%s{result=%q,speed=%q}`, mGamesFinished, labelValue(result), labelValue(g.Speed))).Inc()
	m.mu.Lock()
	delete(m.seen, g.ID)
	delete(m.mem, g.ID)
	m.mu.Unlock()
}

// MovePlayed implements client.Observer.
func (m *Metrics) MovePlayed(g client.GameFacts, c client.Choice) {
	m.moves.Inc()
	m.set.GetOrCreateCounter(fmt.Sprintf(`%s{source=%q}`, mMovesBySource, labelValue(c.Source))).Inc()
	if c.Duration > 0 {
		m.thinkTime.Update(c.Duration.Seconds())
	}
	e := c.Engine
	if e == nil {
		return
	}
	if e.Predicted {
		m.predicted.Inc()
	}
	if e.PonderHit {
		m.ponderHits.Inc()
	}
	if e.PonderTop3 {
		m.ponderTop3.Inc()
	}
	if e.Rerooted {
		m.keptFraction.Update(e.KeptFraction)
	}
	m.mu.Lock()
	if m.seen[g.ID] { // a move heard after its game's end does not bring the game back
		m.mem[g.ID] = gameMemory{tree: e.TreeBytes, hash: e.HashBytes}
	}
	m.mu.Unlock()
}

// ChallengeAnswered implements client.Observer.
func (m *Metrics) ChallengeAnswered(outcome, reason string) {
	switch outcome {
	case client.ChallengeAccepted:
		m.set.GetOrCreateCounter(mChallengeAccepted).Inc()
	case client.ChallengeQueued:
		m.set.GetOrCreateCounter(mChallengeQueued).Inc()
	default:
		m.set.GetOrCreateCounter(fmt.Sprintf(`%s{reason=%q}`, mChallengeDeclined, labelValue(reason))).Inc()
	}
}

// StreamReconnect implements client.Observer.
func (m *Metrics) StreamReconnect() { m.reconnects.Inc() }

// RateLimited implements lichess.Observer.
func (m *Metrics) RateLimited(endpoint string, cooldown time.Duration) {
	ep := labelValue(endpoint)
	m.set.GetOrCreateCounter(fmt.Sprintf(`%s{endpoint=%q}`, mRateLimited, ep)).Inc()
	m.set.GetOrCreateFloatCounter(fmt.Sprintf(`%s{endpoint=%q}`, mCooldownSeconds, ep)).Add(cooldown.Seconds())
}

// CooldownRefused implements lichess.Observer.
func (m *Metrics) CooldownRefused(endpoint string) {
	m.set.GetOrCreateCounter(fmt.Sprintf(`%s{endpoint=%q}`, mCooldownRefused, labelValue(endpoint))).Inc()
}

var (
	_ client.Observer  = (*Metrics)(nil)
	_ lichess.Observer = (*Metrics)(nil)
)

// labelValue keeps a label's value to letters, digits and "_-./:+"
// (at most 64 bytes), so that nothing needs escaping and no value from
// outside can make the text invalid; "" is "unknown".
func labelValue(s string) string {
	if s == "" {
		return "unknown"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("_-./:+", r):
			return r
		}
		return '_'
	}, s)
}

// WritePrometheus writes every metric in the Prometheus text format, each
// family of ours after its HELP and TYPE lines.
func (m *Metrics) WritePrometheus(w io.Writer) error {
	var buf bytes.Buffer
	m.set.WritePrometheus(&buf)
	bw := bufio.NewWriter(w)
	last := ""
	for line := range strings.Lines(buf.String()) {
		if name := m.familyOf(line); name != "" && name != last {
			last = name
			f := m.families[name]
			fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s %s\n", name, f.help, name, f.typ)
		}
		bw.WriteString(line)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write metrics: %w", err)
	}
	return nil
}

// familyOf is the family of a sample line when it is one of ours, else "".
func (m *Metrics) familyOf(line string) string {
	name := line
	if i := strings.IndexAny(line, "{ "); i >= 0 {
		name = line[:i]
	}
	if _, ok := m.families[name]; ok {
		return name
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := m.families[base]; ok && f.typ == "histogram" {
				return base
			}
		}
	}
	return ""
}
