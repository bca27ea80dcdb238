// ponderosa live view: plain JavaScript, no dependencies.
"use strict";

const games = new Map(); // id -> {d: game data, el: element}
const PIECES = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const $ = (sel, root) => (root || document).querySelector(sel);
// The server's access token (http.access_token), when the page was opened
// with ?access_token=: every request of the page carries it, since an
// EventSource cannot send an Authorization header.
const TOKEN = new URLSearchParams(location.search).get("access_token");
const withToken = (u) => TOKEN ? u + (u.includes("?") ? "&" : "?") + "access_token=" + encodeURIComponent(TOKEN) : u;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

function fmtScore(cp, mate) {
  if (mate) return (mate > 0 ? "#" : "#-") + Math.abs(mate);
  const v = cp / 100;
  return (v > 0 ? "+" : "") + v.toFixed(2);
}

function fmtNum(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(2) + "G";
  if (n >= 1e6) return (n / 1e6).toFixed(2) + "M";
  if (n >= 1e4) return (n / 1e3).toFixed(1) + "k";
  return String(n);
}

function fmtClock(ms) {
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000), m = Math.floor(s / 60), h = Math.floor(m / 60);
  const pad = (x) => String(x).padStart(2, "0");
  let t = h > 0 ? h + ":" + pad(m % 60) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
  if (ms < 10000) t += "." + Math.floor((ms % 1000) / 100);
  return t;
}

// ---- board ----
function squaresOf(fen) {
  const rows = fen.split(" ")[0].split("/");
  const sq = []; // sq[rank][file], rank 0 = 8th
  for (const row of rows) {
    const r = [];
    for (const ch of row) {
      if (ch >= "1" && ch <= "8") for (let i = 0; i < +ch; i++) r.push("");
      else r.push(ch);
    }
    sq.push(r);
  }
  return sq;
}

function drawBoard(boardEl, d) {
  const sq = squaresOf(d.fen);
  const flip = d.our === "black";
  const last = d.moves.length ? d.moves[d.moves.length - 1] : "";
  const hl = new Set(last ? [last.slice(0, 2), last.slice(2, 4)] : []);
  boardEl.textContent = "";
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      const r = flip ? 7 - i : i, f = flip ? 7 - j : j;
      const name = "abcdefgh"[f] + (8 - r);
      const p = (sq[r] && sq[r][f]) || "";
      const c = el("div", { class: "sq " + ((r + f) % 2 ? "d" : "l") + (hl.has(name) ? " hl" : ""), "data-sq": name });
      if (p) c.append(el("span", { class: p === p.toUpperCase() ? "pw" : "pb", text: PIECES[p] || "?" }));
      boardEl.append(c);
    }
  }
}

// ---- clocks ----
function drawClocks(g) {
  const d = g.d;
  const top = $(".clock.top", g.el), bottom = $(".clock.bottom", g.el);
  const flip = d.our === "black";
  const sides = flip ? [["w", d.white, top], ["b", d.black, bottom]] : [["b", d.black, top], ["w", d.white, bottom]];
  for (const [side, pl, box] of sides) {
    let label = pl.name + (pl.rating ? " (" + pl.rating + ")" : "");
    if (pl.title) label = pl.title + " " + label;
    let t = "";
    let run = false, ms = 0;
    if (d.clock) {
      ms = side === "w" ? d.clock.w : d.clock.b;
      run = d.clock.run === side;
      if (run) ms -= Date.now() - d.clock.at;
      t = fmtClock(ms);
    }
    box.className = "clock " + (box === top ? "top" : "bottom") + (run ? " run" : "") + (d.clock && ms < 10000 ? " low" : "");
    box.textContent = "";
    box.append(el("span", { class: "who", text: (side === "w" ? "○ " : "● ") + label }), el("span", { class: "t", text: t }));
  }
}

setInterval(() => { for (const g of games.values()) if (g.d.clock && g.d.clock.run) drawClocks(g); }, 200);

