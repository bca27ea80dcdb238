package client

import "time"

// Settings are everything the Bot can be told; cmd fills them from the
// configuration. UpdateSettings replaces them while the bot runs: running
// games keep the settings they started with.
type Settings struct {
	Challenge   ChallengePolicy
	Matchmaking MatchmakingSettings
	Clock       ClockSettings
	Game        GameSettings
	Chat        ChatSettings
	// PGNDir is where the PGN of every finished game is saved ("" = not saved).
	PGNDir string
	// ReconnectMin and ReconnectMax bound the backoff between attempts to
	// reopen a dropped stream. Defaults 1 s and 60 s.
	ReconnectMin, ReconnectMax time.Duration
}

// GameSettings are the rules a game worker follows besides choosing moves.
type GameSettings struct {
	// AbortAfter: abort the game when the opponent has not made their first
	// move this long after it became their turn. Default 30 s.
	AbortAfter time.Duration
	// AcceptDraws: answer draw offers by the rule below (false: decline all).
	AcceptDraws bool
	// A draw offer is accepted from ply DrawMinPly on when our last
	// evaluation is at most DrawScoreCP centipawns (our point of view), or
	// at once when we cannot win on material.
	DrawScoreCP int
	DrawMinPly  int
	// AcceptTakebacks: accept takeback requests (false: decline them).
	AcceptTakebacks bool
}

// ChatSettings: messages and commands in the game chat.
type ChatSettings struct {
	// Greeting and Goodbye are written in the player and spectator rooms
	// at the start and the end of a game ("" = nothing). {opponent} and
	// {me} are replaced by the names.
	Greeting, Goodbye string
	// Name answers the !name command, e.g. "ponderosa 0.1".
	Name string
}

func (s Settings) withDefaults() Settings {
	s.Challenge = s.Challenge.withDefaults()
	s.Clock = s.Clock.withDefaults()
	s.Matchmaking = s.Matchmaking.withDefaults()
	if s.Game.AbortAfter <= 0 {
		s.Game.AbortAfter = 30 * time.Second
	}
	if s.ReconnectMin <= 0 {
		s.ReconnectMin = time.Second
	}
	if s.ReconnectMax <= 0 {
		s.ReconnectMax = 60 * time.Second
	}
	if s.ReconnectMax < s.ReconnectMin {
		s.ReconnectMax = s.ReconnectMin
	}
	return s
}

// backoff yields growing delays between reconnection attempts.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) next() time.Duration {
	if b.cur < b.min {
		b.cur = b.min
	} else {
		b.cur = min(2*b.cur, b.max)
	}
	return b.cur
}

func (b *backoff) reset() { b.cur = 0 }
