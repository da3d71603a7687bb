"use strict";
// The lobby: a card per game (its board, one line on it, play the computer in one click, play a friend through an
// invite link), the TV game, the full form to create a game ("more options", open at /#create), seeks, open and
// live games.
let META = {};
const KINDS = ["me", "invite", "open", "computer"];
const $ = (id) => document.getElementById(id);
const seatName = (s) => tOr(`seat.${s}`, s);
function seatRows() {
  const g = META[$("game").value]; const n = +($("players").value || g.players[0]);
  const names = g.seat_names[n];
  const rows = names.map((s, i) => {
    const sel = h("select", {id: `kind-${i}`, "data-seat": i});
    KINDS.forEach(v => sel.append(h("option", {value: v}, t(`kind.${v}`))));
    sel.value = i === 0 ? "me" : "computer";
    const level = h("label", {id: `level-l-${i}`}, `${t("lobby.level")} `, h("input", {id: `level-${i}`, class: "level", type: "number", min: 0, max: 5, value: 1, title: t("lobby.level_help")}));
    const shown = () => { level.hidden = sel.value !== "computer"; };  // a level only for a computer seat
    sel.addEventListener("change", shown); shown();
    return h("tr", {}, h("td", {}, seatName(s)), h("td", {}, sel), h("td", {}, level));
  });
  $("seats").replaceChildren(...rows);
}
function gameChanged() {
  const g = META[$("game").value];
  $("variant").replaceChildren(...g.variants.map(v => h("option", {value: v}, tOr(`variant.${v}`, v))));
  const [lo, hi] = g.players; const opts = [];
  for (let n = lo; n <= hi; n++) opts.push(h("option", {value: n}, n));
  $("players").replaceChildren(...opts);
  $("players-l").hidden = lo === hi;
  $("setup-l").hidden = $("game").value !== "gyges";
  seatRows();
}
// Seeks (logged-in players): post one with the form's game, variant, players and "rated" (up to three open at once,
// one per kind); quick pairing looks for a compatible seek near my rating; my seeks are kept alive while this page
// is open, and the page opens the game once one of them starts. The open seeks come through the lobby's WebSocket
// (/ws/lobby) as soon as they change; while it is closed the page polls GET /api/seeks (every 3 s, backing off to 30 s)
// and reconnects (backing off too).
const ME = document.getElementById("me") ? document.getElementById("me").textContent : null;
const mySeeks = new Set();
function seekBody(quick) {
  const g = META[$("game").value];
  const body = {game: $("game").value, variant: $("variant").value, players: +($("players").value || g.players[0]), quick};
  const rated = document.getElementById("rated");
  if (rated && rated.checked) body.rated = true;
  for (const [id, k] of [["seek-min", "rating_min"], ["seek-max", "rating_max"]]) if ($(id).value !== "") body[k] = +$(id).value;
  return body;
}
async function postSeek(quick) {
  $("seek-err").textContent = "";
  try {
    const body = seekBody(quick);
    if (quick && body.rating_min === undefined && body.rating_max === undefined) {  // near my rating: ±300
      const me = await api("/api/me");
      const key = body.game === "rings" || body.variant === "standard" ? body.game : `${body.game}-${body.variant}`;
      const r = me.ratings[key] ? Math.round(me.ratings[key].rating) : 1500;
      body.rating_min = Math.max(0, r - 300); body.rating_max = r + 300;
    }
    const res = await api("/api/seeks", {method: "POST", json: body});
    if (res.game_id) { openGame(res.game_id); return; }
    mySeeks.add(res.seek.id); $("my-seek").hidden = false; if (!lobbyOpen()) pollSeeks();
  } catch (e) { $("seek-err").textContent = errorText(e); }
}
let opening = null;  // the game this page is on its way to (the accept's answer and the lobby's "accepted" both say it)
function openGame(id) {  // one navigation: a second one to the same game would abort the first
  if (opening === id) return;
  opening = id;
  location.href = `/game/${id}`;
}
async function acceptSeek(id) {
  $("seek-err").textContent = "";
  try {
    const res = await api(`/api/seeks/${id}/accept`, {method: "POST"});
    if (res.game_id) openGame(res.game_id); else if (!lobbyOpen()) pollSeeks();
  } catch (e) { $("seek-err").textContent = errorText(e); if (!lobbyOpen()) pollSeeks(); }
}
async function withdrawSeek(id) {
  await api(`/api/seeks/${id}`, {method: "DELETE"}).catch(() => null);
  mySeeks.delete(id); if (!lobbyOpen()) pollSeeks();
}
async function showSeeks(list) {
  const open = new Set(list.map(s => s.id));
  for (const id of [...mySeeks]) {  // one of mine left the list: has its game started? (else it was withdrawn or expired)
    if (open.has(id)) continue;
    const s = await api(`/api/seeks/${id}`).catch(() => null);
    if (s && s.game_id) { openGame(s.game_id); return; }
    mySeeks.delete(id);
  }
  for (const s of list) if (ME && s.owner === ME) mySeeks.add(s.id);  // also those posted before a reload
  if (ME) $("my-seek").hidden = !mySeeks.size;  // (guests have no seeks)
  const rows = list.map(s => h("tr", {"data-seek": s.id},
    h("td", {}, `${s.owner} (${Math.round(s.rating)}${s.provisional ? "?" : ""})`),
    h("td", {}, `${META[s.game] ? META[s.game].title : s.game} ${tOr(`variant.${s.variant}`, s.variant)}`
                + (s.players > 2 ? ` · ${tn("lobby.seek_players", s.players)}` : "")),
    h("td", {}, s.rated ? t("player.rated") : t("player.casual")),
    h("td", {}, s.rating_min !== null || s.rating_max !== null ? `${s.rating_min ?? ""}–${s.rating_max ?? ""}` : ""),
    h("td", {}, !ME ? "" : s.owner === ME
      ? h("button", {type: "button", class: "withdraw", onclick: () => withdrawSeek(s.id)}, t("lobby.withdraw"))
      : s.joined.includes(ME) ? t("lobby.my_seek_waiting")
      : h("button", {type: "button", class: "accept", onclick: () => acceptSeek(s.id)}, t("lobby.accept")))));
  $("seeks").replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", {class: "muted"}, t("lobby.none")))]));
}
async function keepMySeeks() {  // kept alive while this page is open (a seek lasts 90 s)
  for (const id of mySeeks) await api(`/api/seeks/${id}/keep`, {method: "POST"}).catch(() => null);
}
let lobbyWs = null, lobbyRetry = 0, pollTimer = null, pollDelay = 3000;
window.lobbyMessages = 0;  // seek lists pushed to this page (for tests)
function lobbyOpen() { return lobbyWs !== null && lobbyWs.readyState === 1; }
async function pollSeeks() {
  try { await showSeeks((await api("/api/seeks")).seeks); } catch (e) { /* the next poll or the socket */ }
}
function pollWhileClosed() {  // the fallback: polls only while the socket is closed, less often the longer it stays so
  clearTimeout(pollTimer);
  if (lobbyOpen()) return;
  pollSeeks();
  pollTimer = setTimeout(pollWhileClosed, pollDelay);
  pollDelay = Math.min(30000, pollDelay * 2);
}
function lobbySocket() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  lobbyWs = new WebSocket(`${proto}://${location.host}/ws/lobby`);
  lobbyWs.onopen = () => { lobbyRetry = 0; pollDelay = 3000; clearTimeout(pollTimer); };
  lobbyWs.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "seeks") { window.lobbyMessages += 1; showSeeks(m.seeks); }
    else if (m.type === "accepted") openGame(m.game_id);  // a seek of mine (or one I joined) started
  };
  lobbyWs.onclose = () => {
    pollWhileClosed();
    setTimeout(lobbySocket, Math.min(30000, 1000 * 2 ** lobbyRetry++));
  };
}
// time controls: the presets (minutes + increment seconds), custom values, days per move (docs/time-controls.md)
const PRESETS = [[3, 2], [5, 3], [10, 5], [15, 10]];
const DAYS = [1, 2, 3, 5, 7, 14];
function timeOptions() {
  const rt = h("optgroup", {label: t("time.realtime")});
  PRESETS.forEach(([m, s]) => rt.append(h("option", {value: `rt:${m * 60}:${s}`}, `${m}+${s}`)));
  rt.append(h("option", {value: "custom"}, t("time.custom")));
  const cor = h("optgroup", {label: t("time.correspondence")});
  DAYS.forEach(d => cor.append(h("option", {value: `days:${d}`}, tn("time.days", d))));
  $("tc").replaceChildren(h("option", {value: ""}, t("time.none")), rt, cor);
  $("tc").value = "";  // no clock is the default
  $("tc").onchange = () => { $("tc-custom").hidden = $("tc").value !== "custom"; };
}
function timeControl() {  // the request's clock or correspondence field
  const v = $("tc").value;
  if (!v) return {};
  if (v === "custom") return {clock: {initial: Math.round(+$("tc-min").value * 60), increment: Math.round(+$("tc-inc").value)}};
  const [kind, a, b] = v.split(":");
  return kind === "days" ? {correspondence: {days: +a}} : {clock: {initial: +a, increment: +b}};
}
function tcLabel(label) {  // "300+3" (seconds) → "5+3"; "3d" → "3 days per move"
  if (!label) return "";
  const m = /^(\d+)d$/.exec(label);
  if (m) return tn("time.days", +m[1]);
  const [i, s] = label.split("+");
  return `${+(+i / 60).toFixed(2)}+${s}`;
}
async function lists() {
  for (const st of ["open", "live"]) {
    const {games} = await api(`/api/games?status=${st}&limit=30`);
    const rows = games.map(g => h("tr", {},
      h("td", {}, h("a", {href: `/game/${g.id}`}, `${META[g.game] ? META[g.game].title : g.game} ${tOr(`variant.${g.variant}`, g.variant)}`)),
      h("td", {}, g.seats.map(s => s.open ? t("lobby.open_seat") : playerName(s)).join(" · ")),
      h("td", {}, tn("lobby.plies", g.ply)),
      h("td", {class: "muted"}, tcLabel(g.time_control)
        + (g.time_left !== null && g.time_left !== undefined ? ` · ${t("lobby.time_left", {time: formatClock(g.time_left, /d$/.test(g.time_control))})}` : ""))));
    $(st).replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", {class: "muted"}, t("lobby.none")))]));
  }
}
// ---------------------------------------------------------------- the game cards
function myName() { return (localStorage.getItem("rg_name") || "").trim() || t("lobby.default_name"); }
async function quickGame(card, second) {  // a two-player game of the card's game: me and `second` (a computer or an invite)
  const err = card.querySelector(".card-err"); err.textContent = "";
  const body = {game: card.dataset.game, seats: [{kind: "me", name: myName()}, second]};
  const res = await api("/api/games", {method: "POST", json: body}).catch(e => { err.textContent = errorText(e); return null; });
  if (res) sessionStorage.setItem(`invites-${res.id}`, JSON.stringify(res.invites || {}));
  return res;
}
function setupCard(card) {
  const board = makeBoard(card.dataset.game, card.querySelector("svg.mini-board"), () => {});
  board.draw(card.dataset.position, [], false, null);
  for (const b of card.querySelectorAll(".level-btn")) b.onclick = async () => {
    const res = await quickGame(card, {kind: "computer", level: +b.dataset.level});
    if (res) openGame(res.id);
  };
  const box = card.querySelector(".invite-box"), link = card.querySelector(".invite-link");
  card.querySelector(".friend-btn").onclick = async () => {
    const res = await quickGame(card, {kind: "invite"});
    if (!res) return;
    link.value = res.invites["1"];
    card.querySelector(".go-game").href = `/game/${res.id}`;
    card.querySelector(".copied").hidden = true;
    box.hidden = false; link.focus(); link.select();
  };
  card.querySelector(".copy-btn").onclick = async () => {
    link.select();
    const ok = navigator.clipboard ? await navigator.clipboard.writeText(link.value).then(() => true, () => false) : false;
    card.querySelector(".copied").hidden = !ok;
  };
}
// ---------------------------------------------------------------- the TV game: a live game's board, redrawn as it moves
let tvBoard = null, tvGame = null, tvShown = null;
async function tv() {
  const res = await api("/api/tv").catch(() => null);
  if (!res) return;
  const g = res.game;
  $("tv").hidden = !g; $("tv-none").hidden = !!g;
  if (!g) { tvShown = null; return; }
  const key = `${g.id}:${g.ply}`;
  if (key === tvShown) return;
  if (!tvBoard || tvGame !== g.game) {  // a fresh drawing surface for another game
    const svg = $("tv-board").cloneNode(false);
    $("tv-board").replaceWith(svg);
    tvBoard = makeBoard(g.game, svg, () => {}); tvGame = g.game;
  }
  const last = g.last_turn ? {seat: g.last_turn.seat, ply: g.last_turn.ply, texts: g.last_turn.texts, before: g.last_turn.before, animate: false} : null;
  tvBoard.draw(g.position, [], false, last);
  $("tv-board").dataset.game = g.id; $("tv-board").dataset.ply = g.ply;
  $("tv-link").href = $("tv-watch").href = `/game/${g.id}`;
  const variant = g.variant === "standard" ? "" : ` ${tOr(`variant.${g.variant}`, g.variant)}`;
  $("tv-caption").textContent = `${g.title}${variant}: ${g.seats.map(playerName).join(" – ")} · ${tn("lobby.plies", g.ply)}`;
  tvShown = key;
}
function openForm() { if (location.hash === "#create") { $("more").open = true; $("create").scrollIntoView(); } }
window.addEventListener("hashchange", openForm);
document.querySelectorAll(".game-card").forEach(setupCard);
openForm();
tv(); setInterval(tv, 2000);

