package client_test

import (
	"context"
	"os"
	"os/signal"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// How cmd wires the bot: a client with the token, a player factory, the
// settings; Run until a signal, then Drain with a grace period.
func ExampleNewBot() {
	log := zerolog.New(os.Stderr)
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: os.Getenv("LICHESS_TOKEN")})
	c, err := lichess.New("", ts, lichess.WithLogger(log))
	if err != nil {
		log.Fatal().Err(err).Msg("client")
	}
	var newPlayer client.PlayerFactory // e.g. an external UCI engine or the built-in one
	bot := client.NewBot(c, newPlayer, client.Settings{
		Challenge: client.ChallengePolicy{Speeds: []string{"blitz", "rapid"}, MaxGames: 2},
		PGNDir:    "games",
	}, log)

	ctx, cancel := context.WithCancel(context.Background())
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-sig.Done()
		grace, cancelGrace := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancelGrace()
		_ = bot.Drain(grace) // finish the games in progress
		cancel()
	}()
	if err := bot.Run(ctx); err != nil {
		log.Fatal().Err(err).Msg("bot")
	}
}
