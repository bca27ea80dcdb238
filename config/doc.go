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
// state_dir is the one home of every file the bot keeps between runs (PGNs
// today; later a game archive, counters and the like, in one store). Its
// default depends on the environment, so the Config holds only what the file
// says and ResolveStateDir applies the default ($STATE_DIRECTORY under
// systemd, else the XDG state directory); `ponderosa run` resolves it once at
// start, creates it and hands the path to the bot.
//
// A key of lichess-bot's config.yml gets an error that says where its
// setting lives here (lichessbot_hints.go); the package config/lichessbot
// translates a whole lichess-bot file.
//
// The token is never stored in a Config, so logging a Config (String,
// MarshalZerologObject, Summary) cannot leak it. config.example.yaml at the
// repository root shows every key with its default.
package config
