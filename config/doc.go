// Package config holds the YAML configuration schema, its defaults and
// validation, and the loading of the Lichess token.
//
// A file is decoded strictly over Default(): a key left out keeps its
// default, an unknown or misspelt key is an error naming its line (with a
// did-you-mean), and every problem of a file is reported together as Errors,
// each saying what to change:
//
//	cfg, err := config.Load("/etc/ponderosa/config.yaml")
//	if err != nil {
//		fmt.Fprintln(os.Stderr, err) // one problem a line
//		os.Exit(1)
//	}
//	token, err := config.LoadToken(cfg) // $LICHESS_BOT_TOKEN, $CREDENTIALS_DIRECTORY/token, lichess.token_file
//
// The token is never stored in a Config, so logging a Config (String,
// MarshalZerologObject, Summary) cannot leak it. config.example.yaml at the
// repository root shows every key with its default.
package config
