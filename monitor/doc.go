// Package monitor is the daemon's read-only HTTP server and what it
// serves of its own: /healthz (whether the Lichess event stream shows
// life) and /metrics (the Prometheus text format, every name starting
// with ponderosa_).
//
// Server holds an http.ServeMux on which other handlers mount (the web
// view, package web): Handle. When an access token is set every request,
// /healthz included, must carry it ("Authorization: Bearer <token>" or
// ?access_token=<token>), compared in constant time; it is never logged
// nor served. The server stops gracefully when its context ends.
//
// Metrics owns a metrics.Set (github.com/VictoriaMetrics/metrics; no
// package-level set is used) and implements client.Observer and
// lichess.Observer, so that neither client package knows a metrics
// library; cmd/ponderosa makes one per daemon (and one for `ponderosa
// demo -http`). Gauges that describe the present (games running, bot
// games left today, tree and hash memory) are read when scraped.
package monitor
