// Package lichessbot translates a lichess-bot configuration (its
// config.yml) into a ponderosa configuration: `ponderosa import-lichess-bot`.
//
// Import reads the file with the yaml.v3 node API, so that a key with a
// wrong type is reported with its line, and walks it key by key: every key
// is either translated, reported as a setting with no equivalent (with
// why), reported as not yet supported, or reported as unknown. Nothing is
// dropped silently. The file is read as lichess-bot's PyYAML reads it:
// YAML 1.1 booleans (yes, no, on, off) and merge keys ("<<: *anchor").
// Keys left out of the file take lichess-bot's defaults (as its
// lib/config.py sets them at version 2026.8.2.1), so that the ponderosa
// configuration behaves as the lichess-bot one did, even where ponderosa's
// own defaults differ; values lichess-bot runs with but ponderosa's
// validation refuses become what lichess-bot does with them, with a note.
//
// The Lichess token is never written into the result: the report says how
// to hand it over (config.TokenEnv, lichess.token_file or the systemd
// credential). The YAML is checked with config.Parse, the same validation
// `ponderosa check-config` runs, and Result.Problems holds what it finds.
//
// Key names and meanings were read from lichess-bot's config.yml.default
// and lib/config.py at commit bedd1d9; no text or code of lichess-bot is
// part of this package.
package lichessbot
