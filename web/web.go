package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
)

//go:embed assets
var assets embed.FS

// Options tune the handler.
type Options struct {
	// MinInterval is the least time between two updates sent to one
	// client (updates in between are coalesced); 0 means 250 ms.
	MinInterval time.Duration
	// Heartbeat is how often an idle event stream sends a comment line, so
	// that proxies keep it open; 0 means 15 s.
	Heartbeat time.Duration
	// ArchiveLimit is how many archived games a listing returns at most
	// when the request asks for none; 0 means 100.
	ArchiveLimit int
}

type handler struct {
	src  Source
	opts Options
	mux  *http.ServeMux
}

// New returns the web view's handler over src (see the package doc for its
// routes). Mount it at the root of a server or under a prefix with
// http.StripPrefix.
func New(src Source, opts Options) http.Handler {
	if opts.MinInterval <= 0 {
		opts.MinInterval = 250 * time.Millisecond
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.ArchiveLimit <= 0 {
		opts.ArchiveLimit = 100
	}
	h := &handler{src: src, opts: opts, mux: http.NewServeMux()}
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	files := http.FileServerFS(sub)
	h.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, sub, "index.html")
	})
	h.mux.Handle("GET /assets/", http.StripPrefix("/assets/", files))
	h.mux.HandleFunc("GET /api/games", h.games)
	h.mux.HandleFunc("GET /api/games/{id}", h.game)
	h.mux.HandleFunc("GET /api/games/{id}/tree", h.tree)
	h.mux.HandleFunc("GET /api/queue", h.queue)
	h.mux.HandleFunc("GET /api/archive", h.archive)
	h.mux.HandleFunc("GET /events", h.events)
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.mux.ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeErr(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

func (h *handler) allGames() []gameJSON {
	gs := h.src.Games()
	out := make([]gameJSON, 0, len(gs))
	for i := range gs {
		out = append(out, gameOf(&gs[i]))
	}
	return out
}

func (h *handler) games(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.allGames())
}

func (h *handler) game(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, g := range h.allGames() {
		if g.ID == id {
			writeJSON(w, http.StatusOK, g)
			return
		}
	}
	writeErr(w, http.StatusNotFound, fmt.Errorf("game %q: %w", id, ErrNoGame))
}

// treeJSON answers /api/games/{id}/tree.
type treeJSON struct {
	Node     string     `json:"node"`
	Children []nodeJSON `json:"children"`
}

func (h *handler) tree(w http.ResponseWriter, r *http.Request) {
	id, ref := r.PathValue("id"), r.URL.Query().Get("node")
	ns, err := h.src.Expand(id, ref)
	switch {
	case errors.Is(err, ErrNoGame):
		writeErr(w, http.StatusNotFound, err)
	case errors.Is(err, ponder.ErrStaleRef):
		writeErr(w, http.StatusGone, err)
	case errors.Is(err, ponder.ErrBadRef):
		writeErr(w, http.StatusBadRequest, err)
	case err != nil:
		writeErr(w, http.StatusInternalServerError, fmt.Errorf("expanding %s of game %s: %w", ref, id, err))
	default:
		writeJSON(w, http.StatusOK, treeJSON{Node: ref, Children: nodesOf(ns)})
	}
}

func (h *handler) queue(w http.ResponseWriter, r *http.Request) {
	q := h.src.Queue()
	if q == nil {
		q = []Challenge{}
	}
	writeJSON(w, http.StatusOK, q)
}

// archiveJSON is one finished game in a listing.
type archiveJSON struct {
	ID          string    `json:"id"`
	URL         string    `json:"url,omitempty"`
	White       string    `json:"white"`
	Black       string    `json:"black"`
	WhiteRating int       `json:"whiteRating,omitempty"`
	BlackRating int       `json:"blackRating,omitempty"`
	Our         string    `json:"our"`
	Speed       string    `json:"speed,omitempty"`
	Variant     string    `json:"variant,omitempty"`
	Rated       bool      `json:"rated,omitempty"`
	Result      string    `json:"result"`
	Termination string    `json:"termination,omitempty"`
	Ended       time.Time `json:"ended"`
	Moves       int       `json:"moves"`
	PGN         string    `json:"pgn"`
}

// parseFilter reads an archive filter from the query.
func (h *handler) parseFilter(r *http.Request) (store.Filter, error) {
	q := r.URL.Query()
	f := store.Filter{Opponent: q.Get("opponent"), Result: q.Get("result"), Speed: q.Get("speed"), Limit: h.opts.ArchiveLimit}
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			if t, err = time.Parse(time.DateOnly, s); err != nil {
				return f, fmt.Errorf("since %q: want RFC 3339 or YYYY-MM-DD", s)
			}
		}
		f.Since = t
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return f, fmt.Errorf("limit %q: want a positive number", s)
		}
		f.Limit = min(n, 10*h.opts.ArchiveLimit)
	}
	return f, nil
}

func (h *handler) archive(w http.ResponseWriter, r *http.Request) {
	f, err := h.parseFilter(r)
	if err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	gs, err := h.src.Archive(r.Context(), f)
	if err != nil {
		writeErr(w, http.StatusServiceUnavailable, fmt.Errorf("reading the archive: %w", err))
		return
	}
	out := make([]archiveJSON, 0, len(gs))
	for _, g := range gs {
		n := g.MoveCount
		if n == 0 {
			n = len(g.Moves)
		}
		out = append(out, archiveJSON{ID: g.ID, URL: g.URL, White: g.White, Black: g.Black,
			WhiteRating: g.WhiteRating, BlackRating: g.BlackRating, Our: g.OurColor, Speed: g.Speed,
			Variant: g.Variant, Rated: g.Rated, Result: g.Result, Termination: g.Termination, Ended: g.Ended,
			Moves: n, PGN: g.PGN})
	}
	writeJSON(w, http.StatusOK, out)
}

