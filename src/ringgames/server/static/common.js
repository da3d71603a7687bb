"use strict";
// The page's language and messages: the server embeds them as JSON (<script type="application/json" id="i18n">).
const I18N = JSON.parse(document.getElementById("i18n").textContent);
const PLURALS = new Intl.PluralRules(I18N.lang);
function fill(text, params) { return text.replace(/\{([a-z_]+)\}/g, (m, k) => (k in params ? String(params[k]) : m)); }
function t(key, params = {}) {  // a message of the page's language, {name} placeholders filled in
  const s = I18N.messages[key];
  if (typeof s !== "string") { console.warn("no message", key); return key; }
  return fill(s, params);
}
function tn(key, n, params = {}) {  // a plural message for the count n, by the language's plural rules
  const forms = I18N.messages[key];
  if (!Array.isArray(forms)) { console.warn("no plural message", key); return `${key} ${n}`; }
  let i = I18N.plural.indexOf(PLURALS.select(n));
  if (i < 0 || i >= forms.length) i = forms.length - 1;
  return fill(forms[i], Object.assign({n}, params));
}
function tOr(key, fallback, params = {}) {  // a message if the catalog has one (a server word: seat, variant...), else the word
  return typeof I18N.messages[key] === "string" ? t(key, params) : fallback;
}
function formatClock(ms, days) {  // a clock: m:ss, h:mm:ss from an hour, tenths under 10 s (real time), "N d H h" from a day
  if (days && ms >= 86400000) return t("clock.days_hours", {d: Math.floor(ms / 86400000), h: Math.floor(ms / 3600000) % 24});
  if (ms < 10000 && !days) return (Math.floor(ms / 100) / 10).toFixed(1);
  const s = Math.floor(ms / 1000), two = (x) => String(x).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}
function playerName(seat) {  // a seat's player name; the server's "computer (level N)" and "waiting…" in the page's language
  if (seat.kind === "human" && seat.joined !== true && seat.name === "waiting…") return t("game.waiting");
  const m = seat.kind === "computer" && /^computer(?: \(level (\d+)\))?$/.exec(seat.name || "");
  if (!m) return seat.name;
  return m[1] === undefined ? t("kind.computer") : t("game.computer_level", {level: m[1]});
}
function cap(s) { return s ? s.charAt(0).toLocaleUpperCase(I18N.lang) + s.slice(1) : s; }  // a word that starts a sentence
function seatWord(name) { return tOr(`seat.${name}`, name); }  // a seat's name (white, north, red...) in the page's language
function resultText(result) {  // a game's result as words: "White won", "Draw", "Unfinished", "Shared win: Red, Blue"
  if (result === "draw" || result === "none") return tOr(`result.${result}`, result);
  const seats = String(result).split("+").map(seatWord);
  return seats.length > 1 ? t("result.shared", {seats: seats.map(cap).join(", ")}) : t("result.won", {seat: cap(seats[0])});
}
function errorText(e) {  // an API error in the page's language: by its machine-readable code, else the server's words
  if (e && e.code && I18N.lang !== "en" && typeof I18N.messages[`error.${e.code}`] === "string") return t(`error.${e.code}`);
  return e && e.message ? e.message : String(e);
}
async function api(path, opts = {}) {
  const o = {method: opts.method || "GET", headers: {}, credentials: "same-origin"};
  if (opts.json !== undefined) { o.headers["Content-Type"] = "application/json"; o.body = JSON.stringify(opts.json); }
  if (opts.body) o.body = opts.body;
  const r = await fetch(path, o);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const err = new Error((data && data.message) || t("error.http", {status: `${r.status} ${r.statusText}`}));
    err.code = data && data.error; err.data = data;
    throw err;
  }
  return data;
}
function h(tag, attrs = {}, ...kids) {  // builds DOM nodes; text always goes in as text, never as HTML
  const e = document.createElement(tag);
  for (const k in attrs) {
    const v = attrs[k];
    if (k === "onclick") e.onclick = v;
    else if (k === "style") e.style.cssText = v;  // through the CSSOM: the CSP forbids style attributes
    else if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
document.addEventListener("DOMContentLoaded", () => {  // the language picker: reload the page in the chosen language
  const sel = document.getElementById("lang");
  if (sel) sel.addEventListener("change", () => {
    const u = new URL(location.href); u.searchParams.set("lang", sel.value); location.href = u.toString();
  });
  const count = document.getElementById("my-turn-count");  // logged in: keep "my games" count (and the title) current
  if (count) {
    const title = document.title;
    const update = async () => {
      const mine = await api("/api/me/games").catch(() => null);
      if (!mine) return;
      const n = mine.my_turn.length;
      count.textContent = String(n);
      count.classList.toggle("turn", n > 0);
      if (!document.getElementById("board")) document.title = n > 0 ? `(${n}) ${title}` : title;  // game pages have their own
    };
    update(); setInterval(update, 5000);
  }
  const out = document.getElementById("logout");  // the header's log-out button (logged-in players)
  if (out) out.addEventListener("click", async () => { await api("/api/session", {method: "DELETE"}); location.reload(); });
});
