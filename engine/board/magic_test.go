package board

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestSliderAttacks compares the magic lookups with ray walking for every
// square on many random occupancies.
func TestSliderAttacks(t *testing.T) {
	rng := prng{s: 12345}
	for s := Square(0); s < 64; s++ {
		for i := 0; i < 300; i++ {
			occ := Bitboard(rng.next() & rng.next())
			if got, want := RookAttacks(s, occ), slowSlider(s, occ, rookDirs); got != want {
				t.Fatalf("RookAttacks(%v)\n%v want\n%v", s, got, want)
			}
			if got, want := BishopAttacks(s, occ), slowSlider(s, occ, bishopDirs); got != want {
				t.Fatalf("BishopAttacks(%v)\n%v want\n%v", s, got, want)
			}
		}
	}
}

func TestMagicNumbersAreBuiltIn(t *testing.T) {
	for s := 0; s < 64; s++ {
		if rookMagics[s].mul != rookMagicNumbers[s] || bishopMagics[s].mul != bishopMagicNumbers[s] {
			t.Fatalf("square %d: the built-in magic numbers were not used (regenerate with PONDEROSA_PRINT_MAGICS=1 go test -run TestPrintMagics)", s)
		}
	}
}

func TestBetweenAndLine(t *testing.T) {
	if Between(A1, H8) != B2.Bitboard()|C3.Bitboard()|D4.Bitboard()|E5.Bitboard()|F6.Bitboard()|G7.Bitboard() {
		t.Error("Between(a1, h8)")
	}
	if Between(A1, B3) != 0 || Line(A1, B3) != 0 {
		t.Error("a1 and b3 are not aligned")
	}
	if Line(C1, C5) != FileMask(2) || Between(E4, E5) != 0 {
		t.Error("Line(c1, c5) / Between(e4, e5)")
	}
}

// TestPrintMagics prints magicnums.go contents when PONDEROSA_PRINT_MAGICS is set.
func TestPrintMagics(t *testing.T) {
	if os.Getenv("PONDEROSA_PRINT_MAGICS") == "" {
		t.Skip("set PONDEROSA_PRINT_MAGICS=1 to print the magic numbers")
	}
	var b strings.Builder
	for _, k := range []struct {
		name string
		m    *[64]magic
	}{{"rookMagicNumbers", &rookMagics}, {"bishopMagicNumbers", &bishopMagics}} {
		fmt.Fprintf(&b, "var %s = [64]uint64{\n", k.name)
		for s := 0; s < 64; s++ {
			fmt.Fprintf(&b, "\t0x%016x,\n", k.m[s].mul)
		}
		b.WriteString("}\n\n")
	}
	fmt.Print(b.String())
}

func TestPawnAttacksSet(t *testing.T) {
	for c := White; c <= Black; c++ {
		for s := Square(8); s < 56; s++ {
			if got, want := PawnAttacksSet(c, s.Bitboard()), PawnAttacks(c, s); got != want {
				t.Fatalf("PawnAttacksSet(%v, %v) = %x, want %x", c, s, got, want)
			}
		}
	}
}
