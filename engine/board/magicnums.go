package board

// Magic multipliers found by initMagics' deterministic search (printed by
// TestPrintMagics with -v). They only speed up start-up: init verifies each
// one and searches again for any entry that is zero or does not work.
var rookMagicNumbers = [64]uint64{}

var bishopMagicNumbers = [64]uint64{}
