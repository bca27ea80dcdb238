package board

import "testing"

func TestParseEPD(t *testing.T) {
	p, ops, err := ParseEPD(`1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";`)
	if err != nil {
		t.Fatal(err)
	}
	if ops["bm"] != "Qd1+" || ops["id"] != "BK.01" {
		t.Fatalf("ops = %v", ops)
	}
	m, err := p.ParseSAN(ops["bm"])
	if err != nil || p.MoveToUCI(m) != "d6d1" {
		t.Fatalf("bm = %v, %v", m, err)
	}
	p, ops, err = ParseEPD("4k3/8/8/8/8/8/8/4K3 w - - 12 40 id x;")
	if err != nil || p.HalfmoveClock() != 12 || p.FullmoveNumber() != 40 || ops["id"] != "x" {
		t.Fatalf("with clocks: %v %v %v", p, ops, err)
	}
	for _, bad := range []string{"", "4k3/8/8/8/8/8/8/4K3 w -", "4k3/8/8/8/8/8/8/4K3 w - e9 bm e4;"} {
		if _, _, err := ParseEPD(bad); err == nil {
			t.Errorf("ParseEPD(%q) succeeded", bad)
		}
	}
}
