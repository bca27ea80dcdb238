package client

import "context"

// WithResignRule wraps the players of f so that they resign once their
// score has been at or below -belowCP centipawns (or a mate against them)
// for forMoves of their decisions in a row. Decisions without a score (a
// forced move) neither count nor break the run. belowCP and forMoves must
// be positive; otherwise f is returned unchanged.
func WithResignRule(f PlayerFactory, belowCP, forMoves int) PlayerFactory {
	if belowCP <= 0 || forMoves <= 0 || f == nil {
		return f
	}
	return func(ctx context.Context) (Player, error) {
		p, err := f(ctx)
		if err != nil {
			return nil, err
		}
		return &resigningPlayer{Player: p, belowCP: belowCP, forMoves: forMoves}, nil
	}
}

type resigningPlayer struct {
	Player
	belowCP, forMoves int
	run               int // losing decisions in a row
}

func (p *resigningPlayer) NewGame(ctx context.Context, g GameInfo) error {
	p.run = 0
	return p.Player.NewGame(ctx, g)
}

func (p *resigningPlayer) Think(ctx context.Context, lim Limits) (Decision, error) {
	d, err := p.Player.Think(ctx, lim)
	if err != nil || !d.HasScore {
		return d, err
	}
	if d.Mate < 0 || (d.Mate == 0 && d.ScoreCP <= -p.belowCP) {
		p.run++
	} else {
		p.run = 0
	}
	if p.run >= p.forMoves {
		d.Resign = true
	}
	return d, nil
}