// ---- search, moves, graph ----
function drawSearch(g) {
  const s = g.d.search || {};
  const parts = [];
  if (s.depth) {
    parts.push("depth " + s.depth + (s.seldepth ? "/" + s.seldepth : ""));
    parts.push(fmtScore(s.score, s.mate) + (s.bound && s.bound !== "exact" ? " (" + s.bound + ")" : ""));
    parts.push(fmtNum(s.nodes) + " nodes");
    if (s.nps) parts.push(fmtNum(s.nps) + "/s");
  }
  parts.push(s.active ? (s.pondering ? "pondering" + (s.ponderOn ? " on " + s.ponderOn : "") : "thinking") : "idle");
  parts.push("tree " + fmtNum(s.treeNodes || 0) + " nodes");
  $(".searchline", g.el).textContent = parts.join(" · ");
  $(".pv", g.el).textContent = s.pv && s.pv.length ? "PV: " + s.pv.join(" ") : "";
}

function drawLast(g) {
  const l = g.d.last;
  const box = $(".lastmove", g.el);
  if (!l) { box.textContent = ""; return; }
  const parts = ["last move " + l.move + " (" + l.source + (l.depth ? ", depth " + l.depth : "") + ", " + (l.ms / 1000).toFixed(1) + "s)"];
  if (l.before) parts.push("re-root kept " + fmtNum(l.kept) + " of " + fmtNum(l.before) + " nodes (" + Math.round(l.keptFrac * 100) + "%)");
  if (l.predicted) parts.push("ponder: " + (l.hit ? "hit" : l.top3 ? "top-3" : "miss"));
  box.textContent = parts.join(" · ");
}

function drawMoves(g) {
  const box = $(".moves", g.el);
  box.textContent = "";
  const d = g.d;
  const blackFirst = d.startFen && d.startFen.split(" ")[1] === "b";
  const startNo = d.startFen ? +(d.startFen.split(" ")[5] || 1) : 1;
  d.moves.forEach((m, i) => {
    const k = i + (blackFirst ? 1 : 0);
    if (k % 2 === 0 || i === 0) box.append(el("span", { class: "n", text: (startNo + Math.floor(k / 2)) + (k % 2 ? "… " : ". ") }));
    box.append(el("span", { class: i === d.moves.length - 1 ? "mv last" : "mv", text: m }), " ");
  });
  box.scrollTop = box.scrollHeight;
}

function drawGraph(g) {
  const svg = $(".graph", g.el);
  const ev = g.d.evals || [];
  const ns = "http://www.w3.org/2000/svg";
  svg.textContent = "";
  const mid = document.createElementNS(ns, "line");
  mid.setAttribute("x1", 0); mid.setAttribute("x2", 300); mid.setAttribute("y1", 50); mid.setAttribute("y2", 50);
  mid.setAttribute("stroke", "#bbb"); mid.setAttribute("stroke-width", "0.5");
  svg.append(mid);
  if (!ev.length) return;
  const maxPly = Math.max(10, ev[ev.length - 1].p + 1);
  const y = (e) => { let v = e.mt ? (e.mt > 0 ? 1000 : -1000) : Math.max(-1000, Math.min(1000, e.s)); return 50 - v / 20; };
  const pts = ev.map((e) => ((e.p / maxPly) * 300).toFixed(1) + "," + y(e).toFixed(1)).join(" ");
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", pts);
  line.setAttribute("fill", "none"); line.setAttribute("stroke", "#2d6a4f"); line.setAttribute("stroke-width", "1.5");
  svg.append(line);
  for (const e of ev) { // a dot per move: one move alone is visible too
    const c = document.createElementNS(ns, "circle");
    c.setAttribute("cx", ((e.p / maxPly) * 300).toFixed(1)); c.setAttribute("cy", y(e).toFixed(1));
    c.setAttribute("r", "1.5"); c.setAttribute("fill", "#2d6a4f");
    svg.append(c);
  }
  const t = document.createElementNS(ns, "title");
  const e = ev[ev.length - 1];
  t.textContent = "after " + e.m + ": " + fmtScore(e.s, e.mt) + " (White's view)";
  svg.append(t);
}

