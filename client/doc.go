// Package client is the Lichess Bot API client: HTTP, NDJSON streams, rate
// limits, reconnects, the challenge policy, game workers and their clocks.
package client
