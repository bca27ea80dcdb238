package eval

// StartingWeights returns hand-set weights from general chess knowledge
// (pawn ≈ 100, minor ≈ 320, rook ≈ 500, queen ≈ 950; central pieces,
// mobility, king shelter and passed pawns are good). They are where tuning
// starts from when no tuned weights exist; weights.go holds the tuned ones.
func StartingWeights() Weights {
	var w Weights
	set := func(i, mg, eg int) { w[i] = S(mg, eg) }

	set(IdxMaterial+0, 85, 115)
	set(IdxMaterial+1, 320, 300)
	set(IdxMaterial+2, 330, 320)
	set(IdxMaterial+3, 460, 520)
	set(IdxMaterial+4, 950, 960)

	for r := 0; r < 8; r++ {
		for f := 0; f < 4; f++ {
			// centre: 0 at the edge/corner, 3 in the middle four squares
			fr := f
			rr := r
			if rr > 3 {
				rr = 7 - rr
			}
			cen := fr
			if rr < cen {
				cen = rr
			}
			i := r*4 + f
			// pawns: central pawns forward in the middlegame, any pawn forward in the endgame
			if r >= 1 && r <= 6 {
				pm := 0
				if f >= 2 && r >= 2 && r <= 4 {
					pm = 5 * (f - 1) * (r - 1)
				}
				set(IdxPST+0*32+i, pm, 4*(r-1))
			}
			set(IdxPST+1*32+i, 8*cen-15, 6*cen-12)
			set(IdxPST+2*32+i, 4*cen-6, 4*cen-8)
			rm := 0
			if r == 6 {
				rm = 10
			}
			if f >= 2 && r == 0 {
				rm = 5
			}
			set(IdxPST+3*32+i, rm, 0)
			set(IdxPST+4*32+i, 2*cen-3, 5*cen-8)
			km := -15 - 12*r
			if r == 0 {
				km = []int{20, 30, 5, -5}[f]
			} else if r == 1 {
				km = []int{5, 5, -10, -20}[f]
			}
			set(IdxPST+5*32+i, km, 10*cen-15)
		}
	}

	for n := 0; n < 9; n++ {
		set(IdxMobN+n, 5*(n-4), 5*(n-4))
	}
	for n := 0; n < 14; n++ {
		set(IdxMobB+n, 5*(n-6), 5*(n-6))
	}
	for n := 0; n < 15; n++ {
		set(IdxMobR+n, 2*(n-6), 4*(n-6))
	}
	for n := 0; n < 28; n++ {
		set(IdxMobQ+n, 1*(n-12), 2*(n-12))
	}

	passedMG := [8]int{0, 0, 5, 10, 20, 35, 60, 0}
	passedEG := [8]int{0, 5, 10, 20, 40, 70, 110, 0}
	for r := 0; r < 8; r++ {
		set(IdxPassed+r, passedMG[r], passedEG[r])
		set(IdxPassFree+r, 0, passedEG[r]/4)
		set(IdxPassSafe+r, 0, passedEG[r]/5)
		set(IdxPassOwnK+r, 0, -r)
		set(IdxPassOppK+r, 0, 2*r)
	}
	set(IdxIsolated, -10, -12)
	set(IdxDoubled, -10, -20)
	set(IdxBackward, -8, -10)
	supp := [8]int{0, 0, 8, 10, 15, 25, 40, 0}
	phal := [8]int{0, 0, 5, 8, 12, 20, 30, 0}
	for r := 0; r < 8; r++ {
		set(IdxSupport+r, supp[r], supp[r])
		set(IdxPhalanx+r, phal[r], phal[r])
	}

	for i, a := range [4]int{6, 5, 7, 10} {
		set(IdxKAttack+i, a, 0)
	}
	for i, a := range [8]int{0, 0, 5, 15, 30, 45, 60, 70} {
		set(IdxKAttCnt+i, a, 0)
	}
	for i, a := range [4]int{2, 2, 2, 3} {
		set(IdxKAttX+i, a, 0)
	}
	for i, a := range [4]int{40, 25, 40, 30} {
		set(IdxSafeChk+i, a, 5)
	}
	for i, a := range [8]int{-25, 10, 5, -5, -12, -15, -15, -15} {
		set(IdxShield+i, a, 0)
	}
	for i, a := range [8]int{0, 0, 0, -20, -10, -5, 0, 0} {
		set(IdxStorm+i, a, 0)
	}
	set(IdxKOpen, -15, 0)
	set(IdxKWeak, 8, 0)
	set(IdxBPair, 30, 50)
	set(IdxBPawns, -2, -4)
	set(IdxNOutpost, 25, 10)
	set(IdxBOutpost, 15, 5)
	set(IdxMinorBP, 10, 0)
	set(IdxROpen, 30, 10)
	set(IdxRSemi, 12, 8)
	set(IdxR7th, 10, 25)
	set(IdxThrPawn, 40, 30)
	for i, a := range [5]int{5, 25, 25, 40, 40} {
		set(IdxThrMinor+i, a, a)
	}
	for i, a := range [5]int{5, 20, 20, 0, 40} {
		set(IdxThrRook+i, a, a)
	}
	set(IdxHanging, 15, 10)
	set(IdxTempo, 15, 5)
	kd := [NumKD]int{KDBias: -60, KDAttN: 8, KDAttB: 6, KDAttR: 8, KDAttQ: 12, KDAttackers: 10,
		KDChkN: 25, KDChkB: 15, KDChkR: 25, KDChkQ: 20, KDWeak: 5, KDNoQueen: -40, KDShelter: 8}
	for j, u := range kd {
		set(IdxKDanger+j, u, 0)
	}
	return w
}
