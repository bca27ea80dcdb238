package search

import "github.com/ponderosa-chess/ponderosa/engine/board"

// Move-picker stages.
const (
	stageTT = iota
	stageGenCaptures
	stageGoodCaptures
	stageKiller1
	stageKiller2
	stageCounter
	stageGenQuiets
	stageQuiets
	stageBadCaptures
	stageQChecks
	stageDone
)

const maxBad = board.MaxMoves

// picker hands out the moves of one node in a good order without sorting
// them all: TT move, captures that do not lose material (by victim value
// and capture history),
// killers, counter move, quiet moves by history, losing captures. It lives
// in the thread's per-ply stack, so it never allocates.
type picker struct {
	stage                   int
	ttMove, k1, k2, counter board.Move
	caps, quiets            board.MoveList
	capScores, quietScores  [board.MaxMoves]int32
	idx                     int
	bad                     [maxBad]board.Move
	nBad, badIdx            int
	capturesOnly            bool
	qChecks                 bool // quiescence: also quiet checking moves
}

// mvvlva scores a noisy move: most valuable victim first, then least
// valuable attacker; promotions add the promoted piece.
func mvvlva(p *board.Position, m board.Move) int32 {
	victim := board.PieceType(board.Pawn)
	if !m.IsEnPassant() {
		victim = p.PieceOn(m.To()).Type()
	}
	s := int32(victim)*16 - int32(p.PieceOn(m.From()).Type())
	if pr := m.Promotion(); pr != board.NoPieceType {
		s += int32(pr) * 16
	}
	return s
}

// init prepares the picker for a main-search node.
func (pk *picker) init(ttMove, k1, k2, counter board.Move) {
	pk.stage = stageTT
	pk.ttMove, pk.k1, pk.k2, pk.counter = ttMove, k1, k2, counter
	pk.nBad, pk.badIdx, pk.idx = 0, 0, 0
	pk.capturesOnly = false
	pk.qChecks = false
}

// initQ prepares the picker for quiescence: captures only (all evasions
// when in check), losing captures are dropped.
func (pk *picker) initQ(ttMove board.Move, inCheck, checks bool) {
	pk.init(ttMove, board.NoMove, board.NoMove, board.NoMove)
	pk.capturesOnly = !inCheck
	pk.qChecks = checks && !inCheck
}

// pickBest moves the highest-scored move in l[from:] to position from.
func pickBest(l *board.MoveList, sc *[board.MaxMoves]int32, from int) board.Move {
	best := from
	for i := from + 1; i < l.N; i++ {
		if sc[i] > sc[best] {
			best = i
		}
	}
	l.Moves[from], l.Moves[best] = l.Moves[best], l.Moves[from]
	sc[from], sc[best] = sc[best], sc[from]
	return l.Moves[from]
}

// next returns the next move, or NoMove when there are none left.
func (pk *picker) next(t *thread, ply int) board.Move {
	p := t.pos
	for {
		switch pk.stage {
		case stageTT:
			pk.stage = stageGenCaptures
			if pk.ttMove != board.NoMove && p.IsLegal(pk.ttMove) &&
				(!pk.capturesOnly || p.IsNoisy(pk.ttMove)) {
				return pk.ttMove
			}
			pk.ttMove = board.NoMove
		case stageGenCaptures:
			p.GenerateCaptures(&pk.caps)
			for i := 0; i < pk.caps.N; i++ {
				pk.capScores[i] = t.captureScore(pk.caps.Moves[i])
			}
			pk.idx = 0
			pk.stage = stageGoodCaptures
		case stageGoodCaptures:
			for pk.idx < pk.caps.N {
				m := pickBest(&pk.caps, &pk.capScores, pk.idx)
				pk.idx++
				if m == pk.ttMove {
					continue
				}
				// A capture of a lower-valued piece by a higher one may lose
				// material: check with SEE and postpone the losers.
				if !p.SEEGE(m, 0) {
					pk.bad[pk.nBad] = m
					pk.nBad++
					continue
				}
				return m
			}
			if pk.capturesOnly {
				if pk.qChecks {
					p.GenerateQuiets(&pk.quiets)
					pk.idx = 0
					pk.stage = stageQChecks
					continue
				}
				pk.stage = stageDone
				return board.NoMove
			}
			pk.stage = stageKiller1
		case stageKiller1:
			pk.stage = stageKiller2
			if m := pk.k1; m != pk.ttMove && m != board.NoMove && p.IsLegal(m) && !p.IsNoisy(m) {
				return m
			}
		case stageKiller2:
			pk.stage = stageCounter
			if m := pk.k2; m != pk.ttMove && m != pk.k1 && m != board.NoMove && p.IsLegal(m) && !p.IsNoisy(m) {
				return m
			}
		case stageCounter:
			pk.stage = stageGenQuiets
			if m := pk.counter; m != pk.ttMove && m != pk.k1 && m != pk.k2 && m != board.NoMove &&
				p.IsLegal(m) && !p.IsNoisy(m) {
				return m
			}
		case stageGenQuiets:
			pk.stage = stageQuiets
			pk.idx = 0
			p.GenerateQuiets(&pk.quiets)
			t.scoreQuiets(&pk.quiets, &pk.quietScores, ply)
		case stageQuiets:
			for pk.idx < pk.quiets.N {
				m := pickBest(&pk.quiets, &pk.quietScores, pk.idx)
				pk.idx++
				if m == pk.ttMove || m == pk.k1 || m == pk.k2 || m == pk.counter {
					continue
				}
				return m
			}
			pk.stage = stageBadCaptures
		case stageQChecks:
			for pk.idx < pk.quiets.N {
				m := pk.quiets.Moves[pk.idx]
				pk.idx++
				if m != pk.ttMove && p.GivesCheck(m) {
					return m
				}
			}
			pk.stage = stageDone
		case stageBadCaptures:
			if pk.badIdx < pk.nBad {
				pk.badIdx++
				return pk.bad[pk.badIdx-1]
			}
			pk.stage = stageDone
		default:
			return board.NoMove
		}
	}
}
