"use strict";
const GID = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let S = null, MINE = [], ws = null, board = null, replay = null, busy = false, retry = 0;
// the clocks: ms left per seat as the server last said, and when that arrived (ticked down locally in between)
let CLOCK = null;
// games without a clock: when (performance.now()) the others may claim the game against the seat to move
let CLAIM_AT = null;

function err(msg) { $("err").textContent = msg || ""; }
const seatName = (i) => tOr(`seat.${S.seat_names[i]}`, S.seat_names[i]);
const reasonText = (r) => tOr(`reason.${r}`, r);
function canAct() { return S && !replay && S.to_move !== null && MINE.includes(S.to_move) && S.seats[S.to_move].kind === "human"; }

function send(action) {
  if (!ws || ws.readyState !== 1) { err(t("game.not_connected")); return; }
  err("");
  ws.send(JSON.stringify({type: "action", action, ply: S.ply}));
}

function setState(state) {  // every server message corrects the clocks
  S = state;
  CLOCK = S.clocks ? {left: S.clocks.slice(), running: S.clock_running, at: performance.now()} : null;
  CLAIM_AT = typeof S.claim_in === "number" ? performance.now() + S.claim_in : null;
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
  const claimable = CLAIM_AT !== null && performance.now() >= CLAIM_AT && S.to_move !== null && !replay
    && MINE.some(i => i !== S.to_move && S.active.includes(i)) && !MINE.includes(S.to_move);
  if ($("claim").hidden === claimable) $("claim").hidden = !claimable;  // only when it changes
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
  document.title = t("title.game_named", {title: S.title});
  const variant = tOr(`variant.${S.variant}`, S.variant);
  const heading = S.players > 2 ? tn("game.heading_players", S.players, {title: S.title, variant}) : t("game.heading", {title: S.title, variant});
  $("title").textContent = S.source === "import" ? t("game.heading_imported", {heading}) : heading;
  const pos = replay ? replay.positions[replay.i] : S.position;
  const legal = replay ? [] : S.legal;
  board.draw(pos, legal, canAct());
  const d = board.describe(pos);
  let status;
  if (replay) status = t("game.replay_status", {i: replay.i, n: replay.positions.length - 1});
  else if (S.status === "aborted") status = t("game.aborted");
  else if (S.reason === "stopped") status = t("game.stopped");
  else if (S.to_move === null) status = S.result === "draw" ? t("game.over_draw", {reason: reasonText(S.reason)})
    : t("game.over_won", {winners: S.winners.map(w => t("game.player_seat", {name: playerName(S.seats[w]), seat: seatName(w)})).join(" + "), reason: reasonText(S.reason)});
  else status = t(canAct() ? "game.to_act_mine" : "game.to_act", {name: playerName(S.seats[S.to_move]), seat: seatName(S.to_move), phase: d.phase || t("phase.play")});
  $("status").replaceChildren(h("strong", {id: "turn"}, status), h("div", {class: "muted"}, d.extra));
  // seats
  $("seats").replaceChildren(...S.seats.map((s, i) => h("div", {class: "seat" + (S.to_move === i ? " to-move" : ""), "data-seat": i},
    h("span", {class: "sw", style: `background:${S.game === "yinsh" ? ["#fff", "#111"][i] : S.game === "rings" ? SEAT_COLOURS[i] : ["#eee", "#555"][i]}`}),
    t("game.seat_label", {seat: seatName(i)}), h("span", {class: "name"}, playerName(s)),
    s.kind === "computer" ? ` ${t("game.computer")}` : "", MINE.includes(i) ? ` ${t("game.you")}` : "",
    s.open ? h("button", {onclick: () => join(i, null)}, t("game.take_seat")) : "",
    CLOCK ? h("span", {class: "clock mono", "data-seat": i}) : "")));
  $("tc").textContent = S.time_control ? t("game.time_control", {label: tcText(S.time_control)}) : "";
  tick();
  const inv = JSON.parse(sessionStorage.getItem(`invites-${GID}`) || "{}");
  $("invites").replaceChildren(...Object.entries(inv).filter(([i]) => !S.seats[i].joined).map(([i, url]) =>
    h("p", {}, t("game.invite_link", {seat: seatName(i)}), h("a", {class: "invite", href: url, "data-invite": i}, url))));
  const sm = Object.entries(S.summary || {}).map(([k, v]) => {
    const val = typeof v === "object" ? JSON.stringify(v) : v;
    return tOr(`summary.${k}`, `${k.replace(/_/g, " ")}: ${val}`, {v: val});
  });
  $("summary").replaceChildren(...sm.map(x => h("div", {}, x)));
  // specials: actions that are not board clicks
  const sp = [];
  if (canAct()) {
    for (const a of S.legal) if (["pass", "end"].includes(a.toLowerCase())) sp.push(h("button", {"data-action": a, onclick: () => send(a)}, a === "end" ? t("action.end") : t("action.pass")));
    const conv = S.legal.filter(a => /^x[A-X]{2}\d+$/i.test(a));
    if (S.game === "rings" && conv.length) sp.push(h("button", {id: "convert-all", onclick: convertAll}, t("action.convert_all", {n: conv.length})));
    const setups = S.legal.filter(a => /^\d{6}$/.test(a));
    if (setups.length) {
      const clicked = board.arrangement ? board.arrangement() : null;
      if (setups.length > 4) sp.push(h("button", Object.assign({id: "setup-place", onclick: () => send(clicked)}, clicked ? {} : {disabled: ""}),
        clicked ? t("setup.place_arrangement", {arrangement: clicked}) : t("setup.place_hint")));
      sp.push(h("span", {}, t("setup.arrangement")));
      for (const p of ["321123", "123321", "231132", "312213"]) if (setups.includes(p)) sp.push(h("button", {"data-action": p, onclick: () => send(p)}, p));
      sp.push(h("button", {onclick: () => send(setups[Math.floor(Math.random() * setups.length)])}, t("setup.random_button")));
      if (setups.length > 4) {
        const sel = h("select", {id: "setup-free"}); setups.forEach(s => sel.append(h("option", {value: s}, s)));
        sp.push(sel, h("button", {onclick: () => send(sel.value)}, t("setup.place")));
      }
    }
  }
  $("specials").replaceChildren(...sp);
  $("legal").replaceChildren(...(canAct() ? S.legal : []).map(a => h("option", {value: a}, a)));
  // moves
  $("moves").replaceChildren(...S.moves.map(m => h("li", {}, `${seatName(m.seat)} ${m.text}`)));
  $("moves").scrollTop = 1e9;
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
  const next = S.tags && S.tags.rematch;
  $("again").hidden = !(over && MINE.length && S.source !== "import");
  $("again").textContent = next ? t("game.again_join") : t("game.again");
  $("next-game").replaceChildren(...(over && next && !MINE.length ? [h("a", {href: `/game/${next}`}, t("game.watch_next"))] : []));
  $("result").textContent = offered && !over ? t("game.draw_offered", {names: S.draw_offers.map(i => S.seats[i].name).join(", ")})
    : tb && !over ? t("game.takeback_asked", {name: playerName(S.seats[tb.seat])})
    : over && next && MINE.length ? t("game.rematch_started") : "";
  $("record").href = `/api/games/${GID}/record`;
  $("replaybar").hidden = !replay;
  if (replay) $("r-ply").textContent = `${replay.i}/${replay.positions.length - 1}`;
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
    else if (m.type === "state") { setState(m.state); render(); }
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
$("legal-play").onclick = () => send($("legal").value);
$("again").onclick = async () => {
  try {
    const res = await api(`/api/games/${GID}/rematch`, {method: "POST"});
    sessionStorage.setItem(`invites-${res.id}`, JSON.stringify(res.invites || {}));
    location.href = `/game/${res.id}`;
  } catch (e) { err(errorText(e)); }
};
$("replay").onclick = async () => {
  const {positions} = await api(`/api/games/${GID}/positions`);
  replay = {positions, i: 0}; render();
};
const step = (f) => () => { replay.i = Math.max(0, Math.min(replay.positions.length - 1, f(replay.i))); render(); };
$("r-first").onclick = step(() => 0);
$("r-prev").onclick = step(i => i - 1);
$("r-next").onclick = step(i => i + 1);
$("r-last").onclick = step(() => 1e9);
$("r-live").onclick = () => { replay = null; render(); };
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
