// Package lichesstest is a Lichess-compatible HTTP server for tests and the
// demo, written from the official Lichess OpenAPI spec (like
// net/http/httptest: a fake that lives beside the thing it fakes).
package lichesstest
