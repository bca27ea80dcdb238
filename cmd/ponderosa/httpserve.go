package main

import (
	"context"
	"net"

	"github.com/rs/zerolog"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/monitor"
)

// startHTTP serves srv on addr until ctx ends (http.listen, or demo's
// -http). It says in the log where it serves, and warns when the
// address is reachable from other machines (loudly without an access
// token, warn). The returned wait returns once the server has shut down.
func startHTTP(ctx context.Context, addr, warn string, srv *monitor.Server, log zerolog.Logger) (bound net.Addr, wait func(), err error) {
	ln, err := monitor.Listen(addr)
	if err != nil {
		return nil, nil, err
	}
	if warn != "" {
		log.Warn().Msg(warn)
	}
	log.Info().Str("listen", ln.Addr().String()).Bool("loopback_only", config.ListenLoopback(addr)).
		Msg("http: serving /healthz and /metrics")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ctx, ln); err != nil {
			log.Error().Err(err).Msg("http server stopped")
		}
	}()
	return ln.Addr(), func() { <-done }, nil
}
