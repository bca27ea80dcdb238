package syzygy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// kind tells WDL tables (.rtbw) from DTZ tables (.rtbz).
type kind uint8

const (
	kindWDL kind = iota
	kindDTZ
)

// Magic bytes at the start of each kind of file.
const (
	magicWDL = "\x71\xE8\x23\x5D"
	magicDTZ = "\xD7\x66\x0C\xA5"
)

func (k kind) ext() string {
	if k == kindDTZ {
		return ".rtbz"
	}
	return ".rtbw"
}

// Flags of a pairs section (one per side and pawn file).
const (
	flagSTM         = 1    // DTZ: the side to move the table stores (1 = black)
	flagMapped      = 2    // DTZ: values go through the table's value map
	flagWinPlies    = 4    // DTZ: win distances are stored in plies, not moves
	flagLossPlies   = 8    // DTZ: loss distances are stored in plies
	flagWide        = 16   // DTZ: the value map holds 16-bit values
	flagSingleValue = 0x80 // every position holds the same value
)

// errCorrupt marks a table file whose contents do not follow the format.
var errCorrupt = errors.New("corrupt table")

// pairs describes one compressed section of a table: the positions of one
// side to move and (pawn tables) one leading-pawn file. Offsets point into
// the table's file.
type pairs struct {
	flags  uint8
	single int // the value of every position with flagSingleValue

	pieces   [maxPieces]board.Piece // the encoding order of the pieces
	groupLen [maxPieces + 1]int     // pieces per group, zero-terminated
	groupIdx [maxPieces + 1]uint64  // the multiplier of each group; last: the size
	groups   int

	blockSize   uint64 // bytes per compressed block
	span        uint64 // positions per sparse index entry
	sparseOff   int    // sparse index: 6 bytes per entry (block uint32, offset uint16)
	sparseCount uint64
	blockLenOff int // block lengths: uint16 per block (positions - 1)
	blockLens   uint64
	blocks      uint64
	dataOff     int

	minSymLen int
	lowestOff int      // uint16 per code length: the first symbol of that length
	base      []uint64 // per code length, the lowest code left-aligned to 64 bits
	symLen    []uint8  // per symbol, the number of values it stands for, minus 1
	treeOff   int      // 3 bytes per symbol: left and right child (12 bits each)

	mapIdx [4]int // DTZ value map: start of each result's map (see dtzValue)
}

// table is one file, opened on its first probe.
type table struct {
	name      string // e.g. KQvKR
	path      string
	kind      kind
	key       uint64 // material key with the named first side as White
	mirrorKey uint64 // the same material with colours swapped
	pieces    int
	pawns     bool
	unique    bool   // some non-king piece is alone of its kind and colour
	pawnCount [2]int // pawns of the leading colour, of the other
	symmetric bool
	sides     int // sections per file: 2 for asymmetric WDL tables, else 1
	files     int // 4 for pawn tables (leading pawn on files a-d), else 1
	material  [16]int8

	ready atomic.Bool
	mu    sync.Mutex
	// err is the last failure to open the file, at errAt: a format error
	// (errCorrupt) is kept for good, any other (a file that cannot be
	// opened or mapped now: too many open files, no memory) is retried
	// once retryAfter has passed.
	err    error
	errAt  time.Time
	m      mapping
	data   []byte
	pd     [4][2]pairs
	mapOff int
}

// retryAfter is how long a table that failed to open for a reason other
// than its format waits before it is tried again.
const retryAfter = time.Minute

// ensure opens and checks the file on first use; it is safe for
// concurrent callers and cheap once the table is ready. A file whose
// format is wrong fails for good; any other failure is returned until
// retryAfter has passed, then the file is tried again.
func (t *table) ensure() error {
	if t.ready.Load() {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ready.Load() {
		return nil
	}
	if t.err != nil && (errors.Is(t.err, errCorrupt) || time.Since(t.errAt) < retryAfter) {
		return t.err
	}
	if err := t.open(); err != nil {
		t.err, t.errAt = fmt.Errorf("syzygy table %s: %w", t.path, err), time.Now()
		return t.err
	}
	t.err = nil
	t.ready.Store(true)
	return nil
}

func (t *table) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ready.Store(false)
	t.data = nil
	if t.m == nil {
		return nil
	}
	err := t.m.Close()
	t.m = nil
	return err
}

// reader walks a table's header with bounds checks: reading past the end
// records an error and yields zeros.
type reader struct {
	data []byte
	off  int
	err  error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if r.off < 0 || n < 0 || r.off+n > len(r.data) {
		r.err = fmt.Errorf("%w: header ends at byte %d of %d", errCorrupt, r.off+n, len(r.data))
		return false
	}
	return true
}

