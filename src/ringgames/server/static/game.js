"use strict";
const GID = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let S = null, MINE = [], ws = null, board = null, replay = null, busy = false, retry = 0, prevShown = null;
const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)");
let audio = null;
function soundsOn() { return localStorage.getItem("rg_sound") === "1"; }  // off unless asked for, remembered per browser
function sound(kind) {  // a short tone per event, made with Web Audio (no sound files): move, capture (row, ring, conversion), turn
  if (!soundsOn()) return;
  document.body.dataset.sounds = `${document.body.dataset.sounds || ""} ${kind}`.trim().split(" ").slice(-20).join(" ");
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator(), g = audio.createGain(), now = audio.currentTime;
    o.frequency.value = {move: 520, capture: 330, turn: 784}[kind];
    g.gain.setValueAtTime(0.08, now);
    g.gain.exponentialRampToValueAtTime(0.0001, now + 0.18);
    o.connect(g).connect(audio.destination);
    o.start(now); o.stop(now + 0.2);
  } catch (e) { /* no audio here: the game goes on silently */ }
}
function soundsFor(before, after) {  // the sounds of the moves that just arrived
  if (!before || after.moves.length <= before.moves.length) return;
  const texts = after.moves.slice(before.moves.length).map(m => m.text);
  sound(texts.some(x => /^x|\(|-G$/i.test(x)) ? "capture" : "move");
  const wasMine = before.to_move !== null && MINE.includes(before.to_move);
  if (!wasMine && canAct()) sound("turn");
}
function animationsOn() {  // remembered per browser; off by default for those who ask for less motion
  const v = localStorage.getItem("rg_anim");
  return v === null ? !REDUCED_MOTION.matches : v === "1";
}
// the clocks: ms left per seat as the server last said, and when that arrived (ticked down locally in between)
let CLOCK = null;
// games without a clock: when (performance.now()) the others may claim the game against the seat to move
let CLAIM_AT = null;
// real-time games: per seat, connected or away (and for how long) as the server last said, and when that arrived
let PRESENCE = null;

function err(msg) { $("err").textContent = msg || ""; }
const seatName = (i) => tOr(`seat.${S.seat_names[i]}`, S.seat_names[i]);
const reasonText = (r) => tOr(`reason.${r}`, r);
//: the Gygès preset arrangements (notation: the sizes on the home row, files a to f) and their names
const PRESET_NAMES = {"321123": "setup.preset_three_one", "123321": "setup.preset_one_three", "231132": "setup.preset_two_one", "312213": "setup.preset_three_two"};
function canAct() { return S && !replay && S.to_move !== null && MINE.includes(S.to_move) && S.seats[S.to_move].kind === "human"; }

function send(action) {
  if (!ws || ws.readyState !== 1) { err(t("game.not_connected")); return; }
  err("");
  ws.send(JSON.stringify({type: "action", action, ply: S.ply}));
}

const TURN_ICON = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='#c62'/></svg>");

// "Your turn": a short tone (if the player ticked it; remembered) and, while the tab is in the background, a browser
// notification (once the player allowed them) when the move comes to a seat this browser or account holds.
let wasMyTurn = null;
window.turnAlerts = 0;  // how many times the move came to me (for tests)
function turnAlert() {
  window.turnAlerts += 1;
  if (localStorage.getItem("rg_turn_sound") === "1") {
    try {
      const ctx = new AudioContext(), osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = 660; gain.gain.value = 0.1;
      osc.connect(gain).connect(ctx.destination); osc.start(); osc.stop(ctx.currentTime + 0.15);
    } catch (e) { /* no audio here */ }
  }
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    const last = S.moves.length ? S.moves[S.moves.length - 1] : null;  // who played what, if anybody did
    const body = last ? t("notify.played", {name: playerName(S.seats[last.seat]), move: last.text}) : "";
    new Notification(t("title.your_move", {title: S.title}), {body, tag: `rg-turn-${GID}`});
  }
}
document.addEventListener("DOMContentLoaded", () => {
  const sound = document.getElementById("turn-sound");
  sound.checked = localStorage.getItem("rg_turn_sound") === "1";
  sound.addEventListener("change", () => localStorage.setItem("rg_turn_sound", sound.checked ? "1" : "0"));
  const notify = document.getElementById("turn-notify");
  if ("Notification" in window && Notification.permission === "default") {
    notify.hidden = false;
    notify.addEventListener("click", async () => { await Notification.requestPermission(); notify.hidden = true; });
  }
});
function setState(state) {  // every server message corrects the clocks
  S = state;
  CLOCK = S.clocks ? {left: S.clocks.slice(), running: S.clock_running, at: performance.now()} : null;
  CLAIM_AT = typeof S.claim_in === "number" ? performance.now() + S.claim_in : null;
  PRESENCE = S.presence ? {seats: S.presence, at: performance.now()} : null;
}
function minSec(ms) { const s = Math.floor(ms / 1000); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`; }
function canClaim() {  // a seat of mine is still in the game and it is somebody else's move
  return S.to_move !== null && !replay && MINE.some(i => i !== S.to_move && S.active.includes(i)) && !MINE.includes(S.to_move);
}
function presenceText(i) {  // "connected" / "disconnected for 0:12 — you may claim the game in 0:18"
  const p = PRESENCE.seats[i];
  if (p.connected) return t("game.presence_connected");
  const away = t("game.presence_away", {time: minSec(p.away_ms + performance.now() - PRESENCE.at)});
  if (i !== S.to_move || CLAIM_AT === null || !canClaim()) return away;
  const left = CLAIM_AT - performance.now();
  return `${away} — ${left > 0 ? t("game.presence_claim_in", {time: minSec(left + 999)}) : t("game.presence_claim_now")}`;
}
function clockLeft(i) {
  const ms = CLOCK.left[i] - (CLOCK.running === i ? performance.now() - CLOCK.at : 0);
  return Math.max(0, ms);
}
function isLow(ms) {  // real time: under 20 s, or a quarter of the initial time if that is less; correspondence: 12 h
  const tc = S.time_control;
  return tc.days ? ms < 12 * 3600000 : ms < Math.min(20000, tc.initial * 250);
}
function tick() {  // redraw the clocks (every 100 ms); offer the claim once the player to move has been away long enough
  if (!S) return;
  const claimable = CLAIM_AT !== null && performance.now() >= CLAIM_AT && canClaim();
  if ($("claim").hidden === claimable) $("claim").hidden = !claimable;  // only when it changes
  for (const el of document.querySelectorAll("#seats .presence")) {
    const i = +el.dataset.seat, text = presenceText(i);
    if (el.textContent !== text) el.textContent = text;
  }
  if (!CLOCK) return;
  for (const el of document.querySelectorAll("#seats .clock")) {
    const i = +el.dataset.seat, ms = clockLeft(i), low = isLow(ms);
    el.textContent = formatClock(ms, S.time_control.days);
    el.classList.toggle("running", CLOCK.running === i);
    el.classList.toggle("low", low);
    el.title = low ? t("clock.low") : "";
  }
}
setInterval(tick, 100);
function tcText(tc) {
  return tc.days ? tn("time.days", tc.days) : `${+(tc.initial / 60).toFixed(2)}+${tc.increment}`;
}

function render() {
  if (!S) return;
  if (!board) { board = makeBoard(S.game, $("board"), send); board.onLocal = render; }
  const myTurn = canAct();  // the tab says so when it is my move: its title and a coloured favicon
  if (myTurn && wasMyTurn === false) turnAlert();
  wasMyTurn = myTurn;
  document.title = myTurn ? t("title.your_move", {title: S.title}) : t("title.game_named", {title: S.title});
  const icon = document.getElementById("favicon");
  if (icon) icon.href = myTurn ? TURN_ICON : "data:,";
  const variant = tOr(`variant.${S.variant}`, S.variant);
  const heading = S.players > 2 ? tn("game.heading_players", S.players, {title: S.title, variant}) : t("game.heading", {title: S.title, variant});
  $("title").textContent = S.source === "import" ? t("game.heading_imported", {heading}) : heading;
  const pos = replay ? replay.positions[replay.i] : S.position;
  const toMove = replay ? replay.toMove[replay.i] : S.to_move;
  const legal = replay ? [] : S.legal;
  const shown = replay ? replay.i : S.moves.length;
  const last = lastTurn(shown);
  if (last) last.animate = animationsOn() && prevShown !== null && shown > prevShown;  // a new move: show it moving
  prevShown = shown;
  board.draw(pos, legal, canAct(), last);
  const d = board.describe(pos, toMove === null);
  let status;
  if (replay) status = t("game.replay_status", {i: replay.i, n: replay.positions.length - 1}) + (toMove === null ? ` · ${t("game.replay_over")}` : "");
  else if (S.status === "aborted") status = t("game.aborted");
  else if (S.reason === "stopped" && S.result !== "draw") status = t("game.stopped");  // computers stopped by the time limit (no result)
  else if (S.to_move === null) status = overText();
  else {
    const s = S.seats[S.to_move], phase = d.phase || t("phase.play");
    status = s.kind === "computer" && s.level !== null && s.level !== undefined
      ? t("game.to_act_computer", {seat: cap(seatName(S.to_move)), level: s.level, phase})
      : t(canAct() ? "game.to_act_mine" : "game.to_act", {name: playerName(s), seat: seatName(S.to_move), phase});
  }
  const thinking = !replay && S.to_move !== null && S.seats[S.to_move].kind === "computer";  // its move comes from the server
  $("status").replaceChildren(h("strong", {id: "turn"}, status),
    thinking ? h("span", {id: "thinking", class: "thinking", role: "status"}, t("game.thinking")) : "", h("div", {class: "muted"}, d.extra));
  // seats: the player to move at the shown position is in bold
  $("seats").replaceChildren(...S.seats.map((s, i) => h("div", {class: "seat" + (toMove === i ? " to-move" : "") + (thinking && toMove === i ? " thinking-seat" : ""), "data-seat": i},
    h("span", {class: "sw", style: `background:${seatColour(i)}`}),
    t("game.seat_label", {seat: seatName(i)}), h("span", {class: "name"}, playerName(s)),
    MINE.includes(i) ? ` ${t("game.you")}` : "",
    s.open ? h("button", {onclick: () => join(i, null)}, t("game.take_seat")) : "",
    CLOCK ? h("span", {class: "clock mono", "data-seat": i}) : "",
    PRESENCE && PRESENCE.seats[i] ? h("span", {class: "presence " + (PRESENCE.seats[i].connected ? "on" : "off"), "data-seat": i}) : "")));
  $("tc").textContent = S.time_control ? t("game.time_control", {label: tcText(S.time_control)}) : "";
  tick();
  const inv = JSON.parse(sessionStorage.getItem(`invites-${GID}`) || "{}");
  $("invites").replaceChildren(...Object.entries(inv).filter(([i]) => !S.seats[i].joined).map(([i, url]) =>
    h("p", {}, t("game.invite_link", {seat: seatName(i)}), h("a", {class: "invite", href: url, "data-invite": i}, url))));
  const summary = replay ? replay.summaries[replay.i] : S.summary;
  $("summary").replaceChildren(...summaryLines(summary || {}).map(([k, x]) => h("div", {"data-summary": k}, x)));
  // specials: actions that are not board clicks
  const sp = [];
  if (canAct()) {
    for (const a of S.legal) if (["pass", "end"].includes(a.toLowerCase())) sp.push(h("button", {"data-action": a, onclick: () => send(a)}, a === "end" ? t("action.end") : t("action.pass")));
    const conv = S.legal.filter(a => /^x[A-X]{2}\d+$/i.test(a));
    if (S.game === "rings" && conv.length) sp.push(h("button", {id: "convert-all", onclick: convertAll}, t("action.convert_all", {n: conv.length})));
    const setups = S.legal.filter(a => /^\d{6}$/.test(a));
    if (setups.length) {  // Gygès setup: a ready-made arrangement, a random one, or the one clicked on the home row
      sp.push(h("span", {class: "setup-label"}, t("setup.arrangement")));
      for (const [p, key] of Object.entries(PRESET_NAMES)) if (setups.includes(p)) sp.push(h("button", {"data-action": p, title: p, onclick: () => send(p)}, t(key)));
      sp.push(h("button", {"data-action": "random", onclick: () => send(setups[Math.floor(Math.random() * setups.length)])}, t("setup.random_button")));
      if (setups.length > 4) {
        const clicked = board.arrangement ? board.arrangement() : null;
        sp.push(h("button", Object.assign({id: "setup-place", onclick: () => send(clicked)}, clicked ? {} : {disabled: ""}),
          clicked ? t("setup.place_arrangement", {arrangement: clicked}) : t("setup.place_hint")));
      }
    }
  }
  $("specials").replaceChildren(...sp);
  $("legal").replaceChildren(...(canAct() ? S.legal : []).map(a => h("option", {value: a}, a)));
  // moves
  renderMoves(replay ? replay.i : S.moves.length);
  // buttons
  const over = S.to_move === null, player = MINE.some(i => S.active.includes(i));
  $("resign").hidden = !(!over && player);
  const offered = S.draw_offers.length > 0, iOffered = MINE.some(i => S.draw_offers.includes(i));
  const allHuman = S.active.every(i => S.seats[i].kind === "human");  // the computer never accepts a draw
  $("draw-offer").hidden = !(!over && player && !offered && allHuman);
  $("draw-accept").hidden = !(!over && player && offered && !iOffered);
  $("draw-decline").hidden = !(!over && player && offered);
  const tb = S.takeback, mineToUndo = S.moves.some(m => MINE.includes(m.seat) && !["resign", "draw", "time"].includes(m.text));
  $("takeback-ask").hidden = !(!over && player && !tb && mineToUndo);
  $("takeback-accept").hidden = !(!over && player && tb && !MINE.some(i => tb.accepted.includes(i)));
  $("takeback-decline").hidden = !(!over && player && tb);
  const failed = !over && S.computer_failed;  // the computer's move failed twice: the game waits for a retry
  $("computer-retry").hidden = !(failed && MINE.length);
  const next = S.tags && S.tags.rematch;
  $("again").hidden = !(over && MINE.length && S.source !== "import");
  $("again").textContent = next ? t("game.again_join") : t("game.again");
  $("next-game").replaceChildren(...(over && next && !MINE.length ? [h("a", {href: `/game/${next}`}, t("game.watch_next"))] : []));
  $("result").textContent = failed ? t("game.computer_failed", {name: S.seats[failed.seat].name})
    : offered && !over ? t("game.draw_offered", {names: S.draw_offers.map(i => S.seats[i].name).join(", ")})
    : tb && !over ? t("game.takeback_asked", {name: playerName(S.seats[tb.seat])})
    : over && next && MINE.length ? t("game.rematch_started") : "";
  $("record").href = `/api/games/${GID}/record`;
  // the analysis board at the shown move: for a finished game, or a spectator (never for a player mid-game)
  $("analyse-link").hidden = !(over || !MINE.length);
  $("analyse-link").href = `/analysis?from=${encodeURIComponent(GID)}&ply=${shown}`;
  $("replaybar").hidden = !replay;
  if (replay) $("r-ply").textContent = `${replay.i}/${replay.positions.length - 1}`;
}

function seatColour(i) { return S.game === "yinsh" ? ["#fff", "#111"][i] : S.game === "rings" ? SEAT_COLOURS[i] : ["#eee", "#555"][i]; }
function turns() {  // the moves grouped by turn: [{n, seat, plies: [{ply, text}]}]; a RINGS turn starts with a stone or a pass
  const out = [];
  for (const m of S.moves) {
    const cur = out[out.length - 1];
    const starts = !cur || cur.seat !== m.seat || (S.game === "rings" && /^([A-X]\d+|pass)$/i.test(m.text));
    if (starts) out.push({n: out.length + 1, seat: m.seat, plies: [m]}); else cur.plies.push(m);
  }
  return out;
}
function moveText(m) {  // notation, the same in every language; resignations, agreed draws and RINGS passes in words
  return m.text === "resign" ? t("moves.resign") : m.text === "draw" ? t("moves.draw") : m.text === "pass" ? t("moves.pass") : m.text;
}
function renderMoves(shown) {  // one line per turn in the game's notation; the move shown on the board is marked
  const lines = [];
  const cur = shown - 1;  // the ply of the move that led to the shown position
  const ts = turns();
  for (let k = 0; k < ts.length; k++) {
    const tr = ts[k];
    const visible = tr.plies.filter(m => m.text !== "end");  // RINGS: the end of a turn is implicit, as in records
    const isPass = S.game === "rings" && visible.length === 1 && visible[0].text === "pass";
    let run = [tr];
    if (isPass) {  // RINGS: passes in a row make one line
      while (k + 1 < ts.length && ts[k + 1].plies.filter(m => m.text !== "end").map(m => m.text).join() === "pass") run.push(ts[++k]);
    }
    const last = run[run.length - 1];
    const lastPly = last.plies[last.plies.length - 1].ply;
    const here = cur >= tr.plies[0].ply && cur <= lastPly;
    const num = run.length > 1 ? `${tr.n}–${last.n}.` : `${tr.n}.`;
    const seats = run.map(x => x.seat);
    const kids = [...seats.slice(0, 6).map(i => h("span", {class: "sw", title: seatName(i), style: `background:${seatColour(i)}`})),
      h("span", {class: "num"}, num)];
    if (run.length > 1) {
      kids.push(" ", h("button", {class: "mv" + (here ? " current" : ""), "data-ply": lastPly, onclick: () => showPly(lastPly + 1)}, `${t("moves.pass")} ×${run.length}`));
    } else {
      for (const m of visible) {
        const mark = cur === m.ply || (cur > m.ply && cur <= lastPly && m === visible[visible.length - 1]);
        kids.push(" ", h("button", {class: "mv" + (mark ? " current" : ""), "data-ply": m.ply, onclick: () => showPly(m.ply + 1)}, moveText(m)));
      }
    }
    lines.push(h("li", {class: here ? "here" : "", "data-turn": tr.n}, ...kids));
  }
  $("moves").replaceChildren(...lines);
  const mark = $("moves").querySelector("li.here");  // keep the marked move in sight, inside the list only
  if (mark) { const box = $("moves"); box.scrollTop = Math.max(0, mark.offsetTop - box.clientHeight / 2); }  // #moves is the offset parent
  else $("moves").scrollTop = shown ? 1e9 : 0;
}
async function loadReplay() {  // the position, the seat to move and the summary after every ply
  const r = await api(`/api/games/${GID}/positions`);
  replay = {positions: r.positions, toMove: r.to_move, summaries: r.summaries, i: replay ? replay.i : 0};
}
async function showPly(i) {  // the board, players card and scores after ply i (0: the start), as a replay
  if (!replay || replay.positions.length !== S.moves.length + 1) await loadReplay();
  replay.i = Math.max(0, Math.min(replay.positions.length - 1, i));
  render();
}
function lastTurn(upto) {  // the trailing moves of one seat among the first `upto` moves, and the position before them
  const ms = S.moves.slice(0, upto);
  if (!ms.length) return null;
  const seat = ms[ms.length - 1].seat;
  let k = ms.length;
  while (k > 0 && ms[k - 1].seat === seat) k--;
  const before = replay ? replay.positions[k] : S.last_turn && S.last_turn.ply === k ? S.last_turn.before : null;
  return {seat, ply: k, texts: ms.slice(k).map(m => m.text).filter(x => x !== "resign" && x !== "draw"), before};
}
function winnerName(i) {  // a winner in words: "Ann (white)", "Black (computer, level 3)"
  const s = S.seats[i];
  if (s.kind === "computer" && s.level !== null && s.level !== undefined) return t("game.seat_computer", {seat: cap(seatName(i)), level: s.level});
  const name = playerName(s);
  if (name === S.seat_names[i] || name === seatName(i)) return cap(seatName(i));  // a record without names: the seat
  return t("game.player_seat", {name, seat: seatName(i)});
}
function overText() {  // the end of the game as a sentence: who won and how
  const reason = reasonText(S.reason);
  if (S.result === "draw" || !S.winners.length) return t(S.reason === "agreement" ? "game.draw.agreement" : "game.draw.other", {reason});
  if (S.winners.length > 1) return t("game.win.shared", {winners: S.winners.map(winnerName).join(", "), reason});
  const how = {rings: "game.win.rings", markers: "game.win.markers", blocked: "game.win.blocked", resign: "game.win.resign",
    goal: "game.win.goal", passes: "game.win.passes"}[S.reason] || "game.win.other";
  return t(how, {winner: winnerName(S.winners[0]), reason});
}
function summaryLines(summary) {  // [key, text] per summary entry, in words: per-seat lists name their seats
  const out = [];
  for (const [k, v] of Object.entries(summary)) {
    let val = v;
    if (k === "scores" && Array.isArray(v)) val = v.map((n, i) => `${cap(seatName(i))} ${n}`).join(" · ");
    else if (k === "winners" && Array.isArray(v)) { if (!v.length) continue; val = v.map(i => cap(seatName(i))).join(", "); }
    else if (typeof v === "object") val = JSON.stringify(v);
    out.push([k, tOr(`summary.${k}`, `${k.replace(/_/g, " ")}: ${val}`, {v: val})]);
  }
  return out;
}

async function convertAll() {
  // conversions one by one, each after the server's answer to the previous one
  for (let k = 0; k < 100; k++) {
    const conv = S.legal.filter(a => /^x[A-X]{2}\d+$/i.test(a));
    if (!canAct() || !conv.length) return;
    const ply = S.ply; send(conv[0]);
    for (let w = 0; w < 50 && S.ply === ply; w++) await new Promise(r => setTimeout(r, 100));
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws/games/${GID}`);
  ws.onopen = () => { retry = 0; err(""); };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "hello") { setState(m.state); MINE = m.my_seats; $("chatlog").replaceChildren(...m.chat.map(chatLine)); render(); }
    else if (m.type === "state") { const old = S; setState(m.state); soundsFor(old, S); if (replay && replay.positions.length !== S.moves.length + 1) showPly(replay.i); else render(); }
    else if (m.type === "computer_failed") { S.computer_failed = {seat: m.seat, ply: m.ply, message: m.message}; render(); }
    else if (m.type === "chat") { $("chatlog").append(chatLine(m)); $("chatlog").scrollTop = 1e9; }
    else if (m.type === "error") { err(errorText({code: m.error, message: m.message})); if (m.error === "stale_ply") ws.send(JSON.stringify({type: "sync"})); if (m.error === "unknown_game") $("title").textContent = t("game.no_such_game"); }
  };
  ws.onclose = (ev) => { if (ev.code === 4404) return; err(t("game.connection_lost")); setTimeout(connect, Math.min(5000, 300 * 2 ** retry++)); };
}
function chatLine(m) { return h("div", {class: "chatline"}, h("b", {}, m.name), ": ", h("span", {}, m.text)); }

