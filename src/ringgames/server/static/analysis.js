"use strict";
// The analysis board: a position (entered by hand, or a move of a game: ?from=GAME_ID&ply=N), the engine's
// evaluation per seat as a bar, its best line (stepped through on the board) and the best other moves.
const $ = (id) => document.getElementById(id);
const Q = new URLSearchParams(location.search);
const STARTS = JSON.parse($("starts").textContent);  // game -> variant -> players -> start position
let META = null, board = null, boardGame = null;
let P = null;        // the position set up: {game, variant, players, position, seatNames, toMove}
let G = null;        // the game it comes from: {id, positions, toMove, i}
let A = null;        // the analysis of P: the API's answer
let lineAt = -1;     // the action of the best line shown on the board (-1: the position itself)

function err(msg) { $("err").textContent = msg || ""; }
function seatWordOf(i) { return cap(tOr(`seat.${P.seatNames[i]}`, P.seatNames[i])); }
function seatColour(i) { return P.game === "yinsh" ? ["#fff", "#111"][i] : P.game === "rings" ? SEAT_COLOURS[i] : ["#eee", "#555"][i]; }
function pct(v) { return Math.round(v * 100); }

function fillSetup() {  // the variant and player boxes of the chosen game
  const g = $("game").value, m = META[g];
  $("variant").replaceChildren(...m.variants.map(v => h("option", {value: v}, tOr(`variant.${v}`, v))));
  const n = [];
  for (let k = m.players[0]; k <= m.players[1]; k++) n.push(h("option", {value: k}, k));
  $("players").replaceChildren(...n);
  $("players").disabled = m.players[0] === m.players[1];
}

function setPosition(game, variant, players, position, toMove) {
  const m = META[game];
  variant = m.variants.includes(variant) ? variant : m.variants[0];
  players = Math.max(m.players[0], Math.min(m.players[1], parseInt(players, 10) || m.players[0]));
  P = {game, variant, players, position: position || STARTS[game][variant][players], seatNames: m.seat_names[players], toMove};
  A = null; lineAt = -1;
  $("game").value = game; fillSetup(); $("variant").value = variant; $("players").value = players;
  $("position").value = P.position;
  if (boardGame !== game) {  // a board of the game's kind (the page shows one game at a time)
    const fresh = $("board").cloneNode(false); $("board").replaceWith(fresh);
    board = makeBoard(game, fresh, () => {}); boardGame = game;
  }
  render();
}

function shownPosition() { return A && lineAt >= 0 ? A.pv_positions[lineAt] : P.position; }

function render() {
  const pos = shownPosition();
  board.draw(pos, [], false, null);
  const d = board.describe(pos, P.toMove === null);
  const toMove = A && lineAt >= 0 ? (lineAt + 1 < A.pv_seats.length ? A.pv_seats[lineAt + 1] : null) : A ? A.to_move : P.toMove;
  $("status").replaceChildren(
    toMove !== null && toMove !== undefined ? h("strong", {id: "turn"}, t("analysis.to_move", {seat: seatWordOf(toMove)})) : "",
    h("div", {class: "muted"}, d.extra));
  $("analyse").disabled = P.toMove === null;
  if (P.toMove === null) $("evalhelp").textContent = t("analysis.over");
  if (G) {
    $("gamebar").hidden = false;
    $("g-ply").textContent = t("game.replay_status", {i: G.i, n: G.positions.length - 1});
    $("g-back").href = `/game/${G.id}?replay`;
    $("gameanalysis").hidden = false;
  }
  renderAnalysis();
}

