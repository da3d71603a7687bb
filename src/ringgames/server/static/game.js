"use strict";
const GID = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let S = null, MINE = [], ws = null, board = null, replay = null, busy = false, retry = 0;

function err(msg) { $("err").textContent = msg || ""; }
function canAct() { return S && !replay && S.to_move !== null && MINE.includes(S.to_move) && S.seats[S.to_move].kind === "human"; }

function send(action) {
  if (!ws || ws.readyState !== 1) { err("not connected — reconnecting…"); return; }
  err("");
  ws.send(JSON.stringify({type: "action", action, ply: S.ply}));
}

function render() {
  if (!S) return;
  if (!board) { board = makeBoard(S.game, $("board"), send); board.onLocal = render; }
  document.title = `${S.title} — ringgames`;
  $("title").textContent = `${S.title} (${S.variant}${S.players > 2 ? `, ${S.players} players` : ""})${S.source === "import" ? " — imported" : ""}`;
  const pos = replay ? replay.positions[replay.i] : S.position;
  const legal = replay ? [] : S.legal;
  board.draw(pos, legal, canAct());
  const d = board.describe(pos);
  let status;
  if (replay) status = `Replay: after ply ${replay.i} of ${replay.positions.length - 1}`;
  else if (S.to_move === null) status = S.result === "draw" ? `Game over: draw (${S.reason})` : `Game over: ${S.winners.map(w => S.seats[w].name + " (" + S.seat_names[w] + ")").join(" + ")} won (${S.reason})`;
  else status = `${S.seats[S.to_move].name} (${S.seat_names[S.to_move]}) to ${d.phase || "play"}` + (canAct() ? " — your turn" : "");
  $("status").replaceChildren(h("strong", {id: "turn"}, status), h("div", {class: "muted"}, d.extra));
  // seats
  $("seats").replaceChildren(...S.seats.map((s, i) => h("div", {class: "seat" + (S.to_move === i ? " to-move" : ""), "data-seat": i},
    h("span", {class: "sw", style: `background:${S.game === "yinsh" ? ["#fff", "#111"][i] : S.game === "rings" ? SEAT_COLOURS[i] : ["#eee", "#555"][i]}`}),
    `${S.seat_names[i]}: `, h("span", {class: "name"}, s.name),
    s.kind === "computer" ? " [computer]" : "", MINE.includes(i) ? " (you)" : "",
    s.open ? h("button", {onclick: () => join(i, null)}, "take this seat") : "")));
  const inv = JSON.parse(sessionStorage.getItem(`invites-${GID}`) || "{}");
  $("invites").replaceChildren(...Object.entries(inv).filter(([i]) => !S.seats[i].joined).map(([i, url]) =>
    h("p", {}, `Invite link for ${S.seat_names[i]}: `, h("a", {class: "invite", href: url, "data-invite": i}, url))));
  const sm = Object.entries(S.summary || {}).map(([k, v]) => `${k.replace(/_/g, " ")}: ${typeof v === "object" ? JSON.stringify(v) : v}`);
  $("summary").replaceChildren(...sm.map(x => h("div", {}, x)));
  // specials: actions that are not board clicks
  const sp = [];
  if (canAct()) {
    for (const a of S.legal) if (["pass", "end"].includes(a.toLowerCase())) sp.push(h("button", {"data-action": a, onclick: () => send(a)}, a === "end" ? "end the turn" : a));
    const conv = S.legal.filter(a => /^x[A-X]{2}\d+$/i.test(a));
    if (S.game === "rings" && conv.length) sp.push(h("button", {id: "convert-all", onclick: convertAll}, `convert all (${conv.length})`));
    const setups = S.legal.filter(a => /^\d{6}$/.test(a));
    if (setups.length) {
      const clicked = board.arrangement ? board.arrangement() : null;
      if (setups.length > 4) sp.push(h("button", Object.assign({id: "setup-place", onclick: () => send(clicked)}, clicked ? {} : {disabled: ""}),
        clicked ? `place ${clicked}` : "place (click your home row first)"));
      sp.push(h("span", {}, "Arrangement: "));
      for (const p of ["321123", "123321", "231132", "312213"]) if (setups.includes(p)) sp.push(h("button", {"data-action": p, onclick: () => send(p)}, p));
      sp.push(h("button", {onclick: () => send(setups[Math.floor(Math.random() * setups.length)])}, "random"));
      if (setups.length > 4) {
        const sel = h("select", {id: "setup-free"}); setups.forEach(s => sel.append(h("option", {value: s}, s)));
        sp.push(sel, h("button", {onclick: () => send(sel.value)}, "place"));
      }
    }
  }
  $("specials").replaceChildren(...sp);
  $("legal").replaceChildren(...(canAct() ? S.legal : []).map(a => h("option", {value: a}, a)));
  // moves
  $("moves").replaceChildren(...S.moves.map(m => h("li", {}, `${S.seat_names[m.seat]} ${m.text}`)));
  $("moves").scrollTop = 1e9;
  // buttons
  const over = S.to_move === null, player = MINE.some(i => S.active.includes(i));
  $("resign").style.display = !over && player ? "" : "none";
  const offered = S.draw_offers.length > 0, iOffered = MINE.some(i => S.draw_offers.includes(i));
  const allHuman = S.active.every(i => S.seats[i].kind === "human");  // the computer never accepts a draw
  $("draw-offer").style.display = !over && player && !offered && allHuman ? "" : "none";
  $("draw-accept").style.display = !over && player && offered && !iOffered ? "" : "none";
  $("draw-decline").style.display = !over && player && offered ? "" : "none";
  const next = S.tags && S.tags.rematch;
  $("again").style.display = over && MINE.length && S.source !== "import" ? "" : "none";
  $("again").textContent = next ? "Play again — join the new game" : "Play again";
  $("next-game").replaceChildren(...(over && next && !MINE.length ? [h("a", {href: `/game/${next}`}, "watch the next game")] : []));
  $("result").textContent = offered && !over ? `Draw offered by ${S.draw_offers.map(i => S.seats[i].name).join(", ")}`
    : over && next && MINE.length ? "A new game with the same seats has been started." : "";
  $("record").href = `/api/games/${GID}/record`;
  $("replaybar").style.display = replay ? "" : "none";
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
    if (m.type === "hello") { S = m.state; MINE = m.my_seats; $("chatlog").replaceChildren(...m.chat.map(chatLine)); render(); }
    else if (m.type === "state") { S = m.state; render(); }
    else if (m.type === "chat") { $("chatlog").append(chatLine(m)); $("chatlog").scrollTop = 1e9; }
    else if (m.type === "error") { err(m.message); if (m.error === "stale_ply") ws.send(JSON.stringify({type: "sync"})); if (m.error === "unknown_game") $("title").textContent = "No such game"; }
  };
  ws.onclose = (ev) => { if (ev.code === 4404) return; err("connection lost — reconnecting…"); setTimeout(connect, Math.min(5000, 300 * 2 ** retry++)); };
}
function chatLine(m) { return h("div", {class: "chatline"}, h("b", {}, m.name), ": ", h("span", {}, m.text)); }