func (r *reader) u8() int {
	if !r.need(1) {
		return 0
	}
	r.off++
	return int(r.data[r.off-1])
}

func (r *reader) u16() int {
	if !r.need(2) {
		return 0
	}
	r.off += 2
	return int(binary.LittleEndian.Uint16(r.data[r.off-2:]))
}

func (r *reader) u32() uint64 {
	if !r.need(4) {
		return 0
	}
	r.off += 4
	return uint64(binary.LittleEndian.Uint32(r.data[r.off-4:]))
}

// open maps the file and reads its header, checking every size.
func (t *table) open() error {
	m, err := openMapping(t.path)
	if err != nil {
		return err
	}
	if err := t.parse(m.Bytes()); err != nil {
		m.Close()
		return err
	}
	t.m = m
	t.data = m.Bytes()
	return nil
}

func (t *table) parse(data []byte) error {
	want := magicWDL
	if t.kind == kindDTZ {
		want = magicDTZ
	}
	if len(data) < 6 || string(data[:4]) != want {
		return fmt.Errorf("%w: bad magic bytes (not a Syzygy %s file)", errCorrupt, t.kind.ext())
	}
	flags := data[4]
	if (flags&2 != 0) != t.pawns {
		return fmt.Errorf("%w: pawn flag does not match the name", errCorrupt)
	}
	if t.kind == kindWDL && (flags&1 != 0) != (t.sides == 2) {
		return fmt.Errorf("%w: side flag does not match the material", errCorrupt)
	}
	r := &reader{data: data, off: 5}
	both := t.pawns && t.pawnCount[1] > 0
	for f := 0; f < t.files; f++ {
		o := r.u8()
		o2 := 0xFF
		if both {
			o2 = r.u8()
		}
		order := [2][2]int{{o & 0xF, o2 & 0xF}, {o >> 4, o2 >> 4}}
		for k := 0; k < t.pieces; k++ {
			b := r.u8()
			t.pd[f][0].pieces[k] = board.Piece(b & 0xF)
			t.pd[f][1].pieces[k] = board.Piece(b >> 4)
		}
		if r.err != nil {
			return r.err
		}
		for s := 0; s < t.sides; s++ {
			if err := t.setGroups(&t.pd[f][s], order[s], f); err != nil {
				return err
			}
		}
	}
	r.off += r.off & 1
	for f := 0; f < t.files; f++ {
		for s := 0; s < t.sides; s++ {
			if err := t.setSizes(&t.pd[f][s], r); err != nil {
				return err
			}
		}
	}
	if r.err != nil {
		return r.err
	}
	if t.kind == kindDTZ {
		t.mapOff = r.off
		for f := 0; f < t.files; f++ {
			d := &t.pd[f][0]
			if d.flags&flagMapped == 0 {
				continue
			}
			if d.flags&flagWide != 0 {
				r.off += r.off & 1
				for i := 0; i < 4; i++ {
					d.mapIdx[i] = (r.off-t.mapOff)/2 + 1
					n := r.u16()
					r.off += 2 * n
				}
			} else {
				for i := 0; i < 4; i++ {
					d.mapIdx[i] = r.off - t.mapOff + 1
					n := r.u8()
					r.off += n
				}
			}
		}
		r.off += r.off & 1
	}
	// Offsets grow by sizes that a corrupt header may make huge: stop at
	// the first that leaves the file.
	limit := uint64(len(data))
	grow := func(count, size uint64) {
		if r.err == nil && !inside(uint64(r.off), count, size, len(data)) {
			r.err = fmt.Errorf("%w: truncated: %d bytes, the header describes more", errCorrupt, len(data))
		}
		if r.err == nil {
			r.off += int(count * size)
		} else {
			r.off = int(limit) // reads stop here; r.err is returned
		}
	}
	for f := 0; f < t.files; f++ {
		for s := 0; s < t.sides; s++ {
			d := &t.pd[f][s]
			d.sparseOff = r.off
			grow(d.sparseCount, 6)
		}
	}
	for f := 0; f < t.files; f++ {
		for s := 0; s < t.sides; s++ {
			d := &t.pd[f][s]
			d.blockLenOff = r.off
			grow(d.blockLens, 2)
		}
	}
	for f := 0; f < t.files; f++ {
		for s := 0; s < t.sides; s++ {
			d := &t.pd[f][s]
			r.off = (r.off + 63) &^ 63
			d.dataOff = r.off
			grow(d.blocks, d.blockSize)
		}
	}
	if r.err != nil {
		return r.err
	}
	// Every region a section reads must lie inside the file (sizes checked
	// one by one, so that no sum can overflow).
	for f := 0; f < t.files; f++ {
		for s := 0; s < t.sides; s++ {
			d := &t.pd[f][s]
			if d.flags&flagSingleValue != 0 {
				continue
			}
			for _, reg := range [3][3]uint64{
				{uint64(d.sparseOff), d.sparseCount, 6},
				{uint64(d.blockLenOff), d.blockLens, 2},
				{uint64(d.dataOff), d.blocks, d.blockSize},
			} {
				if !inside(reg[0], reg[1], reg[2], len(data)) {
					return fmt.Errorf("%w: truncated: %d bytes, the header describes more", errCorrupt, len(data))
				}
			}
		}
	}
	return nil
}

