package lichess

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

func TestDecodeEventFixtures(t *testing.T) {
	data, err := os.ReadFile("testdata/events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	unknown := 0
	err = readLines(iotest.OneByteReader(bytes.NewReader(data)), func(line []byte) error {
		ev, err := DecodeEvent(line)
		if errors.Is(err, ErrUnknownEvent) {
			unknown++
			return nil
		}
		if err != nil {
			return err
		}
		evs = append(evs, ev)
		return nil
	})
	if !errors.Is(err, ErrStreamEnded) {
		t.Fatalf("readLines: %v", err)
	}
	if unknown != 1 {
		t.Errorf("unknown events = %d, want 1", unknown)
	}
	wantTypes := []string{EventGameStart, EventGameFinish, EventChallenge, EventChallengeCanceled, EventChallengeDeclined}
	if len(evs) != len(wantTypes) {
		t.Fatalf("got %d events, want %d", len(evs), len(wantTypes))
	}
	for i, w := range wantTypes {
		if evs[i].Type != w {
			t.Errorf("event %d type %q, want %q", i, evs[i].Type, w)
		}
	}
	gs := evs[0].Game
	if gs.GameID != "0FgNPGRz" || gs.Color != "white" || !gs.IsMyTurn || gs.Opponent.Username != "Aaron" || gs.Status.Name != "started" || gs.SecondsLeft != 300 {
		t.Errorf("gameStart decoded as %+v", gs)
	}
	if gf := evs[1].Game; gf.Opponent.AI != 1 || gf.Opponent.ID != "" || gf.Status.Name != "aborted" {
		t.Errorf("gameFinish vs AI decoded as %+v", gf)
	}
	ch := evs[2].Challenge
	if ch.ID != "jWAgu6ga" || ch.Challenger.ID != "adriana" || ch.TimeControl.Type != "unlimited" || ch.DestUser == nil || ch.DestUser.Rating != 1528 || ch.Speed != "correspondence" {
		t.Errorf("challenge decoded as %+v", ch)
	}
	if c := evs[3].Challenge; c.Challenger.Title != "WNM" || c.Status != "canceled" {
		t.Errorf("challengeCanceled decoded as %+v", c)
	}
	d := evs[4].Challenge
	if d.DeclineReasonKey != "generic" || d.DestUser != nil || d.TimeControl.Limit != 180 || d.TimeControl.Increment != 2 || !d.Rated || d.Variant.Key != "chess960" {
		t.Errorf("challengeDeclined decoded as %+v", d)
	}
}

func TestDecodeGameEventFixtures(t *testing.T) {
	data, err := os.ReadFile("testdata/game-events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var evs []GameEvent
	err = readLines(iotest.HalfReader(bytes.NewReader(data)), func(line []byte) error {
		ev, err := DecodeGameEvent(line)
		if errors.Is(err, ErrUnknownEvent) {
			return nil
		}
		if err != nil {
			return err
		}
		evs = append(evs, ev)
		return nil
	})
	if !errors.Is(err, ErrStreamEnded) {
		t.Fatalf("readLines: %v", err)
	}
	if len(evs) != 5 {
		t.Fatalf("got %d game events, want 5", len(evs))
	}
	f := evs[0].Full
	if f == nil || f.ID != "BEOucQJo" || f.White.ID != "bobby" || f.Black.Rating != 1021 || f.InitialFEN != "startpos" ||
		f.Clock == nil || f.Clock.Initial != 900000 || f.State.Moves != "d2d3" || f.State.Status != "started" {
		t.Errorf("gameFull decoded as %+v", f)
	}
	s := evs[1].State
	if s == nil || !s.BDraw || s.WDraw || s.WInc != 10000 || s.Expiration == nil || s.Expiration.MillisToMove != 30000 || len(strings.Fields(s.Moves)) != 13 {
		t.Errorf("gameState decoded as %+v", s)
	}
	if c := evs[2].Chat; c == nil || c.Username != "thibault" || c.Room != "player" {
		t.Errorf("chatLine decoded as %+v", c)
	}
	if g := evs[3].OpponentGone; g == nil || !g.Gone || g.ClaimWinInSeconds == nil || *g.ClaimWinInSeconds != 8 {
		t.Errorf("opponentGone decoded as %+v", g)
	}
	if g := evs[4].OpponentGone; g == nil || g.Gone || g.ClaimWinInSeconds != nil {
		t.Errorf("opponentGone(false) decoded as %+v", g)
	}
}

func TestDecodeEventErrors(t *testing.T) {
	for _, tc := range []struct {
		line    string
		unknown bool
	}{
		{`not json`, false},
		{`{"type":"gameStart"}`, false},
		{`{"type":"gameStart","game":{"fullId":"x"}}`, false},
		{`{"type":"challenge","challenge":{"status":"created"}}`, false},
		{`{"type":"challenge","challenge":"nope"}`, false},
		{`{"type":"later","x":1}`, true},
		{`{}`, true},
		{`[1,2]`, false},
	} {
		_, err := DecodeEvent([]byte(tc.line))
		if err == nil {
			t.Errorf("DecodeEvent(%s): no error", tc.line)
			continue
		}
		if errors.Is(err, ErrUnknownEvent) != tc.unknown {
			t.Errorf("DecodeEvent(%s): %v, unknown = %v", tc.line, err, tc.unknown)
		}
	}
	for _, line := range []string{`{"type":"gameFull"}`, `{"type":"gameState","wtime":"x"}`, `{"type":"chatLine","text":5}`, `nope`} {
		if _, err := DecodeGameEvent([]byte(line)); err == nil || errors.Is(err, ErrUnknownEvent) {
			t.Errorf("DecodeGameEvent(%s) = %v, want a decode error", line, err)
		}
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, file := range []string{"testdata/events.ndjson", "testdata/game-events.ndjson"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ev, err := DecodeEvent(line)
		if err == nil {
			switch ev.Type {
			case EventGameStart, EventGameFinish:
				if ev.Game == nil || ev.Game.GameID == "" {
					t.Fatalf("%s without game id", ev.Type)
				}
			case EventChallenge, EventChallengeCanceled, EventChallengeDeclined:
				if ev.Challenge == nil || ev.Challenge.ID == "" {
					t.Fatalf("%s without challenge id", ev.Type)
				}
			default:
				t.Fatalf("unknown type %q decoded without error", ev.Type)
			}
		}
		gev, err := DecodeGameEvent(line)
		if err == nil {
			n := 0
			for _, set := range []bool{gev.Full != nil, gev.State != nil, gev.Chat != nil, gev.OpponentGone != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("game event %q with %d payloads", gev.Type, n)
			}
		}
		// The stream reader must cope with any bytes too.
		_ = readLines(bytes.NewReader(line), func([]byte) error { return nil })
	})
}