// sse writes server-sent events.
type sse struct {
	w http.ResponseWriter
	f *http.ResponseController
}

func (s *sse) send(event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s event: %w", event, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, b); err != nil {
		return err
	}
	return nil
}

func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	s := &sse{w: w, f: http.NewResponseController(w)}
	// The stream outlives a server's WriteTimeout: lift it for this
	// response (an error means the writer has none to lift).
	_ = s.f.SetWriteDeadline(time.Time{})
	ctx := r.Context()
	st := newStreamState()
	hb := time.NewTicker(h.opts.Heartbeat)
	defer hb.Stop()
	first := true
	for {
		changed := h.src.Changed() // taken before reading, so no change is missed
		if err := h.push(s, st, first); err != nil {
			return
		}
		first = false
		if err := s.f.Flush(); err != nil {
			return
		}
		// coalesce: at most one update per MinInterval
		select {
		case <-ctx.Done():
			return
		case <-time.After(h.opts.MinInterval):
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-changed:
				break wait
			case <-hb.C:
				if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
					return
				}
				if err := s.f.Flush(); err != nil {
					return
				}
			}
		}
	}
}

// push sends what changed since the last push ("state" the first time).
func (h *handler) push(s *sse, st *streamState, first bool) error {
	gs := h.src.Games()
	q := h.src.Queue()
	if q == nil {
		q = []Challenge{}
	}
	if first {
		all := make([]gameJSON, 0, len(gs))
		for i := range gs {
			all = append(all, gameOf(&gs[i]))
			st.remember(&gs[i])
		}
		st.queue = queueKey(q)
		return s.send("state", map[string]any{"games": all, "queue": q})
	}
	for _, ev := range st.diff(gs) {
		if err := s.send(ev.name, ev.data); err != nil {
			return err
		}
	}
	if k := queueKey(q); k != st.queue {
		st.queue = k
		return s.send("queue", q)
	}
	return nil
}

func queueKey(q []Challenge) string {
	var b strings.Builder
	for _, c := range q {
		b.WriteString(c.ID)
		b.WriteByte(',')
	}
	return b.String()
}

// streamState is what one client was last sent of each game.
type streamState struct {
	games map[string]*sent
	queue string
}

type sent struct {
	moves   []string
	fen     string
	gen     uint32
	evals   int
	clock   clockJSON
	search  searchJSON
	lastPly int
}

func newStreamState() *streamState { return &streamState{games: make(map[string]*sent)} }

func (st *streamState) remember(g *GameView) {
	s := &g.Snapshot
	x := &sent{moves: s.Moves, fen: s.FEN, gen: s.Generation, evals: len(s.Evals), search: searchOf(s), lastPly: -1}
	if c := clockOf(g); c != nil {
		x.clock = *c
	}
	if s.HasLast {
		x.lastPly = s.LastMove.Ply
	}
	st.games[g.ID] = x
}

type event struct {
	name string
	data any
}

// diff lists the events that bring a client from st to gs, and updates st.
func (st *streamState) diff(gs []GameView) []event {
	var evs []event
	seen := make(map[string]bool, len(gs))
	for i := range gs {
		g := &gs[i]
		seen[g.ID] = true
		s := &g.Snapshot
		old, ok := st.games[g.ID]
		if !ok || !extends(s.Moves, old.moves) || len(s.Moves) == len(old.moves) && s.FEN != old.fen {
			evs = append(evs, event{"game", gameOf(g)})
			st.remember(g)
			continue
		}
		c := clockOf(g)
		var cv clockJSON
		if c != nil {
			cv = *c
		}
		lastPly := -1
		if s.HasLast {
			lastPly = s.LastMove.Ply
		}
		// The clocks go with the moves; alone, only when the running side
		// changes (a source may read them anew at each call).
		if len(s.Moves) > len(old.moves) || len(s.Evals) > old.evals || cv.Run != old.clock.Run || lastPly != old.lastPly {
			m := moveJSON{ID: g.ID, From: len(old.moves), Moves: s.Moves[len(old.moves):], FEN: s.FEN, Clock: c, Gen: s.Generation}
			if m.Moves == nil {
				m.Moves = []string{}
			}
			if len(s.Evals) > old.evals {
				if m.Evals = evalsOf(s.Evals[old.evals:]); len(m.Evals) == 0 {
					m.Evals = nil
				}
			}
			if lastPly != old.lastPly {
				m.Last = lastOf(s)
			}
			evs = append(evs, event{"move", m})
		}
		if sj := searchOf(s); !sameSearch(sj, old.search) {
			evs = append(evs, event{"search", searchEventJSON{ID: g.ID, searchJSON: sj}})
		}
		st.remember(g)
	}
	for id := range st.games {
		if !seen[id] {
			evs = append(evs, event{"gone", map[string]string{"id": id}})
			delete(st.games, id)
		}
	}
	return evs
}

// extends reports whether moves starts with old.
func extends(moves, old []string) bool {
	if len(moves) < len(old) {
		return false
	}
	for i := range old {
		if moves[i] != old[i] {
			return false
		}
	}
	return true
}

func sameSearch(a, b searchJSON) bool {
	return a.Active == b.Active && a.Pondering == b.Pondering && a.Ply == b.Ply && a.Depth == b.Depth &&
		a.Score == b.Score && a.Bound == b.Bound && a.Nodes == b.Nodes && a.PonderOn == b.PonderOn &&
		a.TreeNodes == b.TreeNodes
}

// assetsSize is the total size of the embedded page (tests check the first
// page's budget).
func assetsSize() (int64, error) {
	var n int64
	err := fs.WalkDir(assets, "assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}
