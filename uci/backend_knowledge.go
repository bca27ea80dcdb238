package uci

// The knowledge EngineBackend loads for its games from the options: the
// endgame tablebases (SyzygyPath), the opening books (OwnBook, BookFile;
// BookSelection, BookMinWeight and BookDepth choose their moves)
// and the evaluation network (UseNNUE, EvalFile).

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ponderosa-chess/ponderosa/engine/book"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
	"github.com/ponderosa-chess/ponderosa/engine/syzygy"
)

// pathOption is the path (or paths) of a string option: trimmed, and ""
// for the "<empty>" that GUIs send for an empty string.
func pathOption(v string) string {
	v = strings.TrimSpace(v)
	if v == optEmptyPath {
		return ""
	}
	return v
}

// setTablebase gives the game the tables and their options. b.tb is the one
// source of the tables: b.gopts.Tablebase is b.tb, or nil under
// SyzygyProbeLimit 0 (no table use at all, the root's included), so that a
// game made anew from b.gopts (resetGame) keeps the tables off too. Called
// with b.mu held.
func (b *EngineBackend) setTablebase() {
	b.gopts.Tablebase = b.tb
	if b.gopts.TablebaseProbeLimit < 0 {
		b.gopts.Tablebase = nil
	}
	o := b.gopts
	b.game.SetTablebase(o.Tablebase, o.TablebaseIgnore50, o.TablebaseProbeDepth, o.TablebaseProbeLimit)
}

// chooseTablebase opens the Syzygy tables of the directories in path
// (checking every file) and gives them to the game. When a directory or table cannot be read the engine plays
// without tables and the error names it. Called with b.mu held.
func (b *EngineBackend) chooseTablebase(path string) error {
	var tb *syzygy.Tablebase
	var err error
	if path != "" {
		if tb, err = syzygy.Open(filepath.SplitList(path)...); err == nil {
			if err = tb.Check(); err != nil {
				tb.Close()
				tb = nil
			}
		}
	}
	// The tables replaced are not closed: a background ponder search may
	// still probe them; they are unmapped once unreachable.
	b.tb = tb
	b.setTablebase()
	if err != nil {
		return fmt.Errorf("%w; playing without tablebases", err)
	}
	return nil
}

// chooseBook opens the book OwnBook and BookFile ask for and gives it to the
// game (a new one at the current position, whose RNG picks the book
// moves). When the file cannot be read the engine plays without a book and
// the error says so. Called with b.mu held.
func (b *EngineBackend) chooseBook() error {
	var books []*book.Book
	var err error
	if b.ownBook && b.bookFile != "" {
		var bk *book.Book
		if bk, err = book.Open(b.bookFile); err == nil {
			books = []*book.Book{bk}
		}
	}
	if len(books) == 0 && len(b.gopts.Books) == 0 {
		return err // nothing changes
	}
	b.gopts.Books = books // b.gopts.BookOptions: BookSelection, BookMinWeight, BookDepth
	b.resetGame()         // with a fresh seed
	if err != nil {
		return fmt.Errorf("%w; playing without a book", err)
	}
	return nil
}

// chooseNet loads the net UseNNUE and EvalFile ask for and hands it to the
// engine; when that fails the engine evaluates by hand and the error says
// so. With a learning memory a change of net clears the hash table: its
// entries, found with the other evaluation, would be recorded under the
// new one. Called with b.mu held.
func (b *EngineBackend) chooseNet() error {
	net, err := nnue.Choose(b.useNNUE, b.evalFile)
	changed := net != b.gopts.Net
	b.gopts.Net = net
	b.game.Engine().SetNet(net)
	if changed && b.gopts.Memory != nil {
		if cerr := b.game.ClearHash(); cerr != nil {
			return errors.Join(err, fmt.Errorf("clearing the hash table after the net changed: %w", cerr))
		}
	}
	if err != nil {
		return fmt.Errorf("%w; evaluating with the hand-crafted evaluation", err)
	}
	return nil
}

// Net returns the evaluation network in use (nil: the hand-crafted
// evaluation).
func (b *EngineBackend) Net() *nnue.Net {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gopts.Net
}