function renderAnalysis() {
  $("evalbar").hidden = !A;
  $("linebar").hidden = !A;
  if (!A) { $("evaltext").replaceChildren(); $("pv").replaceChildren(); $("alts").replaceChildren(); return; }
  // the bar: one segment per seat, as wide as its share (win probability; RINGS: expected score)
  const total = A.eval.reduce((a, b) => a + b, 0) || 1;
  $("evalbar").replaceChildren(...A.eval.map((v, i) => h("div", {class: "seg", "data-seat": i, title: seatWordOf(i),
    style: `width:${(100 * v / total).toFixed(1)}%;background:${seatColour(i)}`})));
  $("evaltext").replaceChildren(...A.eval.map((v, i) => h("div", {class: "seat-eval", "data-seat": i},
    h("span", {class: "sw", style: `background:${seatColour(i)}`}), t("analysis.seat_value", {seat: seatWordOf(i), pct: pct(v)}))));
  const seat = seatWordOf(A.to_move);
  $("evalhelp").textContent = A.proven === "win" ? t("analysis.proven_win", {seat}) : A.proven === "loss" ? t("analysis.proven_loss", {seat})
    : A.search === "alphabeta" ? tn("analysis.help_depth", A.depth) : t("analysis.help_mcts");
  $("pv").replaceChildren(...A.pv.map((a, i) => h("li", {class: i === lineAt ? "current" : ""},
    h("button", {class: "move", "data-i": i, title: seatWordOf(A.pv_seats[i]), onclick: () => { lineAt = i; render(); }}, a))));
  $("alts").replaceChildren(...A.alternatives.map(alt => h("li", {class: "alt"},
    h("b", {class: "mono"}, alt.move), " ", t("analysis.seat_value", {seat: seatWordOf(A.to_move), pct: pct(alt.eval[A.to_move])}),
    h("div", {class: "mono muted small"}, alt.pv.join(" ")))));
  $("l-prev").disabled = lineAt < 0; $("l-start").disabled = lineAt < 0;
  $("l-next").disabled = lineAt >= A.pv.length - 1;
}

async function analyse() {
  err("");
  $("analyse").disabled = true;
  $("evalhelp").textContent = t("analysis.thinking");
  const body = {game: P.game, variant: P.variant, players: P.players, position: P.position,
                seconds: parseFloat(Q.get("seconds") || $("seconds").value)};
  for (const k of ["depth", "iterations"]) if (Q.get(k)) body[k] = parseInt(Q.get(k), 10);  // a fixed search: repeatable
  const asked = P;
  try {
    const r = await api("/api/analysis", {method: "POST", json: body});
    if (P === asked) { A = r; lineAt = -1; P.toMove = r.to_move; }
  } catch (e) { err(errorText(e)); $("evalhelp").textContent = ""; }
  $("analyse").disabled = false;
  render();
}

// "analyse this game": an evaluation after every ply, computed by the server in the background, drawn as a graph
// (the first seat's evaluation for two players; one line per seat in RINGS) with the mistakes marked; click to jump
let GA = null, gaTimer = null;
async function analyseGame() {
  err("");
  try { GA = await api(`/api/games/${encodeURIComponent(G.id)}/analysis`, {method: "POST"}); } catch (e) { err(errorText(e)); return; }
  pollGame();
}
async function pollGame() {
  clearTimeout(gaTimer);
  if (GA.status === "running") {
    gaTimer = setTimeout(async () => {
      try { GA = await api(`/api/games/${encodeURIComponent(G.id)}/analysis`); } catch (e) { err(errorText(e)); return; }
      pollGame();
    }, 700);
  }
  drawGraph();
}
function drawGraph() {
  const svg = $("graph");
  $("ga-status").textContent = GA.status === "running" ? t("analysis.game_progress", {done: GA.done, total: GA.total})
    : GA.status === "failed" ? t("analysis.game_failed") : "";
  $("analyse-game").disabled = GA.status === "running";
  svg.removeAttribute("hidden"); $("ga-help").hidden = false;  // an SVG element has no .hidden property
  svg.replaceChildren();
  const W = 600, H = 160, n = Math.max(1, GA.evals.length - 1);
  const x = (i) => 10 + (W - 20) * i / n, y = (v) => 10 + (H - 20) * (1 - v);
  el("rect", {x: 10, y: 10, width: W - 20, height: H - 20, class: "graph-frame"}, svg);
  el("line", {x1: 10, x2: W - 10, y1: y(0.5), y2: y(0.5), class: "graph-mid"}, svg);
  const seats = P.players === 2 ? [0] : P.seatNames.map((_, i) => i);
  for (const s of seats) {
    const pts = GA.evals.map((e, i) => (e ? `${x(i).toFixed(1)},${y(e[s]).toFixed(1)}` : null)).filter(Boolean);
    if (pts.length > 1) el("polyline", {points: pts.join(" "), class: "graph-line", stroke: P.game === "rings" ? seatColour(s) : "#2a6f97"}, svg);
  }
  for (const m of GA.mistakes) {  // a mark at each large drop: the mover's evaluation before and after its move
    const c = el("circle", {cx: x(m.ply), cy: y(GA.evals[m.ply][P.players === 2 ? 0 : m.seat]), r: 6, class: "graph-mistake",
      "data-ply": m.ply, fill: seatColour(m.seat)}, svg);
    el("title", {}, c).textContent = t("analysis.mistake", {seat: seatWordOf(m.seat), ply: m.ply, pct: Math.round(m.drop * 100)});
    c.addEventListener("click", () => showGamePly(m.ply));
  }
  if (G) el("line", {x1: x(G.i), x2: x(G.i), y1: 10, y2: H - 10, class: "graph-now"}, svg);
  // anywhere else on the graph: the nearest ply
  svg.onclick = (ev) => {
    if (ev.target.classList.contains("graph-mistake")) return;
    const r = svg.getBoundingClientRect(), px = (ev.clientX - r.left) * W / r.width;
    showGamePly(Math.round((px - 10) / (W - 20) * n));
  };
}