async function join(seat, token) {
  const name = localStorage.getItem("rg_name") || (token ? "friend" : "guest");
  try { await api(`/api/games/${GID}/join`, {method: "POST", json: {seat, token, name}}); }
  catch (e) { err(e.message); }
  if (ws) ws.close();  // the reconnect picks up the new seat cookie
}

async function post(path, json) {
  try { S = Object.assign(S, await api(`/api/games/${GID}/${path}`, {method: "POST", json})); render(); } catch (e) { err(e.message); }
}
$("resign").onclick = () => { if (confirm("Resign this game?")) post("resign", {}); };
$("draw-offer").onclick = () => post("draw", {what: "offer"});
$("draw-accept").onclick = () => post("draw", {what: "accept"});
$("draw-decline").onclick = () => post("draw", {what: "decline"});
$("legal-play").onclick = () => send($("legal").value);
$("again").onclick = async () => {
  try {
    const res = await api(`/api/games/${GID}/rematch`, {method: "POST"});
    sessionStorage.setItem(`invites-${res.id}`, JSON.stringify(res.invites || {}));
    location.href = `/game/${res.id}`;
  } catch (e) { err(e.message); }
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
  if (!ws || ws.readyState !== 1) { err("not connected — reconnecting…"); return; }  // the text stays in the box
  ws.send(JSON.stringify({type: "chat", text, name: localStorage.getItem("rg_name") || "guest"}));
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
