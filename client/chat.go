package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// sayBoth writes the player and spectator lines of m (empty ones are skipped).
func (g *gameWorker) sayBoth(ctx context.Context, m ChatMessages) {
	if m.Player != "" {
		g.say(ctx, m.Player, lichess.RoomPlayer)
	}
	if m.Spectator != "" {
		g.say(ctx, m.Spectator, lichess.RoomSpectator)
	}
}

// say writes text in the given rooms (best effort, in the background).
func (g *gameWorker) say(ctx context.Context, text string, rooms ...string) {
	opp := g.info.Opponent
	text = strings.NewReplacer("{opponent}", opp, "{me}", g.bot.me.Username).Replace(text)
	if len(text) > 140 {
		text = text[:140]
	}
	log := g.l()
	ctx = g.bgctx // a goodbye is sent after the game's context ends
	goRecovering(*log, "chat", func() {
		if h := g.bot.hooks; h != nil && h.background != nil {
			h.background(g.opponent, "chat")
		}
		for _, r := range rooms {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := g.c.Chat(cctx, g.id, r, text)
			cancel()
			if err != nil && ctx.Err() == nil {
				log.Debug().Err(err).Str("room", r).Msg("chat not sent")
			}
		}
	})
}

// onChat answers the commands !help, !eval, !name and !queue.
func (g *gameWorker) onChat(ctx context.Context, cl *lichess.ChatLine) {
	if cl == nil || strings.EqualFold(cl.Username, g.bot.me.Username) || strings.EqualFold(cl.Username, g.me) {
		return
	}
	cmd := strings.ToLower(strings.TrimSpace(cl.Text))
	if !strings.HasPrefix(cmd, "!") {
		return
	}
	if f := strings.Fields(cmd); len(f) > 0 {
		cmd = f[0]
	}
	var reply string
	switch cmd {
	case "!help":
		reply = "Commands: !help, !eval (spectators), !name, !queue"
	case "!name":
		reply = g.s.Chat.Name
		if reply == "" {
			reply = g.bot.me.Username
		}
	case "!queue":
		reply = queueText(len(g.bot.QueuedChallenges()))
	case "!eval":
		if cl.Room == lichess.RoomPlayer {
			reply = "!eval is for spectators only"
		} else {
			reply = evalText(g.eval())
		}
	default:
		return
	}
	g.say(ctx, reply, cl.Room)
}

// evalText describes a choice for !eval.
func evalText(d *Choice) string {
	if d == nil {
		return "No evaluation yet."
	}
	s := fmt.Sprintf("Eval %+.2f", float64(d.ScoreCP)/100)
	if d.Mate != 0 {
		s = fmt.Sprintf("Mate in %d", d.Mate)
	}
	s += fmt.Sprintf(", depth %d, %d nodes", d.Depth, d.Nodes)
	if len(d.PV) > 0 {
		pv := d.PV
		if len(pv) > 8 {
			pv = pv[:8]
		}
		s += ", PV " + strings.Join(pv, " ")
	}
	return s
}
