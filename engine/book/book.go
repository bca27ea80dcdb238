package book

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// EntrySize is the size in bytes of one Polyglot entry.
const EntrySize = 16

// ErrCorrupt is wrapped by every error that Open and Parse return for a file
// that is not a valid Polyglot book.
var ErrCorrupt = errors.New("not a valid Polyglot book")

// Entry is one record of a Polyglot book, as stored: all fields big-endian
// in the file.
type Entry struct {
	Key    uint64 // Polyglot key of the position (see Key)
	Move   uint16 // to (bits 0–5), from (6–11), promotion (12–14: 0 none, 1 N, 2 B, 3 R, 4 Q)
	Weight uint16 // how good the move is; relative to the other moves of the position
	Learn  uint32 // learning data; read and written back unchanged, otherwise unused
}

// Book is an opened Polyglot book held in memory. It is read-only after
// Open, so one Book may serve any number of games at once.
type Book struct {
	name string
	data []byte // len(data) is a multiple of EntrySize; keys are sorted
}

// Open reads and checks the Polyglot book at path. A missing, empty,
// truncated or unsorted file gives an error naming the file; a Book that
// Open returned never fails later.
func Open(path string) (*Book, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("opening book: %w", err)
	}
	return Parse(path, data)
}

// Parse checks data as the contents of a Polyglot book called name (used in
// errors and by Name) and returns the Book, which keeps data.
func Parse(name string, data []byte) (*Book, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("book %s: %w: the file is empty", name, ErrCorrupt)
	}
	if len(data)%EntrySize != 0 {
		return nil, fmt.Errorf("book %s: %w: size %d bytes is not a multiple of %d (truncated?)",
			name, ErrCorrupt, len(data), EntrySize)
	}
	var prev uint64
	for i := 0; i < len(data); i += EntrySize {
		k := binary.BigEndian.Uint64(data[i:])
		if k < prev {
			return nil, fmt.Errorf("book %s: %w: keys are not sorted (entry %d has key %016x after %016x)",
				name, ErrCorrupt, i/EntrySize, k, prev)
		}
		prev = k
	}
	return &Book{name: name, data: data}, nil
}

// Name returns the name the book was opened with (its path for Open).
func (b *Book) Name() string { return b.name }

// Len returns the number of entries.
func (b *Book) Len() int { return len(b.data) / EntrySize }

// entry decodes entry i.
func (b *Book) entry(i int) Entry {
	d := b.data[i*EntrySize : (i+1)*EntrySize]
	return Entry{
		Key:    binary.BigEndian.Uint64(d[0:]),
		Move:   binary.BigEndian.Uint16(d[8:]),
		Weight: binary.BigEndian.Uint16(d[10:]),
		Learn:  binary.BigEndian.Uint32(d[12:]),
	}
}

func (b *Book) key(i int) uint64 { return binary.BigEndian.Uint64(b.data[i*EntrySize:]) }

// Entries returns the entries stored for key, in file order (binary search;
// nil when there are none).
func (b *Book) Entries(key uint64) []Entry {
	n := b.Len()
	lo := sort.Search(n, func(i int) bool { return b.key(i) >= key })
	var out []Entry
	for i := lo; i < n && b.key(i) == key; i++ {
		out = append(out, b.entry(i))
	}
	return out
}

// Move is a book move that is legal in the position it was looked up for.
type Move struct {
	Move   board.Move // as engine/board plays it (castling is king takes rook)
	Weight int        // sum of the weights of the entries for this move
	Learn  uint32     // learn field of the first entry for this move
}

// Moves returns the book's moves for p, in file order. Entries whose move is
// not legal in p (another position with the same key, or a damaged entry)
// are skipped; several entries for the same move are merged, their weights
// added.
func (b *Book) Moves(p *board.Position) []Move {
	entries := b.Entries(Key(p))
	if len(entries) == 0 {
		return nil
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	var out []Move
next:
	for _, e := range entries {
		m, ok := DecodeMove(e.Move, &ml)
		if !ok {
			continue
		}
		for i := range out {
			if out[i].Move == m {
				out[i].Weight += int(e.Weight)
				continue next
			}
		}
		out = append(out, Move{Move: m, Weight: int(e.Weight), Learn: e.Learn})
	}
	return out
}

// DecodeMove finds the Polyglot move pm among the legal moves ml. Polyglot
// writes castling as the king taking its own rook ("e1h1"), the form
// engine/board uses for castling moves in standard chess and Chess960 alike.
// ok is false when pm is not one of ml's moves.
func DecodeMove(pm uint16, ml *board.MoveList) (m board.Move, ok bool) {
	to := board.Square(pm & 63)
	from := board.Square(pm >> 6 & 63)
	code := pm >> 12 & 7
	if code > 4 || pm>>15 != 0 {
		return board.NoMove, false
	}
	promo := board.NoPieceType
	if code != 0 {
		promo = board.Pawn + board.PieceType(code)
	}
	for _, m := range ml.Slice() {
		if m.From() == from && m.To() == to && m.Promotion() == promo {
			return m, true
		}
	}
	return board.NoMove, false
}

// EncodeMove returns m in Polyglot's move encoding (castling as king takes
// rook, which is how engine/board already stores it).
func EncodeMove(m board.Move) uint16 {
	pm := uint16(m.To()) | uint16(m.From())<<6
	if promo := m.Promotion(); promo != board.NoPieceType {
		pm |= uint16(promo-board.Pawn) << 12
	}
	return pm
}