async function join(seat, token) {
  const name = localStorage.getItem("rg_name") || (token ? t("game.friend") : t("game.guest"));
  try { await api(`/api/games/${GID}/join`, {method: "POST", json: {seat, token, name}}); }
  catch (e) { err(errorText(e)); }
  if (ws) ws.close();  // the reconnect picks up the new seat cookie
}

async function post(path, json) {
  try { setState(Object.assign(S, await api(`/api/games/${GID}/${path}`, {method: "POST", json}))); render(); } catch (e) { err(errorText(e)); }
}
$("resign").onclick = () => { if (confirm(t("game.resign_confirm"))) post("resign", {}); };
$("draw-offer").onclick = () => post("draw", {what: "offer"});
$("draw-accept").onclick = () => post("draw", {what: "accept"});
$("draw-decline").onclick = () => post("draw", {what: "decline"});
$("claim").onclick = () => post("claim", undefined);
$("takeback-ask").onclick = () => post("takeback", {what: "ask"});
$("takeback-accept").onclick = () => post("takeback", {what: "accept"});
$("takeback-decline").onclick = () => post("takeback", {what: "decline"});
$("computer-retry").onclick = () => post("computer/retry", undefined);
$("legal-play").onclick = () => send($("legal").value);
$("again").onclick = async () => {
  try {
    const res = await api(`/api/games/${GID}/rematch`, {method: "POST"});
    sessionStorage.setItem(`invites-${res.id}`, JSON.stringify(res.invites || {}));
    location.href = `/game/${res.id}`;
  } catch (e) { err(errorText(e)); }
};
$("sound").checked = soundsOn();
$("sound").onchange = () => { localStorage.setItem("rg_sound", $("sound").checked ? "1" : "0"); if ($("sound").checked) sound("move"); };
$("anim").checked = animationsOn();
$("anim").onchange = () => { localStorage.setItem("rg_anim", $("anim").checked ? "1" : "0"); };
$("replay").onclick = () => showPly(0);
$("r-first").onclick = () => showPly(0);
$("r-prev").onclick = () => showPly(replay.i - 1);
$("r-next").onclick = () => showPly(replay.i + 1);
$("r-last").onclick = () => showPly(1e9);
$("r-live").onclick = () => { replay = null; render(); };
document.addEventListener("keydown", (ev) => {  // replay by keyboard: arrows step, Home/End jump, Escape back to the game
  if (!S || ev.altKey || ev.ctrlKey || ev.metaKey || ev.target.closest("input, textarea, select")) return;
  const at = replay ? replay.i : S.moves.length;
  const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: 1e9}[ev.key];
  if (to !== undefined) { ev.preventDefault(); showPly(to); }
  else if (ev.key === "Escape" && replay) { replay = null; render(); }
});
$("chatform").onsubmit = (ev) => {
  ev.preventDefault();
  const text = $("chattext").value.trim(); if (!text) return;
  if (!ws || ws.readyState !== 1) { err(t("game.not_connected")); return; }  // the text stays in the box
  ws.send(JSON.stringify({type: "chat", text, name: localStorage.getItem("rg_name") || t("game.guest")}));
  $("chattext").value = "";
};

(async () => {
  const q = new URLSearchParams(location.search);
  const inv = new URLSearchParams(location.hash.slice(1));  // invite links carry their single-use token in the fragment
  if (!inv.get("token") && q.get("token")) { inv.set("seat", q.get("seat")); inv.set("token", q.get("token")); }  // older links
  if (inv.get("token")) {
    history.replaceState(null, "", `/game/${GID}`);
    await join(+inv.get("seat"), inv.get("token"));
  }
  connect();
  if (q.get("replay") !== null) setTimeout(() => $("replay").click(), 300);
})();