// inside reports whether count items of size bytes from offset off fit in
// a file of n bytes.
func inside(off, count, size uint64, n int) bool {
	if count == 0 || size == 0 {
		return true
	}
	return off <= uint64(n) && count <= (uint64(n)-off)/size
}

// setGroups reads how the pieces of a section are grouped and computes the
// multiplier of each group in the position index.
func (t *table) setGroups(d *pairs, order [2]int, file int) error {
	var count [16]int
	for k := 0; k < t.pieces; k++ {
		count[d.pieces[k]&15]++
	}
	if count != func() (c [16]int) {
		for i, n := range t.material {
			c[i] = int(n)
		}
		return c
	}() {
		return fmt.Errorf("%w: pieces in the header do not match the name", errCorrupt)
	}
	first := 2
	if t.pawns {
		first = 0
	} else if t.unique {
		first = 3
	}
	n := 0
	d.groupLen[0] = 1
	for i := 1; i < t.pieces; i++ {
		first--
		if first > 0 || d.pieces[i] == d.pieces[i-1] {
			d.groupLen[n]++
		} else {
			n++
			d.groupLen[n] = 1
		}
	}
	n++
	d.groupLen[n] = 0
	d.groups = n
	for g := 0; g < n; g++ {
		if d.groupLen[g] >= maxPieces {
			return fmt.Errorf("%w: group of %d pieces", errCorrupt, d.groupLen[g])
		}
	}
	if t.pawns && d.pieces[0].Type() != board.Pawn {
		return fmt.Errorf("%w: pawn table does not start with a pawn", errCorrupt)
	}

	both := t.pawns && t.pawnCount[1] > 0
	next := 1
	free := 64 - d.groupLen[0]
	if both {
		next = 2
		free -= d.groupLen[1]
	}
	idx := uint64(1)
	seen := 0
	for k := 0; next < n || k == order[0] || k == order[1]; k++ {
		if k > 15 {
			return fmt.Errorf("%w: bad group order", errCorrupt)
		}
		switch {
		case k == order[0]:
			seen++
			d.groupIdx[0] = idx
			switch {
			case t.pawns:
				idx *= tables.leadPawnCount[d.groupLen[0]][file]
			case t.unique:
				idx *= 31332
			default:
				idx *= 462
			}
		case k == order[1]:
			seen++
			d.groupIdx[1] = idx
			idx *= tables.binom[d.groupLen[1]][48-d.groupLen[0]]
		default:
			d.groupIdx[next] = idx
			idx *= tables.binom[d.groupLen[next]][free]
			free -= d.groupLen[next]
			next++
		}
	}
	if want := 1 + boolInt(both); seen != want {
		return fmt.Errorf("%w: bad group order", errCorrupt)
	}
	d.groupIdx[n] = idx
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setSizes reads a section's compression parameters and symbol tree.
func (t *table) setSizes(d *pairs, r *reader) error {
	d.flags = uint8(r.u8())
	if d.flags&flagSingleValue != 0 {
		d.single = r.u8()
		return r.err
	}
	size := d.groupIdx[d.groups]
	bs, sp := r.u8(), r.u8()
	if r.err == nil && (bs > 24 || sp > 32) {
		return fmt.Errorf("%w: block size 2^%d, span 2^%d", errCorrupt, bs, sp)
	}
	d.blockSize = 1 << bs
	d.span = 1 << sp
	d.sparseCount = (size + d.span - 1) / d.span
	padding := r.u8()
	d.blocks = r.u32()
	d.blockLens = d.blocks + uint64(padding)
	maxLen, minLen := r.u8(), r.u8()
	if r.err != nil {
		return r.err
	}
	if maxLen < minLen || maxLen > 64 {
		return fmt.Errorf("%w: symbol lengths %d..%d", errCorrupt, minLen, maxLen)
	}
	d.minSymLen = minLen
	d.lowestOff = r.off
	n := maxLen - minLen + 1
	r.off += 2 * n
	if !r.need(0) {
		return r.err
	}
	lowest := func(i int) uint64 {
		return uint64(binary.LittleEndian.Uint16(r.data[d.lowestOff+2*i:]))
	}
	d.base = make([]uint64, n)
	for i := n - 2; i >= 0; i-- {
		d.base[i] = (d.base[i+1] + lowest(i) - lowest(i+1)) / 2
	}
	for i := 0; i < n; i++ {
		d.base[i] <<= uint(64 - i - minLen)
	}
	syms := r.u16()
	d.treeOff = r.off
	r.off += 3*syms + syms&1
	if !r.need(0) {
		return r.err
	}
	d.symLen = make([]uint8, syms)
	visited := make([]bool, syms)
	for s := 0; s < syms; s++ {
		if !visited[s] {
			l, err := d.setSymLen(r.data, s, visited)
			if err != nil {
				return err
			}
			d.symLen[s] = l
		}
	}
	return nil
}

// children returns the two symbols a symbol stands for; a leaf has right
// 0xFFF and its value in left.
func (d *pairs) children(data []byte, s int) (left, right int) {
	p := data[d.treeOff+3*s:]
	return int(p[0]) | int(p[1]&0xF)<<8, int(p[1]>>4) | int(p[2])<<4
}

func (d *pairs) setSymLen(data []byte, s int, visited []bool) (uint8, error) {
	visited[s] = true
	left, right := d.children(data, s)
	if right == 0xFFF {
		return 0, nil
	}
	if left >= len(visited) || right >= len(visited) {
		return 0, fmt.Errorf("%w: symbol %d refers to %d/%d of %d", errCorrupt, s, left, right, len(visited))
	}
	for _, c := range [2]int{left, right} {
		if !visited[c] {
			l, err := d.setSymLen(data, c, visited)
			if err != nil {
				return 0, err
			}
			d.symLen[c] = l
		}
	}
	n := int(d.symLen[left]) + int(d.symLen[right]) + 1
	if n > 255 {
		return 0, fmt.Errorf("%w: symbol %d too long", errCorrupt, s)
	}
	return uint8(n), nil
}

// errDecode is returned when the compressed data leads out of its bounds.
var errDecode = fmt.Errorf("%w: compressed data out of bounds", errCorrupt)

// value decompresses the value stored at index idx of section d. Every
// read is bounds-checked against the regions parse validated; should a
// damaged file still lead a read astray, the recover turns Go's bounds
// panic into errDecode.
func (t *table) value(d *pairs, idx uint64) (v int, err error) {
	if d.flags&flagSingleValue != 0 {
		return d.single, nil
	}
	defer func() {
		if recover() != nil {
			v, err = 0, errDecode
		}
	}()
	data := t.data
	k := idx / d.span
	if k >= d.sparseCount {
		return 0, errDecode
	}
	e := d.sparseOff + 6*int(k)
	block := uint64(binary.LittleEndian.Uint32(data[e:]))
	offset := int(binary.LittleEndian.Uint16(data[e+4:]))
	offset += int(idx%d.span) - int(d.span/2)
	blockLen := func(b uint64) int {
		return int(binary.LittleEndian.Uint16(data[d.blockLenOff+2*int(b):]))
	}
	if block >= d.blockLens {
		return 0, errDecode
	}
	for offset < 0 {
		if block == 0 {
			return 0, errDecode
		}
		block--
		offset += blockLen(block) + 1
	}
	for offset > blockLen(block) {
		offset -= blockLen(block) + 1
		block++
		if block >= d.blockLens {
			return 0, errDecode
		}
	}
	if block >= d.blocks {
		return 0, errDecode
	}
	p := d.dataOff + int(block*d.blockSize)
	word := func(at int) uint64 {
		if at+4 > len(data) {
			return 0
		}
		return uint64(binary.BigEndian.Uint32(data[at:]))
	}
	buf := word(p)<<32 | word(p+4)
	p += 8
	bits := 64
	lowest := d.lowestOff
	var sym int
	for {
		l := 0
		for buf < d.base[l] {
			l++
			if l >= len(d.base) {
				return 0, errDecode
			}
		}
		sym = int((buf-d.base[l])>>uint(64-l-d.minSymLen)) +
			int(binary.LittleEndian.Uint16(data[lowest+2*l:]))
		if sym >= len(d.symLen) {
			return 0, errDecode
		}
		if offset < int(d.symLen[sym])+1 {
			break
		}
		offset -= int(d.symLen[sym]) + 1
		l += d.minSymLen
		buf <<= uint(l)
		bits -= l
		if bits <= 32 {
			bits += 32
			buf |= word(p) << uint(64-bits)
			p += 4
		}
	}
	for steps := 0; d.symLen[sym] != 0; steps++ {
		if steps > 256 {
			return 0, errDecode
		}
		left, right := d.children(data, sym)
		if offset < int(d.symLen[left])+1 {
			sym = left
		} else {
			offset -= int(d.symLen[left]) + 1
			sym = right
		}
	}
	left, _ := d.children(data, sym)
	return left, nil
}
