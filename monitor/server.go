package monitor

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Options configure a Server.
type Options struct {
	// AccessToken, when set, is asked of every request but those under
	// Public. Never logged.
	AccessToken string
	// Public lists path prefixes served without the access token: static
	// files that hold no data (the web view's scripts and styles, which a
	// browser loads without the page's query).
	Public []string
	// Metrics is served on /metrics (nil: no /metrics).
	Metrics *Metrics
	// StreamActivity returns when the event stream last showed life, the
	// zero time while it has never been open (nil: /healthz always
	// answers 200, e.g. for the demo).
	StreamActivity func() time.Time
	// HealthWindow is how long the stream may stay silent before /healthz
	// answers 503 (0: 2 minutes).
	HealthWindow time.Duration
	// Now is the clock (nil: time.Now); tests set it.
	Now func() time.Time
	// Log gets the server's own errors; it never sees a request's query
	// or headers.
	Log zerolog.Logger
}

// Server is the daemon's read-only HTTP server. Make it with New, mount
// handlers with Handle, then Listen and Serve.
type Server struct {
	o   Options
	mux *http.ServeMux
}

// handlerTimeout bounds the writing of an answer of the server's own
// routes (a slow client cannot hold them); handlers mounted with Handle
// have no write deadline, so that server-sent events can stream.
const handlerTimeout = 30 * time.Second

// New makes a server with /healthz and, with o.Metrics, /metrics.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HealthWindow <= 0 {
		o.HealthWindow = 2 * time.Minute
	}
	s := &Server{o: o, mux: http.NewServeMux()}
	s.mux.Handle("GET /healthz", WithWriteTimeout(handlerTimeout, http.HandlerFunc(s.healthz)))
	if o.Metrics != nil {
		s.mux.Handle("GET /metrics", WithWriteTimeout(handlerTimeout, http.HandlerFunc(s.metrics)))
	}
	return s
}

// Handle mounts h on pattern (http.ServeMux patterns, e.g. "GET /games").
// The access token is checked before h runs. No write deadline is set:
// h sets its own (WithWriteTimeout) unless it streams.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Handler is the server's whole handler: the access check, then the mux.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	if s.o.AccessToken != "" && !s.public(r.URL.Path) && !tokenMatches(r, s.o.AccessToken) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ponderosa"`)
		http.Error(w, "access token required: Authorization: Bearer <http.access_token>, or ?access_token=", http.StatusUnauthorized)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

// public reports whether path is under one of Options.Public.
func (s *Server) public(path string) bool {
	for _, p := range s.o.Public {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// tokenMatches reports whether r carries token, in constant time.
func tokenMatches(r *http.Request, token string) bool {
	got := r.URL.Query().Get("access_token")
	if h := r.Header.Get("Authorization"); h != "" {
		if scheme, t, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			got = strings.TrimSpace(t)
		}
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// WithWriteTimeout sets a write deadline of d on each answer of h (for
// answers that do not stream; the server itself has none).
func WithWriteTimeout(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d)) // not every writer has one (tests)
		h.ServeHTTP(w, r)
	})
}

// Health is /healthz's answer.
type Health struct {
	Status string `json:"status"` // "ok", "stale", or "not_connected" (the stream was never open)
	// StreamSilenceSeconds is how long the event stream has been silent.
	StreamSilenceSeconds float64 `json:"event_stream_silence_seconds"`
	WindowSeconds        float64 `json:"window_seconds"`
}

// Health says whether the event stream showed life within the window.
func (s *Server) Health() Health {
	h := Health{Status: "ok", WindowSeconds: s.o.HealthWindow.Seconds()}
	if s.o.StreamActivity == nil {
		return h
	}
	last := s.o.StreamActivity()
	if last.IsZero() {
		h.Status = "not_connected"
		return h
	}
	silence := max(s.o.Now().Sub(last), 0)
	h.StreamSilenceSeconds = silence.Round(time.Millisecond).Seconds()
	if silence >= s.o.HealthWindow {
		h.Status = "stale"
	}
	return h
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := s.Health()
	w.Header().Set("Content-Type", "application/json")
	if h.Status != "ok" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(h)
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if err := s.o.Metrics.WritePrometheus(w); err != nil {
		s.o.Log.Debug().Err(err).Msg("http: /metrics answer cut short")
	}
}

// Listen opens addr (host:port) for Serve.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http: listen on %s: %w", addr, err)
	}
	return ln, nil
}

// Serve answers on ln until ctx ends, then shuts down: requests in
// flight get up to 5 seconds (streams are cut), and ln is closed. It
// returns nil after a shutdown, or the error that stopped it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// No WriteTimeout: streams (server-sent events) write for long;
		// the routes that do not stream set their own deadline.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 16 << 10,
		BaseContext:    func(net.Listener) context.Context { return ctx },
		ErrorLog:       nil,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("http: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("http: shut down: %w", err)
	}
	return nil
}
