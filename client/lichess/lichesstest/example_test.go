package lichesstest_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess/lichesstest"
)

// A house player challenges the bot; the bot accepts and plays over HTTP.
func Example() {
	s := lichesstest.New(lichesstest.WithKeepAlive(50 * time.Millisecond))
	s.AddAccount("ponderosa", "lip_bot", true, 1500)
	s.AddAccount("house", "lip_house", false, 1700)
	if err := s.SetHousePlayer("house", lichesstest.HouseOptions{Strategy: lichesstest.HouseFirst}); err != nil {
		panic(err)
	}
	if err := s.Start(); err != nil {
		panic(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	botPost := func(path string) int {
		req, _ := http.NewRequest("POST", s.URL()+path, nil)
		req.Header.Set("Authorization", "Bearer lip_bot")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	plies := func(id string, n int) func() bool {
		return func() bool { g, _ := s.Game(id); return len(g.Moves) >= n }
	}

	id, err := s.Challenge("house", "ponderosa", lichesstest.ChallengeParams{ClockLimit: 3 * time.Minute, Color: "white"})
	if err != nil {
		panic(err)
	}
	fmt.Println("accept:", botPost("/api/challenge/"+id+"/accept"))
	_ = s.WaitFor(ctx, plies(id, 1)) // the house moves first
	fmt.Println("move:", botPost("/api/bot/game/"+id+"/move/g8f6"))
	_ = s.WaitFor(ctx, plies(id, 3))
	fmt.Println("resign:", botPost("/api/bot/game/"+id+"/resign"))

	g, _ := s.Game(id)
	fmt.Println(g.Status, g.Winner, len(g.Moves))
	// Output:
	// accept: 200
	// move: 200
	// resign: 200
	// resign white 3
}
