package uci

// The learning memory of EngineBackend (the LearnFile option).

import (
	"fmt"
	"os"
	"time"

	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
)

// LearnLossCP is how bad our last searched score must be (centipawns,
// our view) for a UCI game to count as lost (see OptLearnFile).
const LearnLossCP = 500

// learning is the state of the LearnFile option.
type learning struct {
	mem     *store.Memory // nil: off
	session string        // names this process's games
	seq     int           // games so far
	scored  bool          // the game has a searched score
	score   int           // our last searched score (centipawns, our view)
	mate    int           // its mate distance (moves; <0: we are mated)
}

// chooseMemory opens the learning memory at path ("" turns it off) and
// gives it to the game; the one before is closed (what it queued is
// written first). Called with b.mu held.
func (b *EngineBackend) chooseMemory(path string) error {
	b.concludeLearnGame()
	b.closeMemory()
	var err error
	if path != "" {
		var m *store.Memory
		if m, err = store.OpenMemory(path, store.MemoryOptions{Logger: b.gopts.Logger}); err == nil {
			b.learn.mem = m
		}
	}
	b.nextLearnGame()
	if err != nil {
		return fmt.Errorf("%w; playing without a learning memory", err)
	}
	return nil
}

// nextLearnGame names a new game for the memory and hands both to the
// game. Called with b.mu held.
func (b *EngineBackend) nextLearnGame() {
	b.learn.scored, b.learn.score, b.learn.mate = false, 0, 0
	if b.learn.mem == nil {
		b.gopts.Memory, b.gopts.MemoryGame = nil, ""
		b.game.SetMemory(nil, "")
		return
	}
	if b.learn.session == "" {
		b.learn.session = fmt.Sprintf("uci-%d-%d", os.Getpid(), time.Now().UnixNano())
	}
	b.learn.seq++
	if b.learn.seq > 1 {
		b.learn.mem.Refresh() // what other engines on the file learnt meanwhile
	}
	b.gopts.Memory, b.gopts.MemoryGame = b.learn.mem, fmt.Sprintf("%s-%d", b.learn.session, b.learn.seq)
	b.game.SetMemory(b.gopts.Memory, b.gopts.MemoryGame)
}

// concludeLearnGame tells the memory the result of the game that ends,
// as far as our last searched score tells it (see OptLearnFile). Called
// with b.mu held.
func (b *EngineBackend) concludeLearnGame() {
	if b.learn.mem == nil || !b.learn.scored {
		return
	}
	b.game.GameOver(inferResult(b.learn.score, b.learn.mate))
	b.learn.scored = false
}

// inferResult is a game's result for the memory from our last score.
func inferResult(score, mate int) ponder.GameResult {
	switch {
	case mate < 0 || (mate == 0 && score <= -LearnLossCP):
		return ponder.ResultLoss
	case mate > 0 || score >= LearnLossCP:
		return ponder.ResultWin
	}
	return ponder.ResultUnknown
}

// noteScore keeps the score of a searched move of game (for
// concludeLearnGame).
func (b *EngineBackend) noteScore(game *ponder.Game, d ponder.Decision) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if game != b.game || b.learn.mem == nil || d.Depth <= 0 {
		return
	}
	b.learn.scored, b.learn.score, b.learn.mate = true, d.Score, d.Mate
}

// closeMemory closes the memory (writing what is queued). Called with
// b.mu held.
func (b *EngineBackend) closeMemory() {
	if b.learn.mem != nil {
		_ = b.learn.mem.Close()
		b.learn.mem = nil
	}
}
