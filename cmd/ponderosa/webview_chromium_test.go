package main

import (
	"bytes"
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ponderosa-chess/ponderosa/config"
	"github.com/ponderosa-chess/ponderosa/web"
)

var (
	chromiumTest = flag.Bool("chromium", false, "run the web view's test in headless Chromium (skipped when chromium is not installed)")
	chromiumShot = flag.String("chromium-shot", "", "where the Chromium test saves its screenshot (default: the test's temporary directory)")
)

// The web view in a real browser: headless Chromium opens the page during a
// demo game, sees the board change when a move arrives, expands a tree
// node, and saves a screenshot. Flag-gated (-chromium).
func TestWebViewChromium(t *testing.T) {
	if !*chromiumTest {
		t.Skip("needs -chromium")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed")
	}
	tc, err := config.ParseTimeControl("1+0")
	if err != nil {
		t.Fatal(err)
	}
	views := newDemoViews()
	hs := httptest.NewServer(web.New(views, web.Options{}))
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	demoCtx, stopDemo := context.WithCancel(ctx)
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = runDemo(demoCtx, &out, demoOpts{tc: tc, movesLimit: 80, hashMB: 8, ponder: true, views: views})
	}()
	defer func() { stopDemo(); <-done }()

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(chromium), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1200, 1400))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	// The page shows both bots' sides of the game once it has begun.
	if err := chromedp.Do(bctx, chromedp.Navigate(hs.URL), chromedp.WaitVisible(`.game:nth-child(2) .board .sq`)); err != nil {
		t.Fatalf("open the page: %v\n%s", err, out.String())
	}
	board, err := chromedp.Run(bctx, chromedp.Text(`.game .board`))
	if err != nil {
		t.Fatal(err)
	}
	// A move arrives: the board changes without a reload.
	changed := false
	for end := time.Now().Add(time.Minute); time.Now().Before(end) && !changed; time.Sleep(100 * time.Millisecond) {
		now, err := chromedp.Run(bctx, chromedp.Text(`.game .board`))
		if err != nil {
			t.Fatal(err)
		}
		changed = now != board
	}
	if !changed {
		t.Fatalf("the board did not change in a minute\n%s", out.String())
	}
	// Open the first game's tree and expand a node (a move may reload the
	// tree meanwhile: try again).
	if err := chromedp.Do(bctx, chromedp.Click(`.game details.tree summary`)); err != nil {
		t.Fatal(err)
	}
	expanded := false
	for try := 0; try < 20 && !expanded; try++ {
		if err := chromedp.Do(bctx, chromedp.WaitVisible(`.game .treebody td.exp`)); err != nil {
			t.Fatal(err)
		}
		clicked, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => { const e = [...document.querySelectorAll('.game .treebody td.exp')].find((x) => x.textContent === '+'); if (!e) return false; e.click(); return true; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if !clicked {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		time.Sleep(300 * time.Millisecond)
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('.game .treebody tr.sub').length`))
		if err != nil {
			t.Fatal(err)
		}
		expanded = n > 0
	}
	if !expanded {
		t.Fatalf("no tree node expanded\n%s", out.String())
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := *chromiumShot
	if path == "" {
		path = filepath.Join(t.TempDir(), "webview.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	html, err := chromedp.Run(bctx, chromedp.OuterHTML("html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, demoWhiteToken) || strings.Contains(html, demoBlackToken) {
		t.Fatal("the page holds a bot's token")
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(shot))
}
