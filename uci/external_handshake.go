package uci

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// launched is a freshly started, handshaken process.
type launched struct {
	p       *process
	name    string
	author  string
	options []OptionSpec
}

// launch starts a process, runs the handshake and sets the options. On
// error the process is shut down and reaped.
func (e *ExternalEngine) launch(ctx context.Context, newGame bool) (launched, error) {
	if err := e.life.Err(); err != nil {
		return launched{}, fmt.Errorf("start engine %s: %w: %w", e.cfg.Path, ErrClosed, err)
	}
	p, err := startProcess(e.life, &e.cfg, e.log)
	if err != nil {
		return launched{}, err
	}
	st := launched{p: p}
	fail := func(what string, err error) (launched, error) {
		p.shutdown(e.cfg.Timeouts.Quit)
		return launched{}, fmt.Errorf("start engine %s: %s: %w", e.cfg.Path, what, err)
	}
	if err := p.write("uci"); err != nil {
		return fail("handshake", err)
	}
	err = e.readUntil(ctx, p, e.cfg.Timeouts.Handshake, "uciok", func(line string) bool {
		f := strings.Fields(line)
		if len(f) == 0 {
			return false
		}
		switch f[0] {
		case "uciok":
			return true
		case "id":
			if len(f) >= 3 && f[1] == "name" {
				st.name = restAfterToken(line, 1)
			} else if len(f) >= 3 && f[1] == "author" {
				st.author = restAfterToken(line, 1)
			}
		case "option":
			o, err := ParseOption(line)
			if err != nil {
				e.log.Warn().Err(err).Msg("ignoring malformed option line")
				return false
			}
			st.options = append(st.options, o)
		}
		return false
	})
	if err != nil {
		return fail("handshake", err)
	}
	for _, cmd := range e.optionCommands(st.options) {
		if cmd.err != nil {
			return fail("set options", cmd.err)
		}
		if err := p.write(cmd.line); err != nil {
			return fail("set options", err)
		}
	}
	if newGame {
		if err := p.write("ucinewgame"); err != nil {
			return fail("new game", err)
		}
	}
	if err := e.sync(ctx, p); err != nil {
		return fail("isready", err)
	}
	return st, nil
}

type optionCommand struct {
	line string
	err  error
}

// optionCommands validates the configured options, then those set later
// with SetOption, against the advertised specs, each group in a stable
// (sorted by name) order.
func (e *ExternalEngine) optionCommands(specs []OptionSpec) []optionCommand {
	e.mu.Lock()
	later := maps.Clone(e.setOpts)
	e.mu.Unlock()
	var out []optionCommand
	for _, opts := range []map[string]string{e.cfg.Options, later} {
		for _, n := range slices.Sorted(maps.Keys(opts)) {
			line, err := optionLine(specs, n, opts[n])
			if err != nil {
				return append(out, optionCommand{err: err})
			}
			out = append(out, optionCommand{line: line})
		}
	}
	return out
}

// optionLine validates one option and returns its setoption line.
func optionLine(specs []OptionSpec, name, value string) (string, error) {
	o, ok := FindOption(specs, name)
	if !ok {
		known := make([]string, len(specs))
		for i, s := range specs {
			known[i] = s.Name
		}
		return "", fmt.Errorf("%w %q (the engine has: %s)", ErrUnknownOption, name, strings.Join(known, ", "))
	}
	v, err := o.Validate(value)
	if err != nil {
		return "", err
	}
	return setOptionCommand(o, v), nil
}

// SetOption sets an option while no search runs (e.g. UCI_Chess960 or
// Ponder before a game) and waits for the engine to be ready. The name is
// checked against the advertised options. Options other than buttons are
// remembered and set again after a Restart.
func (e *ExternalEngine) SetOption(ctx context.Context, name, value string) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	p, err := e.current()
	if err != nil {
		return fmt.Errorf("set option %s: %w", name, err)
	}
	e.mu.Lock()
	specs := e.options
	e.mu.Unlock()
	line, err := optionLine(specs, name, value)
	if err != nil {
		return fmt.Errorf("set option: %w", err)
	}
	if err := p.write(line); err != nil {
		return fmt.Errorf("set option %s: %w", name, err)
	}
	if o, _ := FindOption(specs, name); o.Type != OptionButton {
		e.mu.Lock()
		if e.setOpts == nil {
			e.setOpts = make(map[string]string)
		}
		e.setOpts[o.Name] = value
		e.mu.Unlock()
	}
	if err := e.sync(ctx, p); err != nil {
		return fmt.Errorf("set option %s: %w", name, err)
	}
	return nil
}

// readUntil hands lines to fn until fn returns true. It fails when the
// engine dies, when timeout passes (the engine is then killed) or when ctx is
// done.
func (e *ExternalEngine) readUntil(ctx context.Context, p *process, timeout time.Duration, what string, fn func(string) bool) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return fmt.Errorf("wait for %s: %w", what, p.diedErr())
			}
			if fn(line) {
				return nil
			}
		case <-t.C:
			p.kill()
			return fmt.Errorf("wait for %s: no answer in %v: %w: %w", what, timeout, ErrEngineUnresponsive, ErrEngineDied)
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", what, ctx.Err())
		}
	}
}

// sync sends "isready" and reads up to the matching "readyok", discarding
// everything before it. The engine answers in order, so whatever an earlier
// search printed late (after its bestmove) is behind us afterwards.
func (e *ExternalEngine) sync(ctx context.Context, p *process) error {
	if err := p.write("isready"); err != nil {
		return err
	}
	p.readyDebt++
	return e.readUntil(ctx, p, e.cfg.Timeouts.Ready, "readyok", func(line string) bool {
		f := strings.Fields(line)
		if len(f) == 0 {
			return false
		}
		switch f[0] {
		case "readyok":
			p.readyDebt--
			return p.readyDebt == 0
		case "bestmove":
			e.log.Warn().Str("line", line).Msg("discarding stray bestmove")
		}
		return false
	})
}
