package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/oauth2"

	"github.com/ponderosa-chess/ponderosa/client"
	"github.com/ponderosa-chess/ponderosa/client/lichess"
	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/logging"
	"github.com/ponderosa-chess/ponderosa/monitor"
	"github.com/ponderosa-chess/ponderosa/ponder"
	"github.com/ponderosa-chess/ponderosa/store"
	"github.com/ponderosa-chess/ponderosa/web"
)

// runCmd is `ponderosa run`: the bot daemon.
func runCmd(e env, args []string) int {
	fs := newFlagSet(e, "run",
		"usage: ponderosa run [-config FILE]",
		"\nPlays on Lichess until SIGTERM or Ctrl-C (then running games may finish",
		"for shutdown.grace_period; a second signal stops at once). SIGHUP reloads",
		"the configuration for new games and reopens log.file. The token comes from $LICHESS_BOT_TOKEN,",
		"the systemd credential \"token\" or lichess.token_file.",
	)
	path := fs.String("config", defaultConfigPath, "the configuration file")
	if !parseArgs(fs, args) {
		return exitUsage
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	err := runDaemon(context.Background(), daemonOpts{
		configPath: *path,
		getenv:     e.getenv,
		logOut:     e.stderr,
		signals:    sigs,
	})
	if err != nil {
		fmt.Fprint(e.stderr, errorLines("ponderosa run: "+err.Error(), logging.OnJournal(e.stderr, e.getenv)))
	}
	return exitCode(err)
}

// errorLines is msg as lines for stderr; under journald each line starts
// with the error priority (<3>), so that `journalctl -p err` shows why the
// daemon stopped, a configuration error's every line included.
func errorLines(msg string, journal bool) string {
	if !journal {
		return msg + "\n"
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		b.WriteString("<3>")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// daemonOpts is what runDaemon needs from the process (tests give their
// own).
type daemonOpts struct {
	configPath string
	getenv     func(string) string
	logOut     io.Writer
	// signals carries SIGTERM/SIGINT (stop: drain, then a second one stops
	// at once) and SIGHUP (reload the configuration).
	signals <-chan os.Signal
	// transport, if set, carries the HTTP requests (tests).
	transport http.RoundTripper
	// onReady, if set, is called once the event stream is open, with the
	// bot (tests).
	onReady func(*client.Bot)
	// onReload, if set, is called after each reload attempt with its error.
	onReload func(error)
	// onHTTP, if set, is called with the address the HTTP server (http.listen)
	// is bound to, once it serves (tests listen on port 0).
	onHTTP func(net.Addr)
	// startWindow bounds the whole start-up, from runDaemon's call to the
	// event stream open: not connected to Lichess by then, the daemon gives
	// up (0: defaultStartWindow).
	startWindow time.Duration
}

// defaultStartWindow is how long the start-up may take, from runDaemon's
// call (reading the configuration, checking the token, starting the
// engine, opening the event stream) before the daemon exits
// (exitUnavailable or exitTempFail): one deadline, less than systemd's
// default TimeoutStartSec (90 s), so that the exit code, not a time-out,
// tells what went wrong, and Restart=on-failure tries again.
const defaultStartWindow = 75 * time.Second

// configError marks err as a configuration error (exitConfig) without
// changing its text.
type configError struct{ err error }

func (e configError) Error() string        { return e.err.Error() }
func (e configError) Unwrap() error        { return e.err }
func (e configError) Is(target error) bool { return target == errConfig }

// runDaemon runs the bot until it is stopped: a stop signal or ctx ending
// both begin a drain (no new games; running games may finish within
// shutdown.grace_period, then what is left is aborted or resigned, each
// logged); a second stop signal ends at once, leaving running games on
// Lichess (logged). It returns an error when the bot cannot start, or when
// Lichess refuses the token while it runs (matching
// lichess.ErrTokenRefused); exitCode maps it to the exit code.
func runDaemon(ctx context.Context, o daemonOpts) (err error) {
	// One deadline for the whole start-up: the token check, the engine and
	// the event stream all count against it.
	window := o.startWindow
	if window <= 0 {
		window = defaultStartWindow
	}
	startDeadline := time.Now().Add(window)
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return fmt.Errorf("%w %s:\n%w", errConfig, o.configPath, err)
	}
	// As check-config: every per-variant engine must know its variant.
	if err := probeVariantEngines(ctx, cfg); err != nil {
		return fmt.Errorf("%w %s:\n%w", errConfig, o.configPath, err)
	}
	logOut := o.logOut
	var logFile *logging.File // log.file, reopened on SIGHUP
	if cfg.Log.File != "" {
		if logFile, err = logging.OpenFile(cfg.Log.File); err != nil {
			return fmt.Errorf("%w %s:\nlog.file: %w", errConfig, o.configPath, err)
		}
		logOut = logFile
	}
	red := logging.Redact(logOut)
	// Under systemd each line carries its journald priority.
	log := logging.New(red, cfg.Log.Level, cfg.Log.Format, logging.WithGetenv(o.getenv))
	for _, w := range cfg.Clamped() {
		log.Warn().Msg(w)
	}
	if logFile != nil {
		// The error that ends the daemon goes into the log file too (runCmd
		// writes it to stderr). The file is not closed: goroutines still
		// stopping may log, and the process ends soon after.
		defer func() {
			if err != nil {
				log.Error().Err(err).Msg("ponderosa run stopped")
			}
		}()
	}
	token, source, err := config.LoadTokenEnv(cfg, o.getenv)
	if err != nil {
		return configError{fmt.Errorf("token: %w", err)}
	}
	red.Add(token)
	if t := cfg.HTTP.AccessToken; t != "" {
		red.Add(t)
	}
	stateDir, stateFrom, err := cfg.ResolveStateDir(o.getenv)
	if err != nil {
		return configError{err}
	}
	if err := makeStateDir(stateDir); err != nil {
		return kindError{err: err, kind: errCantCreate} // may mend: systemd restarts on 73
	}
	log.Info().Str("version", appVersion()).Str("config", o.configPath).Str("token_from", source).
		Str("state_dir", stateDir).Str("state_dir_from", stateFrom).Str("pgn_dir", cfg.ResolvePGNDir(stateDir)).
		Str("log_file", cfg.Log.File).Bool("journal", logging.OnJournal(red, o.getenv)).
		Msg("ponderosa starting")

	mon := newStreamMonitor(o.transport)
	// The metrics are counted from the start; served only with http.listen.
	met := monitor.NewMetrics(appVersion())
	met.SetStreamSilence(func() time.Duration { return time.Since(mon.LastActivity()) })
	c, err := lichess.New(cfg.Lichess.BaseURL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
		lichess.WithHTTPClient(&http.Client{Transport: mon}),
		lichess.WithObserver(met),
		lichess.WithLogger(log),
		lichess.WithUserAgent("ponderosa/"+appVersion()),
		lichess.WithRequestTimeout(cfg.Lichess.RequestTimeout),
		lichess.WithStreamIdleTimeout(cfg.Lichess.StreamReadTimeout))
	if err != nil {
		return configError{err}
	}
	// A refused token (whatever told: a 401 or 403 to the account, or the
	// token test not knowing it), a missing scope or a non-bot account stop
	// here with a clear error; when Lichess cannot be reached the bot
	// retries, until the start deadline.
	startCtx, cancelStart := context.WithDeadline(ctx, startDeadline)
	startCtx, cancelCheck := context.WithTimeout(startCtx, 2*cfg.Lichess.RequestTimeout)
	acct, _, err := c.CheckToken(startCtx)
	cancelCheck()
	cancelStart()
	switch {
	case err == nil:
		if !acct.IsBot() {
			return fmt.Errorf("account %s %w: upgrade it once with `ponderosa upgrade -confirm -config %s` (irreversible; the account must not have played any game)", acct.Username, lichess.ErrNotBot, o.configPath)
		}
	case errors.Is(err, lichess.ErrMissingScope), errors.Is(err, lichess.ErrTokenRefused):
		return err
	case ctx.Err() != nil:
		return nil // stopped before connecting
	case !time.Now().Before(startDeadline):
		kind, what := mon.StartTrouble()
		log.Error().Str("last_error", what).Dur("start_window", window).Msg("cannot connect to Lichess: giving up")
		return fmt.Errorf("%w: not connected within %v (last: %s)", kind, window, what)
	default:
		log.Warn().Err(err).Msg("cannot check the token now; the bot keeps trying")
	}

	settings := settingsFromConfig(cfg, stateDir)
	cpu := cpuShare(cfg, nil) // the built-in engine's threads, for the life of the process
	// The learning memory (engine.builtin.learn), in the state database:
	// opened once for the life of the process (a reload may open it).
	mem := openLearning(cfg, stateDir, log)
	defer closeLearning(&mem)
	pf, tables, err := playerFactoryMemory(cfg, log, cpu, learningFor(cfg, mem))
	if err != nil {
		return configError{err}
	}
	pf = withOnline(cfg, c, log, pf, tables)

	players := newSwappableFactory(pf)
	bot := client.NewBot(c, players.factory, settings, log, client.WithObserver(met))
	met.SetBot(bot)
	// The stream may be silent this long before the watchdog and /healthz
	// call the daemon unhealthy: the idle timeout, the longest reconnect
	// backoff and some slack.
	healthy := cfg.Lichess.StreamReadTimeout + time.Minute + 30*time.Second
	// The state store: the game archive and the counters. A database that
	// cannot be used does not stop the bot: what it would have written is
	// spooled and written when it works again.
	archive, err := store.OpenArchive(ctx, stateDir, store.Options{})
	if err != nil {
		log.Error().Err(err).Str("spool", archive.SpoolPath()).
			Msg("state store: the database cannot be used now; the bot plays on and spools its records until it can")
	}
	defer archive.Close()
	bot.SetStore(storeAdapter{archive})

	if cfg.HTTP.Listen != "" {
		// Served until runDaemon returns: the drain included.
		httpCtx, stopHTTP := context.WithCancel(context.Background())
		srv := monitor.New(monitor.Options{AccessToken: cfg.HTTP.AccessToken, Metrics: met,
			// Lichess' answers only (zero before the stream first
			// opened): reconnection attempts during an outage, which keep
			// the watchdog content, are no health for a load balancer.
			StreamActivity: mon.Alive, HealthWindow: healthy, Log: log, Public: []string{"/assets/"}})
		// The live web view (issue 13): the page, its API and its event
		// stream, beside /metrics and /healthz.
		srv.Handle("/", web.New(newBotViews(httpCtx, bot, archive), web.Options{}))
		addr, waitHTTP, err := startHTTP(httpCtx, cfg.HTTP.Listen, cfg.HTTPWarning(), srv, log)
		if err != nil {
			stopHTTP()
			// The address was checked with the configuration: a bind
			// that fails may mend (an address not yet assigned at boot,
			// a port still held), so systemd restarts us (exit 75).
			return fmt.Errorf("%w: http.listen: %w", errTempFail, err)
		}
		defer waitHTTP()
		defer stopHTTP()
		if o.onHTTP != nil {
			o.onHTTP(addr)
		}
	}
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	runDone := make(chan error, 1)
	go func() { runDone <- bot.Run(runCtx) }()

	// Until the event stream is open there is no game to finish: a stop
	// ends at once. Not open by the start deadline, the daemon gives up.
	startTimer := time.NewTimer(time.Until(startDeadline))
	defer startTimer.Stop()
	for connected := false; !connected; {
		select {
		case <-startTimer.C:
			cancelRun()
			<-runDone
			kind, what := mon.StartTrouble()
			log.Error().Str("last_error", what).Dur("start_window", window).Msg("cannot connect to Lichess: giving up")
			return fmt.Errorf("%w: not connected within %v (last: %s)", kind, window, what)
		case <-mon.Streaming():
			connected = true
		case err := <-runDone:
			if err == nil {
				err = errors.New("bot stopped before connecting")
			}
			return err
		case sig := <-o.signals:
			if sig == syscall.SIGHUP {
				reopenLog(logFile, log)
				log.Info().Msg("reload asked before connecting: ignored (the configuration was just read)")
				continue
			}
			log.Info().Str("signal", sig.String()).Msg("stopping before connecting")
			cancelRun()
			<-runDone // its error is the failed connection we are giving up on
			return nil
		case <-ctx.Done():
			cancelRun()
			<-runDone
			return nil
		}
	}
	status := "connected"
	if acct.Username != "" {
		status += " as " + acct.Username
	}
	if err := sdReady(status); err != nil {
		log.Warn().Err(err).Msg("sd_notify READY")
	}
	log.Info().Msg("ready: event stream open")
	if o.onReady != nil {
		o.onReady(bot)
	}
	go sdWatchdog(runCtx, func() bool { return mon.Healthy(healthy) }, func(err error) {
		log.Warn().Err(err).Msg("sd_notify WATCHDOG")
	})

	d := &botDaemon{cfg: cfg, path: o.configPath, stateDir: stateDir, log: log, logFile: logFile, bot: bot, players: players, lichess: c, cpu: cpu, onReload: o.onReload, mem: &mem}
	return d.loop(ctx, o.signals, runDone, cancelRun, status)
}

// botDaemon is the running bot's control loop state.
type botDaemon struct {
	cfg  *config.Config
	path string
	// stateDir is the state directory made at start; it stays for the
	// life of the process (a reload does not move it).
	stateDir string
	log      zerolog.Logger
	// logFile is log.file (nil: stderr); a reload opens it again.
	logFile *logging.File
	bot     *client.Bot
	players *swappableFactory
	// lichess is the API client, which the online sources use too.
	lichess *lichess.Client
	// cpu is the built-in engine's thread budget, shared by the games of
	// every factory; a reload sets its total.
	cpu      *ponder.CPUShare
	onReload func(error)
	// mem is the learning memory (*mem nil: not open); a reload that
	// turns engine.builtin.learn on opens it.
	mem **store.Memory
}

func (d *botDaemon) loop(ctx context.Context, sigs <-chan os.Signal, runDone <-chan error, cancelRun context.CancelFunc, status string) error {
	stop := func() error {
		cancelRun()
		err := <-runDone
		d.log.Info().Msg("ponderosa stopped")
		return err
	}
	ctxDone := ctx.Done()
	var drainDone chan error
	var cancelDrain context.CancelFunc = func() {}
	defer func() { cancelDrain() }()
	beginDrain := func(why string) {
		grace := d.cfg.Shutdown.GracePeriod
		games := d.bot.Games()
		d.log.Info().Str("why", why).Dur("grace_period", grace).Strs("games", games).
			Msg("stopping: no new games; running games may finish")
		if err := sdStopping(fmt.Sprintf("stopping: finishing %d game(s)", len(games))); err != nil {
			d.log.Warn().Err(err).Msg("sd_notify STOPPING")
		}
		var dctx context.Context
		dctx, cancelDrain = context.WithTimeout(context.Background(), grace)
		drainDone = make(chan error, 1)
		go func() { drainDone <- d.bot.Drain(dctx) }()
	}
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	lastStatus := status
	for {
		select {
		case err := <-runDone: // Run ends on its own only on a start-up error or a refused token
			if err == nil {
				err = errors.New("bot stopped unexpectedly")
			}
			return err
		case <-ctxDone:
			ctxDone = nil
			if drainDone == nil {
				beginDrain("asked to stop")
			}
		case sig := <-sigs:
			switch {
			case sig == syscall.SIGHUP:
				d.reload(ctx)
			case drainDone == nil:
				beginDrain(sig.String())
			default:
				games := d.bot.Games()
				d.log.Warn().Str("signal", sig.String()).Strs("games", games).
					Msg("second stop signal: stopping at once; games still running are left on Lichess, not resigned (our clock runs on; a restart rejoins them)")
				return stop()
			}
		case err := <-drainDone:
			if err != nil {
				d.endLeftovers()
			} else {
				d.log.Info().Msg("all games finished")
			}
			return stop()
		case <-tick.C:
			s := fmt.Sprintf("%d game(s)", len(d.bot.Games()))
			if drainDone != nil {
				s = "stopping: " + s + " left"
			}
			if s != lastStatus {
				lastStatus = s
				_ = sdStatus(s)
			}
		}
	}
}

// endLeftovers aborts (or, when too late to abort, resigns) the games still
// running when the grace period is over; the client logs each.
func (d *botDaemon) endLeftovers() {
	games := d.bot.Games()
	d.log.Warn().Strs("games", games).Msg("grace period over: aborting or resigning the games still running")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.bot.EndGames(ctx); err != nil {
		d.log.Error().Err(err).Msg("grace period over: some games could be neither aborted nor resigned; they are left running")
	}
}

// reload opens the log file again (logrotate may have moved it) and reads
// the configuration file again. A valid file replaces the settings and the
// engine of the next games; running games keep theirs. An invalid one is
// logged and the old configuration stays.
func (d *botDaemon) reload(ctx context.Context) {
	reopenLog(d.logFile, d.log)
	err := d.tryReload(ctx)
	if err != nil {
		d.log.Error().Err(err).Msg("reload: configuration NOT reloaded; keeping the old one")
	}
	if d.onReload != nil {
		d.onReload(err)
	}
}

func (d *botDaemon) tryReload(ctx context.Context) error {
	cfg, err := config.Load(d.path)
	if err != nil {
		return err
	}
	for _, w := range cfg.Clamped() {
		d.log.Warn().Msg("reload: " + w)
	}
	if cfg.Engine.Builtin.Learn && *d.mem == nil {
		*d.mem = openLearning(cfg, d.stateDir, d.log)
	}
	pf, tables, err := playerFactoryMemory(cfg, d.log, d.cpu, learningFor(cfg, *d.mem))
	if err != nil {
		return err
	}
	pf = withOnline(cfg, d.lichess, d.log, pf, tables)
	// The engines are started again only when what the probe looks at
	// changed: a reload must not hold up the daemon's loop for nothing.
	if !reflect.DeepEqual(probedFacts(cfg), probedFacts(d.cfg)) {
		if err := probeVariantEngines(ctx, cfg); err != nil {
			return err
		}
	}
	var restart []string
	if cfg.Lichess != d.cfg.Lichess {
		restart = append(restart, "lichess")
	}
	if cfg.Log != d.cfg.Log {
		restart = append(restart, "log")
	}
	if cfg.StateDir != d.cfg.StateDir {
		restart = append(restart, "state_dir")
	}
	if cfg.HTTP != d.cfg.HTTP {
		restart = append(restart, "http")
	}
	if *d.mem != nil && cfg.Engine.Builtin.LearnMaxEntries != d.cfg.Engine.Builtin.LearnMaxEntries {
		restart = append(restart, "engine.builtin.learn_max_entries")
	}
	if len(restart) > 0 {
		d.log.Warn().Msgf("reload: changes to %s apply after a restart", strings.Join(restart, ", "))
	}
	settings := settingsFromConfig(cfg, d.stateDir)
	d.players.set(pf)
	cpuShare(cfg, d.cpu)
	d.bot.UpdateSettings(settings)
	d.cfg.Challenge, d.cfg.Matchmaking, d.cfg.Game, d.cfg.Engine, d.cfg.Shutdown, d.cfg.Correspondence, d.cfg.Online =
		cfg.Challenge, cfg.Matchmaking, cfg.Game, cfg.Engine, cfg.Shutdown, cfg.Correspondence, cfg.Online
	d.log.Info().Strs("games_kept", d.bot.Games()).Msg("configuration reloaded: new settings apply to new games")
	return nil
}

// reopenLog opens log.file again by its name, on SIGHUP: after logrotate
// renamed it, the next lines go to a new file. When that fails the old
// file stays in use, and it says so. lf nil (no log.file) does nothing.
func reopenLog(lf *logging.File, log zerolog.Logger) {
	if lf == nil {
		return
	}
	if err := lf.Reopen(); err != nil {
		log.Error().Err(err).Msg("log file not reopened: writing on to the file open so far")
		return
	}
	log.Info().Str("path", lf.Path()).Msg("log file reopened")
}

// probedFacts is what probeVariantEngines reads of a configuration.
func probedFacts(c *config.Config) any {
	return struct {
		Engine            config.Engine
		ChallengeVariants []string
		Matchmaking       bool
		MatchVariants     []string
	}{c.Engine, c.Challenge.Variants, c.Matchmaking.Enabled, c.Matchmaking.Variants}
}

// openLearning opens the learning memory in the state database when
// engine.builtin.learn is on (nil otherwise). One that cannot be opened
// is logged, and the bot plays without it.
func openLearning(cfg *config.Config, stateDir string, log zerolog.Logger) *store.Memory {
	if !cfg.Engine.Builtin.Learn || (cfg.Engine.Type != config.EngineBuiltin && cfg.Engine.Type != "") {
		return nil
	}
	m, err := store.OpenMemory(store.Path(stateDir), store.MemoryOptions{MaxEntries: cfg.Engine.Builtin.LearnMaxEntries, Logger: log})
	if err != nil {
		log.Error().Err(err).Msg("learning memory: cannot be used; the bot plays without it")
		return nil
	}
	log.Info().Str("path", m.Path()).Int("max_entries", cfg.Engine.Builtin.LearnMaxEntries).Msg("learning memory open")
	return m
}

// learningFor is the memory the built-in engine uses under cfg: m when
// engine.builtin.learn is on and m is open, else none (a nil interface).
func learningFor(cfg *config.Config, m *store.Memory) ponder.Memory {
	if !cfg.Engine.Builtin.Learn || m == nil {
		return nil
	}
	return m
}

// closeLearning closes the learning memory *m, if open, writing what it
// has queued.
func closeLearning(m **store.Memory) {
	if *m != nil {
		_ = (*m).Close()
		*m = nil
	}
}
