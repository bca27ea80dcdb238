package web

import (
	"github.com/ponderosa-chess/ponderosa/ponder"
)

// The wire format: short keys, times in milliseconds, so that a move's
// update stays small.

type clockJSON struct {
	W   int64  `json:"w"`   // ms left, White
	B   int64  `json:"b"`   // ms left, Black
	At  int64  `json:"at"`  // Unix ms when read
	Run string `json:"run"` // side whose clock runs: "w", "b" or ""
}

type searchJSON struct {
	Active    bool     `json:"active"`
	Pondering bool     `json:"pondering,omitempty"`
	Ply       int      `json:"ply"`
	Depth     int      `json:"depth"`
	SelDepth  int      `json:"seldepth,omitempty"`
	Score     int      `json:"score"`
	Mate      int      `json:"mate,omitempty"`
	Bound     string   `json:"bound,omitempty"`
	Nodes     uint64   `json:"nodes"`
	NPS       uint64   `json:"nps,omitempty"`
	TimeMS    int64    `json:"ms"`
	PV        []string `json:"pv,omitempty"`
	PonderOn  string   `json:"ponderOn,omitempty"`
	TreeNodes int      `json:"treeNodes"`
	TreeBytes int      `json:"treeBytes"`
}

// maxPV bounds the PV sent per update.
const maxPV = 24

type evalJSON struct {
	Ply    int    `json:"p"`
	Move   string `json:"m"`
	Score  int    `json:"s"` // White's view
	Mate   int    `json:"mt,omitempty"`
	Depth  int    `json:"d,omitempty"`
	Source string `json:"src,omitempty"`
}

type lastJSON struct {
	Ply          int     `json:"ply"`
	Move         string  `json:"move"`
	Source       string  `json:"source"`
	Depth        int     `json:"depth"`
	Nodes        uint64  `json:"nodes"`
	TimeMS       int64   `json:"ms"`
	NodesBefore  int     `json:"before"`
	KeptNodes    int     `json:"kept"`
	KeptFraction float64 `json:"keptFrac"`
	FreedNodes   int     `json:"freed"`
	Predicted    bool    `json:"predicted"`
	PonderHit    bool    `json:"hit"`
	PonderTop3   bool    `json:"top3"`
	PonderedMS   int64   `json:"ponderedMs,omitempty"`
	DepthAtMove  int     `json:"depthAtMove,omitempty"`
}

type gameJSON struct {
	ID       string     `json:"id"`
	URL      string     `json:"url,omitempty"`
	White    Player     `json:"white"`
	Black    Player     `json:"black"`
	Our      string     `json:"our"`
	Speed    string     `json:"speed,omitempty"`
	Variant  string     `json:"variant,omitempty"`
	Rated    bool       `json:"rated,omitempty"`
	Clock    *clockJSON `json:"clock,omitempty"`
	StartFEN string     `json:"startFen,omitempty"`
	FEN      string     `json:"fen"`
	Moves    []string   `json:"moves"`
	Evals    []evalJSON `json:"evals"`
	Search   searchJSON `json:"search"`
	Last     *lastJSON  `json:"last,omitempty"`
	Gen      uint32     `json:"gen"`
}

// moveJSON is the "move" event: what changed with new moves.
type moveJSON struct {
	ID    string     `json:"id"`
	From  int        `json:"from"`  // index of the first new move
	Moves []string   `json:"moves"` // the new moves
	FEN   string     `json:"fen"`
	Clock *clockJSON `json:"clock,omitempty"`
	Evals []evalJSON `json:"evals,omitempty"` // new evaluations
	Last  *lastJSON  `json:"last,omitempty"`
	Gen   uint32     `json:"gen"`
}

type searchEventJSON struct {
	ID string `json:"id"`
	searchJSON
}

type nodeJSON struct {
	Ref      string `json:"ref"`
	Move     string `json:"move,omitempty"`
	Score    int    `json:"score"`
	Mate     int    `json:"mate,omitempty"`
	Bound    string `json:"bound"`
	Depth    int    `json:"depth"`
	Nodes    uint64 `json:"nodes"`
	Visits   uint32 `json:"visits"`
	Best     string `json:"best,omitempty"`
	Children int    `json:"children"`
}

func clockOf(g *GameView) *clockJSON {
	if !g.HasClock {
		return nil
	}
	c := &clockJSON{W: g.WhiteClock.Milliseconds(), B: g.BlackClock.Milliseconds(), At: g.ClockAt.UnixMilli()}
	if !g.Snapshot.Closed {
		c.Run = "b"
		if g.Snapshot.WhiteToMove {
			c.Run = "w"
		}
	}
	return c
}

func searchOf(s *ponder.Snapshot) searchJSON {
	sv := s.Search
	pv := sv.PV
	if len(pv) > maxPV {
		pv = pv[:maxPV]
	}
	return searchJSON{Active: sv.Active, Pondering: sv.Pondering, Ply: sv.Ply, Depth: sv.Depth,
		SelDepth: sv.SelDepth, Score: sv.Score, Mate: sv.Mate, Bound: sv.Bound, Nodes: sv.Nodes, NPS: sv.NPS,
		TimeMS: sv.Time.Milliseconds(), PV: pv, PonderOn: s.PonderOn, TreeNodes: s.TreeNodes, TreeBytes: s.TreeBytes}
}

// evalsOf lists the evaluations of es for the graph (moves chosen without
// a search have none).
func evalsOf(es []ponder.EvalPoint) []evalJSON {
	out := make([]evalJSON, 0, len(es))
	for _, e := range es {
		if !e.HasScore {
			continue
		}
		out = append(out, evalJSON{Ply: e.Ply, Move: e.Move, Score: e.Score, Mate: e.Mate, Depth: e.Depth, Source: e.Source})
	}
	return out
}

func lastOf(s *ponder.Snapshot) *lastJSON {
	if !s.HasLast {
		return nil
	}
	m := s.LastMove
	return &lastJSON{Ply: m.Ply, Move: m.Move, Source: m.Source.String(), Depth: m.Depth, Nodes: m.Nodes,
		TimeMS: m.TimeUsed.Milliseconds(), NodesBefore: m.TreeNodesBefore, KeptNodes: m.KeptNodes,
		KeptFraction: m.KeptFraction, FreedNodes: m.FreedNodes, Predicted: m.Predicted, PonderHit: m.PonderHit,
		PonderTop3: m.PonderTop3, PonderedMS: m.Pondered.Milliseconds(), DepthAtMove: m.DepthAtMove}
}

func gameOf(g *GameView) gameJSON {
	s := &g.Snapshot
	j := gameJSON{ID: g.ID, URL: g.URL, White: g.White, Black: g.Black, Our: g.OurColor, Speed: g.Speed,
		Variant: g.Variant, Rated: g.Rated, Clock: clockOf(g), FEN: s.FEN, Moves: s.Moves,
		Evals: evalsOf(s.Evals), Search: searchOf(s), Last: lastOf(s), Gen: s.Generation}
	if s.StartFEN != "" && s.StartFEN != startFEN {
		j.StartFEN = s.StartFEN
	}
	if j.Moves == nil {
		j.Moves = []string{}
	}
	return j
}

const startFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

func nodesOf(ns []ponder.NodeView) []nodeJSON {
	out := make([]nodeJSON, 0, len(ns))
	for _, n := range ns {
		out = append(out, nodeJSON{Ref: n.Ref, Move: n.Move, Score: n.Score, Mate: n.Mate, Bound: n.Bound,
			Depth: n.Depth, Nodes: n.Nodes, Visits: n.Visits, Best: n.Best, Children: n.Children})
	}
	return out
}
