package client

import (
	"strings"
	"testing"
)

// The mover checks the Player's move against the legal moves it was given
// and replays the game only for other spellings (the replay with
// notnil/chess costs milliseconds late in a game; the soak measurement
// scripts/soak.sh showed it in the single-legal-move reaction time).
func TestCanonicalMove(t *testing.T) {
	// 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5: White may castle.
	moves := []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"}
	b, err := newBoard("standard", "", moves)
	if err != nil {
		t.Fatal(err)
	}
	legal := b.LegalMoves()
	tests := []struct {
		name, move, want string
		legal            []string // the job's legal moves
		wantErr          string
	}{
		{name: "listed", move: "d2d4", want: "d2d4", legal: legal},
		{name: "listed, upper case", move: "D2D4", want: "d2d4", legal: legal},
		{name: "castling as king to g1", move: "e1g1", want: "e1g1", legal: legal},
		{name: "castling as king takes rook", move: "e1h1", want: "e1g1", legal: legal},
		{name: "illegal", move: "e1e3", legal: legal, wantErr: "not legal"},
		{name: "not UCI", move: "O-O", legal: legal, wantErr: "not UCI"},
		// A board that cannot list moves: the replay decides.
		{name: "no list, legal", move: "d2d4", want: "d2d4"},
		{name: "no list, illegal", move: "d2d5", wantErr: "not legal"},
		// A list missing the move (stale or wrong) does not make it legal.
		{name: "list without it, illegal", move: "a2a5", legal: []string{"d2d4"}, wantErr: "not legal"},
	}
	g := &gameWorker{info: GameInfo{Variant: "standard"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.canonicalMove(moveJob{moves: moves, legal: tt.legal}, tt.move)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("canonicalMove(%s) = %q, %v; want an error saying %q", tt.move, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("canonicalMove(%s) = %q, %v; want %q", tt.move, got, err, tt.want)
			}
		})
	}
}

// BenchmarkCanonicalMove: checking the Player's move 96 plies into a game,
// found in the legal moves (the common case) and by replaying the game (a
// board that cannot list moves; what every move paid before).
func BenchmarkCanonicalMove(b *testing.B) {
	bd, _ := newBoard("standard", "", nil)
	var moves []string
	cycle := []string{"b1c3", "b8c6", "c3b1", "c6b8"} // knights out and back
	for len(moves) < 96 {
		m := cycle[len(moves)%4]
		if err := bd.Play(m); err != nil {
			b.Fatal(err)
		}
		moves = append(moves, m)
	}
	g := &gameWorker{info: GameInfo{Variant: "standard"}}
	for _, bc := range []struct {
		name  string
		legal []string
	}{{"listed", bd.LegalMoves()}, {"replayed", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			j := moveJob{moves: moves, legal: bc.legal}
			for b.Loop() {
				if _, err := g.canonicalMove(j, "e2e4"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
