package nnue

import "github.com/ponderosa-chess/ponderosa/engine/board"

// Stack is the incremental evaluation of one search thread: a stack of
// accumulators, one per ply made since Reset, each holding both
// perspectives' hidden-layer sums (int16, as docs/nnue-net.md allows: Read
// refuses a net whose accumulator could overflow).
//
// The caller keeps it in step with the position: Reset at the search root,
// Push after every MakeMove or MakeNullMove, Pop after every UnmakeMove or
// UnmakeNullMove. Push only records which features the move changed
// (updates are lazy); Evaluate brings the top accumulator up to date from
// the nearest computed one below it, one move's few weight rows at a time
// (a quiet move: one row subtracted and one added per perspective; a
// capture or en passant: one more subtracted; castling: two and two; a
// promotion: the pawn out, the new piece in), or refreshes it from the
// position when that is cheaper or nothing below is computed.
//
// Evaluate returns exactly Net.Evaluate of the position. Nothing allocates
// after NewStack. A Stack is not safe for concurrent use.
type Stack struct {
	net   *Net
	h     int
	acc   []int16 // entry i's accumulators: White's perspective at [2hi, 2hi+h), Black's at [2hi+h, 2hi+2h)
	ent   []entry
	top   int
	extra int // pushes beyond the capacity; Evaluate then uses the reference
}

// pieceSq is a piece on a square.
type pieceSq struct {
	pc board.Piece
	sq board.Square
}

// entry says how an accumulator differs from the one below it.
type entry struct {
	computed bool
	nAdd     uint8
	nSub     uint8
	add      [2]pieceSq
	sub      [3]pieceSq
}

// refreshAfter is how many lazy updates in a row Evaluate applies before it
// recomputes the accumulator from the position instead.
const refreshAfter = 6

// NewStack returns a stack for n on which at most depth moves can be pushed
// after Reset without falling back to the (slow, but still exact)
// reference evaluation.
func NewStack(n *Net, depth int) *Stack {
	depth = max(depth, 1) + 1
	return &Stack{
		net: n,
		h:   n.Hidden,
		acc: make([]int16, depth*2*n.Hidden),
		ent: make([]entry, depth),
	}
}

// Net returns the stack's network.
func (s *Stack) Net() *Net { return s.net }

// Reset empties the stack for a new root position; its accumulator is
// computed from the position on the first Evaluate.
func (s *Stack) Reset() {
	s.top, s.extra = 0, 0
	s.ent[0] = entry{}
}

// Depth returns how many pushes are outstanding.
func (s *Stack) Depth() int { return s.top + s.extra }

// Push records the move p has just made (p.LastMove(); a null move too).
func (s *Stack) Push(p *board.Position) {
	if s.extra > 0 || s.top+1 >= len(s.ent) {
		s.extra++
		return
	}
	s.top++
	e := &s.ent[s.top]
	e.computed = false
	e.nAdd, e.nSub = 0, 0
	m := p.LastMove()
	if m == board.NullMove {
		return
	}
	us := p.SideToMove().Other()
	from, to := m.From(), m.To()
	switch m.Kind() {
	case board.KindCastling:
		king, rook := board.MakePiece(us, board.King), board.MakePiece(us, board.Rook)
		rank := board.Square(56 * int(us))
		kingTo, rookTo := board.G1+rank, board.F1+rank
		if to < from {
			kingTo, rookTo = board.C1+rank, board.D1+rank
		}
		e.sub[0], e.sub[1] = pieceSq{king, from}, pieceSq{rook, to}
		e.add[0], e.add[1] = pieceSq{king, kingTo}, pieceSq{rook, rookTo}
		e.nSub, e.nAdd = 2, 2
	case board.KindEnPassant:
		pawn := board.MakePiece(us, board.Pawn)
		e.sub[0], e.sub[1] = pieceSq{pawn, from}, pieceSq{p.CapturedPiece(), to ^ 8}
		e.add[0] = pieceSq{pawn, to}
		e.nSub, e.nAdd = 2, 1
	default:
		moved := p.PieceOn(to)
		if m.Kind() == board.KindPromotion {
			e.sub[0] = pieceSq{board.MakePiece(us, board.Pawn), from}
		} else {
			e.sub[0] = pieceSq{moved, from}
		}
		e.add[0] = pieceSq{moved, to}
		e.nSub, e.nAdd = 1, 1
		if c := p.CapturedPiece(); c != board.NoPiece {
			e.sub[1] = pieceSq{c, to}
			e.nSub = 2
		}
	}
}

// Pop takes back the last Push.
func (s *Stack) Pop() {
	if s.extra > 0 {
		s.extra--
		return
	}
	if s.top > 0 {
		s.top--
	}
}

// Evaluate returns the evaluation of p, the position the stack is in step
// with, in centipawns from the side to move's point of view: exactly
// Net.Evaluate(p).
func (s *Stack) Evaluate(p *board.Position) int {
	n := s.net
	if s.extra > 0 {
		return n.Evaluate(p)
	}
	s.update(p)
	h := s.h
	base := 2 * h * s.top
	white, black := s.acc[base:base+h], s.acc[base+h:base+2*h]
	us, them := white, black
	if p.SideToMove() == board.Black {
		us, them = black, white
	}
	var out int64
	if n.Act == SCReLU {
		out = screluSum(us, n.OutputWeights[:h], n.QA) + screluSum(them, n.OutputWeights[h:2*h], n.QA)
		out /= int64(n.QA)
	} else {
		out = creluSum(us, n.OutputWeights[:h], n.QA) + creluSum(them, n.OutputWeights[h:2*h], n.QA)
	}
	out += int64(n.OutputBias)
	return int(out * int64(n.Scale) / (int64(n.QA) * int64(n.QB)))
}

