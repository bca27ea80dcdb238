// Package config holds the YAML configuration schema, its defaults and
// validation, and the loading of the Lichess token.
package config
