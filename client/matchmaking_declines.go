package client

import (
	"slices"
	"strings"
	"time"

	"github.com/ponderosa-chess/ponderosa/client/lichess"
)

// What a decline reason is about (declineAbout).
const (
	aboutBot     = ""        // us, or not now: every kind of challenge
	aboutSpeed   = "speed"   // tooFast, tooSlow, timeControl
	aboutVariant = "variant" // variant, standard
	aboutMode    = "mode"    // rated, casual
)

// declineAbout says what a decline reason is about: the kind of challenge
// (its speed, variant, or rated or casual), or else the bot (generic,
// later, noBot, onlyBot, DeclineCapped, and a reason Lichess may add).
func declineAbout(reason string) string {
	switch strings.ToLower(reason) {
	case strings.ToLower(lichess.DeclineTooFast), strings.ToLower(lichess.DeclineTooSlow), strings.ToLower(lichess.DeclineTimeControl):
		return aboutSpeed
	case lichess.DeclineVariant, lichess.DeclineStandard:
		return aboutVariant
	case lichess.DeclineRated, lichess.DeclineCasual:
		return aboutMode
	}
	return aboutBot
}

// speedRank orders Lichess' speeds, fastest first (speedOrder); -1 for
// another (or none).
func speedRank(speed string) int { return slices.Index(speedOrder, speed) }

// refuses reports whether decline d tells of a challenge of kind k too: a
// reason about the bot, always; one about the kind, when k is of the kind
// it answered: the same variant (for standard, "only standard": every
// variant), the same mode, the same speed (for tooFast, that speed or a
// faster one; for tooSlow, or a slower one). A
// decline whose kind is unknown (recorded before the kinds were) tells of
// no kind.
func (d DeclineRecord) refuses(k matchKind) bool {
	switch declineAbout(d.Reason) {
	case aboutVariant:
		if strings.EqualFold(d.Reason, lichess.DeclineStandard) {
			return k.variant != "standard" // "I only play standard": every variant
		}
		return d.Variant != "" && d.Variant == k.variant
	case aboutMode:
		return d.Mode != "" && d.Mode == k.mode()
	case aboutSpeed:
		was, is := speedRank(d.Speed), speedRank(k.speed())
		switch {
		case was < 0:
			return false
		case strings.EqualFold(d.Reason, lichess.DeclineTooFast):
			return is <= was
		case strings.EqualFold(d.Reason, lichess.DeclineTooSlow):
			return is >= was
		}
		return is == was
	}
	return true
}

// blocksDecline reports whether a decline reason counts towards the block
// list: "later" and DeclineCapped say "not now", not "not you".
func blocksDecline(reason string) bool {
	return !strings.EqualFold(reason, lichess.DeclineLater) && reason != DeclineCapped
}

// blockedLocked derives the block list for challenges of kind k from the
// decline history: the bots that declined us BlockAfterDeclines times
// (reasons that count, see blocksDecline, and that refuse k: a reason
// about the bot, or about k's speed, variant or mode) within BlockFor,
// each with the end of its block: the block lasts while that many counted
// declines are within BlockFor, so it ends when the oldest of the last
// BlockAfterDeclines ages out (BlockFor after it), unless a new decline
// comes. It forgets the history older than BlockFor (and the decline
// cool-down).
func (b *Bot) blockedLocked(now time.Time, mm MatchmakingSettings, k matchKind) map[string]time.Time {
	cut := now.Add(-max(mm.BlockFor, mm.DeclineCooldown))
	i := 0
	for i < len(b.mm.history) && !b.mm.history[i].At.After(cut) {
		i++
	}
	b.mm.history = b.mm.history[i:]
	if mm.BlockAfterDeclines < 0 {
		return nil
	}
	// Every decline still in the history is within BlockFor of now.
	times := map[string][]time.Time{}
	cut = now.Add(-mm.BlockFor)
	for _, d := range b.mm.history {
		if !blocksDecline(d.Reason) || !d.refuses(k) || !d.At.After(cut) {
			continue
		}
		id := strings.ToLower(d.Opponent)
		times[id] = append(times[id], d.At)
	}
	out := map[string]time.Time{}
	for id, ts := range times {
		if len(ts) >= mm.BlockAfterDeclines {
			slices.SortFunc(ts, time.Time.Compare)
			out[id] = ts[len(ts)-mm.BlockAfterDeclines].Add(mm.BlockFor)
		}
	}
	return out
}
