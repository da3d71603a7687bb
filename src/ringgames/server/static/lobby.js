"use strict";
// The lobby: create a game, list open and live games.
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
async function lists() {
  for (const st of ["open", "live"]) {
    const {games} = await api(`/api/games?status=${st}&limit=30`);
    const rows = games.map(g => h("tr", {},
      h("td", {}, h("a", {href: `/game/${g.id}`}, `${META[g.game] ? META[g.game].title : g.game} ${tOr(`variant.${g.variant}`, g.variant)}`)),
      h("td", {}, g.seats.map(s => s.open ? t("lobby.open_seat") : playerName(s)).join(" · ")),
      h("td", {}, tn("lobby.plies", g.ply))));
    $(st).replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", {class: "muted"}, t("lobby.none")))]));
  }
}
(async () => {
  META = await api("/api/meta");
  $("game").replaceChildren(...Object.entries(META).map(([k, v]) => h("option", {value: k}, v.title)));
  $("game").onchange = gameChanged; $("players").onchange = seatRows;
  gameChanged(); lists(); setInterval(lists, 5000);
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
  const body = {game: $("game").value, variant: $("variant").value, players: n, seats};
  if (body.game === "gyges") body.setup = $("setup").value;
  try {
    const res = await api("/api/games", {method: "POST", json: body});
    sessionStorage.setItem(`invites-${res.id}`, JSON.stringify(res.invites || {}));
    location.href = `/game/${res.id}`;
  } catch (e) { $("err").textContent = errorText(e); }
};
