"use strict";
// A player's page: ratings per game and variant, the rating history drawn as a chart, recent games.
// game names are the same in every language (docs/i18n.md); the variants are translated
const KEY_NAMES = {"yinsh": "YINSH", "yinsh-blitz": t("rating.yinsh_blitz"), "gyges": "Gygès",
                   "gyges-beginner": t("rating.gyges_beginner"), "rings": "RINGS"};
const KEY_COLOURS = {"yinsh": "#1f6fb4", "yinsh-blitz": "#7fb3e0", "gyges": "#b4531f", "gyges-beginner": "#e0a07f", "rings": "#2a8a3a"};
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}

function drawChart(box, history) {  // one line per rating key: the rating after each rated game, in order
  if (!history.length) { box.append(h("p", {}, t("player.no_history"))); return; }
  const W = 640, H = 240, L = 50, R = 10, T = 10, B = 20;
  const values = history.map((p) => p.rating).concat(history.map((p) => p.before));
  let lo = Math.min(...values), hi = Math.max(...values);
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const n = history.length;  // slot 0: before the first game; slot i + 1: after game i
  const x = (i) => L + i * (W - L - R) / n;
  const y = (v) => T + (hi - v) * (H - T - B) / (hi - lo);
  const chart = svg("svg", {viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "aria-label": t("player.history"), id: "rating-chart"});
  chart.append(svg("line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#999"}), svg("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#999"}));
  for (const v of [lo, hi]) {
    const label = svg("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": "11"});
    label.textContent = String(Math.round(v));
    chart.append(label);
  }
  const keys = [...new Set(history.map((p) => p.key))];
  for (const key of keys) {
    const games = history.map((p, i) => [i, p]).filter(([, p]) => p.key === key);  // each line starts where its first game began
    const pts = [`${x(games[0][0]).toFixed(1)},${y(games[0][1].before).toFixed(1)}`]
      .concat(games.map(([i, p]) => `${x(i + 1).toFixed(1)},${y(p.rating).toFixed(1)}`));
    chart.append(svg("polyline", {points: pts.join(" "), fill: "none", stroke: KEY_COLOURS[key] || "#333", "stroke-width": "2", "data-key": key}));
    for (const pt of pts) {
      const [cx, cy] = pt.split(",");
      chart.append(svg("circle", {cx, cy, r: "3", fill: KEY_COLOURS[key] || "#333"}));
    }
  }
  box.append(chart);
  box.append(h("p", {}, ...keys.map((k) => h("span", {class: `legend legend-${k}`}, `■ ${KEY_NAMES[k] || k}  `))));
}

const OUTCOMES = {"win": t("player.win"), "loss": t("player.loss"), "draw": t("player.draw")};
let listPage = 1;

async function gameList(name) {  // the game list with the form's filters, one page
  const q = new URLSearchParams({page: String(listPage)});
  for (const [id, k] of [["f-game", "game"], ["f-result", "result"], ["f-opponent", "opponent"]]) {
    const v = document.getElementById(id).value.trim();
    if (v) q.set(k, v);
  }
  const p = await api(`/api/players/${encodeURIComponent(name)}?${q}`);
  const games = document.getElementById("player-games");
  games.replaceChildren(...p.games.map((g) => h("tr", {"data-id": g.id},
    h("td", {}, h("a", {href: `/game/${g.id}`}, KEY_NAMES[g.game === "rings" || g.variant === "standard" ? g.game : `${g.game}-${g.variant}`] || g.game)),
    h("td", {}, g.names.filter((n, i) => !g.seats.includes(i)).map((n) => playerName({kind: "human", name: n, joined: true})).join(", ")),
    h("td", {class: "outcome"}, OUTCOMES[g.outcome] || ""), h("td", {}, g.rated ? t("player.rated") : t("player.casual")),
    h("td", {}, g.updated ? new Date(g.updated).toLocaleString(I18N.lang) : ""))));
  if (!p.games.length) games.append(h("tr", {}, h("td", {}, t("mygames.none"))));
  document.getElementById("p-page").textContent = t("player.page", {page: p.page, pages: p.pages});
  document.getElementById("p-prev").disabled = p.page <= 1;
  document.getElementById("p-next").disabled = p.page >= p.pages;
}

document.addEventListener("DOMContentLoaded", async () => {
  const name = decodeURIComponent(location.pathname.split("/").pop());
  let p;
  try {
    p = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (e) {
    document.getElementById("player-err").textContent = e.code === "unknown_player" ? t("player.not_found") : errorText(e);
    return;
  }
  document.getElementById("player-name").textContent = p.username;
  document.getElementById("player-since").textContent = t("player.since", {date: new Date(p.created).toLocaleDateString(I18N.lang)});
  const table = document.getElementById("ratings");
  table.append(h("tr", {}, h("th", {}, ""), h("th", {}, t("player.rating")), h("th", {}, t("player.deviation")), h("th", {}, t("player.games_count"))));
  for (const [key, r] of Object.entries(p.ratings)) {
    table.append(h("tr", {"data-key": key}, h("td", {}, KEY_NAMES[key] || key),
                    h("td", {class: "rating"}, String(Math.round(r.rating)) + (r.provisional ? "?" : "")),
                    h("td", {}, `±${Math.round(r.deviation)}`), h("td", {}, String(r.games))));
  }
  if (!Object.keys(p.ratings).length) table.append(h("tr", {}, h("td", {}, t("player.no_history"))));
  else table.append(h("tr", {}, h("td", {colspan: "4"}, h("small", {}, t("player.provisional_note")))));
  drawChart(document.getElementById("chart"), p.history);
  const refresh = () => { listPage = 1; gameList(p.username); };
  for (const id of ["f-game", "f-result"]) document.getElementById(id).addEventListener("change", refresh);
  document.getElementById("f-opponent").addEventListener("input", refresh);
  document.getElementById("game-filter").addEventListener("submit", (ev) => { ev.preventDefault(); refresh(); });
  document.getElementById("p-prev").addEventListener("click", () => { listPage -= 1; gameList(p.username); });
  document.getElementById("p-next").addEventListener("click", () => { listPage += 1; gameList(p.username); });
  gameList(p.username);
});