// update makes the top accumulator current.
func (s *Stack) update(p *board.Position) {
	if s.ent[s.top].computed {
		return
	}
	k := s.top - 1
	for k >= 0 && !s.ent[k].computed {
		k--
	}
	if k < 0 || s.top-k > refreshAfter {
		s.refresh(p, s.top)
		return
	}
	for i := k + 1; i <= s.top; i++ {
		s.apply(i)
	}
}

// refresh computes entry i's accumulators from the position.
func (s *Stack) refresh(p *board.Position, i int) {
	n, h := s.net, s.h
	base := 2 * h * i
	for side := board.White; side <= board.Black; side++ {
		dst := s.acc[base+int(side)*h : base+int(side)*h+h]
		copy(dst, n.InputBiases[:h])
		for b := p.Occupied(); b != 0; b &= b - 1 {
			sq := b.LSB()
			f := Feature(side, p.PieceOn(sq), sq)
			addRow(dst, n.InputWeights[f*h:f*h+h])
		}
	}
	s.ent[i].computed = true
}

// apply computes entry i's accumulators from entry i−1's and i's changes.
func (s *Stack) apply(i int) {
	n, h := s.net, s.h
	e := &s.ent[i]
	w := n.InputWeights
	for side := board.White; side <= board.Black; side++ {
		off := int(side) * h
		src := s.acc[2*h*(i-1)+off : 2*h*(i-1)+off+h]
		dst := s.acc[2*h*i+off : 2*h*i+off+h]
		row := func(x pieceSq) []int16 {
			f := Feature(side, x.pc, x.sq)
			return w[f*h : f*h+h]
		}
		switch {
		case e.nAdd == 0 && e.nSub == 0:
			copy(dst, src)
		case e.nAdd == 1 && e.nSub == 1:
			addSub(dst, src, row(e.add[0]), row(e.sub[0]))
		case e.nAdd == 1 && e.nSub == 2:
			addSubSub(dst, src, row(e.add[0]), row(e.sub[0]), row(e.sub[1]))
		default: // castling: 2 and 2
			addAddSubSub(dst, src, row(e.add[0]), row(e.add[1]), row(e.sub[0]), row(e.sub[1]))
		}
	}
	e.computed = true
}

// The row operations. Each reslices its operands to dst's length so that
// the compiler drops the bounds checks of the loop, and works four values
// at a time. int16 arithmetic wraps, and the final sums fit (Validate), so
// intermediate overflow does no harm.

func addRow(dst, a []int16) {
	a = a[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] += a[i]
		dst[i+1] += a[i+1]
		dst[i+2] += a[i+2]
		dst[i+3] += a[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] += a[i]
	}
}

func addSub(dst, src, a, s1 []int16) {
	src, a, s1 = src[:len(dst)], a[:len(dst)], s1[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] = src[i] + a[i] - s1[i]
		dst[i+1] = src[i+1] + a[i+1] - s1[i+1]
		dst[i+2] = src[i+2] + a[i+2] - s1[i+2]
		dst[i+3] = src[i+3] + a[i+3] - s1[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = src[i] + a[i] - s1[i]
	}
}

func addSubSub(dst, src, a, s1, s2 []int16) {
	src, a, s1, s2 = src[:len(dst)], a[:len(dst)], s1[:len(dst)], s2[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] = src[i] + a[i] - s1[i] - s2[i]
		dst[i+1] = src[i+1] + a[i+1] - s1[i+1] - s2[i+1]
		dst[i+2] = src[i+2] + a[i+2] - s1[i+2] - s2[i+2]
		dst[i+3] = src[i+3] + a[i+3] - s1[i+3] - s2[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] = src[i] + a[i] - s1[i] - s2[i]
	}
}

func addAddSubSub(dst, src, a1, a2, s1, s2 []int16) {
	src, a1, a2, s1, s2 = src[:len(dst)], a1[:len(dst)], a2[:len(dst)], s1[:len(dst)], s2[:len(dst)]
	for i := range dst {
		dst[i] = src[i] + a1[i] + a2[i] - s1[i] - s2[i]
	}
}

// creluSum returns Σ clamp(acc[i], 0, qa)·w[i].
func creluSum(acc, w []int16, qa int) int64 {
	w = w[:len(acc)]
	q := int32(qa)
	var s0, s1 int64
	i := 0
	for ; i+2 <= len(acc); i += 2 {
		a0 := min(max(int32(acc[i]), 0), q)
		a1 := min(max(int32(acc[i+1]), 0), q)
		s0 += int64(a0 * int32(w[i]))
		s1 += int64(a1 * int32(w[i+1]))
	}
	for ; i < len(acc); i++ {
		a := min(max(int32(acc[i]), 0), q)
		s0 += int64(a * int32(w[i]))
	}
	return s0 + s1
}

// screluSum returns Σ clamp(acc[i], 0, qa)²·w[i]. clamp·w fits int32
// (qa ≤ 4096, |w| ≤ 32768); the second factor is taken in int64.
func screluSum(acc, w []int16, qa int) int64 {
	w = w[:len(acc)]
	q := int32(qa)
	var s0, s1 int64
	i := 0
	for ; i+2 <= len(acc); i += 2 {
		a0 := min(max(int32(acc[i]), 0), q)
		a1 := min(max(int32(acc[i+1]), 0), q)
		s0 += int64(a0*int32(w[i])) * int64(a0)
		s1 += int64(a1*int32(w[i+1])) * int64(a1)
	}
	for ; i < len(acc); i++ {
		a := min(max(int32(acc[i]), 0), q)
		s0 += int64(a*int32(w[i])) * int64(a)
	}
	return s0 + s1
}
