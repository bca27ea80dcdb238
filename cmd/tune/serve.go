package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/internal/tune"
)

// runServe answers one FEN per input line with "<uci move> <score>", using
// the real search with this binary's built-in weights. Two binaries built
// from different weights.go files can then be played against each other
// with `tune match -a BIN -b BIN`.
func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	nodes := fs.Uint64("nodes", 5000, "node limit per move")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pl := tune.NewSearchPlayer(*nodes, 0, 16)
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "newgame" {
			pl.NewGame()
			continue
		}
		p, err := board.ParseFEN(line)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		m, score, err := pl.BestMove(ctx, p)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		fmt.Fprintf(out, "%s %d\n", p.MoveToUCI(m), score)
		if err := out.Flush(); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	return in.Err()
}

// procPlayer asks a `tune serve` process for moves.
type procPlayer struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startProc(path string, nodes uint64) (*procPlayer, error) {
	cmd := exec.Command(path, "serve", "-nodes", strconv.FormatUint(nodes, 10))
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	return &procPlayer{cmd: cmd, in: in, out: bufio.NewScanner(out)}, nil
}

func (pp *procPlayer) NewGame() {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	fmt.Fprintln(pp.in, "newgame")
}

func (pp *procPlayer) BestMove(ctx context.Context, p *board.Position) (board.Move, int, error) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if _, err := fmt.Fprintln(pp.in, p.FEN()); err != nil {
		return 0, 0, fmt.Errorf("engine process: %w", err)
	}
	if !pp.out.Scan() {
		return 0, 0, fmt.Errorf("engine process ended: %v", pp.out.Err())
	}
	f := strings.Fields(pp.out.Text())
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("engine process: bad reply %q", pp.out.Text())
	}
	m, err := p.ParseUCIMove(f[0])
	if err != nil {
		return 0, 0, fmt.Errorf("engine process: %w", err)
	}
	score, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, fmt.Errorf("engine process: bad score %q", f[1])
	}
	return m, score, nil
}

func (pp *procPlayer) Close() error {
	pp.in.Close()
	return pp.cmd.Wait()
}