function showGamePly(i) {
  G.i = Math.max(0, Math.min(G.positions.length - 1, i));
  const u = new URL(location.href); u.searchParams.set("ply", G.i); history.replaceState(null, "", u);
  setPosition(P.game, P.variant, P.players, G.positions[G.i], G.toMove[G.i]);
  if (GA) drawGraph();
}

async function start() {
  META = await api("/api/meta");
  const from = Q.get("from");
  if (from) {
    const [g, r] = await Promise.all([api(`/api/games/${encodeURIComponent(from)}`), api(`/api/games/${encodeURIComponent(from)}/positions`)]);
    G = {id: from, positions: r.positions, toMove: r.to_move, i: 0};
    let i = Q.get("ply") !== null ? parseInt(Q.get("ply"), 10) : r.positions.length - 1;
    if (Q.get("ply") === null) while (i > 0 && r.to_move[i] === null) i--;  // the last position with a move to find
    P = {game: g.game, variant: g.variant, players: g.players};
    showGamePly(i);
    const known = await api(`/api/games/${encodeURIComponent(from)}/analysis`);  // analysed before: show it
    if (known.status !== "none") { GA = known; pollGame(); }
  } else {
    const game = META[Q.get("game")] ? Q.get("game") : "yinsh";
    setPosition(game, Q.get("variant"), Q.get("players"), Q.get("position"), undefined);
  }
}

$("game").onchange = () => { fillSetup(); $("position").value = ""; };
$("setup").onsubmit = (ev) => {
  ev.preventDefault();
  G = null; GA = null; clearTimeout(gaTimer); $("gamebar").hidden = true; $("gameanalysis").hidden = true;
  setPosition($("game").value, $("variant").value, $("players").value, $("position").value.trim(), undefined);
};
$("analyse").onclick = analyse;
$("analyse-game").onclick = analyseGame;
$("l-start").onclick = () => { lineAt = -1; render(); };
$("l-prev").onclick = () => { lineAt = Math.max(-1, lineAt - 1); render(); };
$("l-next").onclick = () => { if (A) lineAt = Math.min(A.pv.length - 1, lineAt + 1); render(); };
$("g-first").onclick = () => showGamePly(0);
$("g-prev").onclick = () => showGamePly(G.i - 1);
$("g-next").onclick = () => showGamePly(G.i + 1);
$("g-last").onclick = () => showGamePly(G.positions.length - 1);
document.addEventListener("keydown", (ev) => {  // ← → step through the best line
  if (!A || ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
  if (ev.key === "ArrowRight") $("l-next").click();
  else if (ev.key === "ArrowLeft") $("l-prev").click();
});
start().catch(e => err(errorText(e)));