(async () => {
  META = await api("/api/meta");
  $("game").replaceChildren(...Object.entries(META).map(([k, v]) => h("option", {value: k}, v.title)));
  $("game").onchange = gameChanged; $("players").onchange = seatRows;
  gameChanged(); timeOptions(); lists(); setInterval(lists, 5000);
  lobbySocket(); setInterval(keepMySeeks, 30000);
  if (ME) { $("post-seek").onclick = () => postSeek(false); $("quick-seek").onclick = () => postSeek(true); }
  $("myname").value = localStorage.getItem("rg_name") || "";
})();
$("newgame").onsubmit = async (ev) => {
  ev.preventDefault();
  const g = META[$("game").value]; const n = +($("players").value || g.players[0]);
  const name = $("myname").value.trim(); localStorage.setItem("rg_name", name);
  const seats = [];
  for (let i = 0; i < n; i++) {
    const kind = $(`kind-${i}`).value;
    seats.push(kind === "computer" ? {kind, level: +$(`level-${i}`).value} : {kind, name: kind === "me" ? (name || t("lobby.default_name")) : null});
  }
  const body = Object.assign({game: $("game").value, variant: $("variant").value, players: n, seats}, timeControl());
  if (body.game === "gyges") body.setup = $("setup").value;
  const rated = document.getElementById("rated");  // shown to logged-in players only
  if (rated && rated.checked) body.rated = true;
  try {
    const res = await api("/api/games", {method: "POST", json: body});
    sessionStorage.setItem(`invites-${res.id}`, JSON.stringify(res.invites || {}));
    openGame(res.id);
  } catch (e) { $("err").textContent = errorText(e); }
};