// ---- tree browser ----
async function fetchTree(id, ref) {
  const r = await fetch(withToken("api/games/" + encodeURIComponent(id) + "/tree" + (ref ? "?node=" + encodeURIComponent(ref) : "")));
  const body = await r.json();
  if (!r.ok) { const e = new Error(body.error || r.statusText); e.status = r.status; throw e; }
  return body.children;
}

function treeRow(g, n, lvl) {
  const tr = el("tr", { class: lvl ? "sub" : "", "data-ref": n.ref, "data-lvl": lvl });
  tr.style.setProperty("--lvl", lvl);
  const exp = el("td", { class: "exp", text: n.children ? "+" : "" });
  if (n.children) exp.addEventListener("click", () => toggleNode(g, tr, exp, n, lvl));
  tr.append(exp, el("td", { text: n.move }), el("td", { class: "num", text: n.depth < 0 ? "" : fmtScore(n.score, n.mate) }),
    el("td", { text: n.bound }), el("td", { class: "num", text: n.depth }), el("td", { class: "num", text: fmtNum(n.nodes) }),
    el("td", { class: "num", text: n.visits }), el("td", { text: n.best || "" }), el("td", { class: "num", text: n.children }));
  return tr;
}

async function toggleNode(g, tr, exp, n, lvl) {
  if (exp.textContent === "−") { // collapse
    let next = tr.nextElementSibling;
    while (next && +next.dataset.lvl > lvl) { const x = next.nextElementSibling; next.remove(); next = x; }
    exp.textContent = "+";
    return;
  }
  try {
    const kids = await fetchTree(g.d.id, n.ref);
    let at = tr;
    for (const k of kids) { const row = treeRow(g, k, lvl + 1); at.after(row); at = row; }
    exp.textContent = "−";
  } catch (e) {
    $(".treehead", g.el).textContent = e.status === 410 ? "The tree moved on (a move was played); reloaded." : "Error: " + e.message;
    if (e.status === 410) loadTreeRoot(g);
  }
}

async function loadTreeRoot(g) {
  const body = $(".treebody", g.el);
  try {
    const kids = await fetchTree(g.d.id, "");
    const tbl = el("table", {}, el("thead", {}, el("tr", {}, ...["", "move", "score", "bound", "depth", "nodes", "visits", "best", "children"].map((h) => el("th", { text: h })))));
    const tb = el("tbody");
    for (const k of kids) tb.append(treeRow(g, k, 0));
    tbl.append(tb);
    body.textContent = "";
    body.append(tbl);
    const l = g.d.last;
    $(".treehead", g.el).textContent = "Moves from the current position (" + (g.d.fen.split(" ")[1] === "w" ? "White" : "Black") +
      " to move), scores from the mover's view." + (l && l.before ? " Last re-root kept " + Math.round(l.keptFrac * 100) + "% of the tree." : "");
  } catch (e) {
    body.textContent = "";
    $(".treehead", g.el).textContent = "Error: " + e.message;
  }
}

// ---- games ----
function render(g) {
  const d = g.d;
  const a = $(".title", g.el);
  a.textContent = d.white.name + " – " + d.black.name;
  if (d.url) a.href = d.url;
  $(".meta", g.el).textContent = [d.speed, d.variant && d.variant !== "standard" ? d.variant : "", d.rated ? "rated" : "casual", "we play " + d.our].filter(Boolean).join(" · ");
  drawBoard($(".board", g.el), d);
  drawClocks(g);
  drawSearch(g);
  drawLast(g);
  drawMoves(g);
  drawGraph(g);
}

function upsert(d) {
  let g = games.get(d.id);
  if (!g) {
    const node = $("#gametpl").content.firstElementChild.cloneNode(true);
    node.dataset.id = d.id;
    g = { d, el: node };
    games.set(d.id, g);
    $("#gamelist").append(node);
    $(".tree", node).addEventListener("toggle", (e) => { if (e.target.open) loadTreeRoot(g); });
  }
  g.d = d;
  render(g);
  if ($(".tree", g.el).open) loadTreeRoot(g);
  $("#nogames").hidden = games.size > 0;
}

function remove(id) {
  const g = games.get(id);
  if (g) { g.el.remove(); games.delete(id); }
  $("#nogames").hidden = games.size > 0;
}

