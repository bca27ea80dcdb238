// Package uci speaks the Universal Chess Interface both ways: a front end
// that makes ponderosa's engine a UCI engine, and a driver for external UCI
// engines (with real go ponder / ponderhit / stop).
package uci