function applyMove(m) {
  const g = games.get(m.id);
  if (!g) return;
  const d = g.d;
  d.moves = d.moves.slice(0, m.from).concat(m.moves);
  d.fen = m.fen;
  d.gen = m.gen;
  if (m.clock) d.clock = m.clock;
  if (m.evals) d.evals = (d.evals || []).concat(m.evals);
  if (m.last) d.last = m.last;
  render(g);
  if (m.moves.length && $(".tree", g.el).open) loadTreeRoot(g);
}

function applySearch(s) {
  const g = games.get(s.id);
  if (!g) return;
  g.d.search = s;
  drawSearch(g);
}

// ---- queue and archive ----
function renderQueue(q) {
  const tb = $("#queuebody");
  tb.textContent = "";
  for (const c of q) {
    const from = c.url ? el("a", { href: c.url, target: "_blank", rel: "noopener", text: c.from }) : c.from;
    tb.append(el("tr", {}, el("td", {}, from), el("td", { text: c.rating || "" }), el("td", { text: c.speed || "" }),
      el("td", { text: c.tc || "" }), el("td", { text: c.variant || "" }), el("td", { text: c.rated ? "yes" : "no" }),
      el("td", { text: c.since ? new Date(c.since).toLocaleTimeString() : "" })));
  }
  $("#noqueue").hidden = q.length > 0;
}

async function loadArchive() {
  const form = $("#archiveform");
  const qs = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v) qs.set(k, v);
  const msg = $("#archivemsg");
  try {
    const r = await fetch(withToken("api/archive?" + qs));
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    const tb = $("#archivebody");
    tb.textContent = "";
    for (const g of body) {
      const res = g.result === "win" ? (g.our === "white" ? "1-0" : "0-1") : g.result === "loss" ? (g.our === "white" ? "0-1" : "1-0") : g.result === "draw" ? "½-½" : g.result;
      const pgn = el("a", { href: "#archive", text: "show" });
      pgn.addEventListener("click", (e) => { e.preventDefault(); const p = $("#pgn"); p.textContent = g.pgn; p.hidden = false; p.scrollIntoView(); });
      tb.append(el("tr", {}, el("td", { text: new Date(g.ended).toLocaleString() }),
        el("td", { text: g.white + (g.whiteRating ? " (" + g.whiteRating + ")" : "") }),
        el("td", { text: g.black + (g.blackRating ? " (" + g.blackRating + ")" : "") }),
        el("td", { text: res + (g.termination ? " · " + g.termination : "") }), el("td", { text: g.speed || "" }),
        el("td", { text: g.moves }), el("td", {}, g.url ? el("a", { href: g.url, target: "_blank", rel: "noopener", text: g.id }) : g.id),
        el("td", {}, pgn)));
    }
    msg.textContent = body.length ? "" : "No finished game matches.";
    msg.className = "muted";
  } catch (e) {
    msg.textContent = "Archive: " + e.message;
    msg.className = "err";
  }
}

$("#archiveform").addEventListener("submit", (e) => { e.preventDefault(); loadArchive(); });

// ---- live updates ----
function connect() {
  const es = new EventSource(withToken("events"));
  const status = $("#status");
  es.addEventListener("open", () => { status.textContent = "live"; });
  es.addEventListener("error", () => { status.textContent = "reconnecting…"; });
  es.addEventListener("state", (e) => {
    const s = JSON.parse(e.data);
    const ids = new Set(s.games.map((g) => g.id));
    for (const id of [...games.keys()]) if (!ids.has(id)) remove(id);
    for (const g of s.games) upsert(g);
    renderQueue(s.queue);
  });
  es.addEventListener("game", (e) => upsert(JSON.parse(e.data)));
  es.addEventListener("move", (e) => applyMove(JSON.parse(e.data)));
  es.addEventListener("search", (e) => applySearch(JSON.parse(e.data)));
  es.addEventListener("gone", (e) => { remove(JSON.parse(e.data).id); loadArchive(); });
  es.addEventListener("queue", (e) => renderQueue(JSON.parse(e.data)));
}

connect();
loadArchive();
