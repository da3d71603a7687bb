"use strict";
// "My games": the games awaiting my move first, then my other live games, then recent finished ones.
const VARIANT_NAMES = {"yinsh-blitz": t("rating.yinsh_blitz"), "gyges-beginner": t("rating.gyges_beginner")};
const TITLES = {"yinsh": "YINSH", "gyges": "Gygès", "rings": "RINGS"};

function gameName(g) {
  return g.game === "rings" || g.variant === "standard" ? TITLES[g.game] || g.game : VARIANT_NAMES[`${g.game}-${g.variant}`] || g.game;
}

function fillTable(id, games) {
  const table = document.getElementById(id);
  if (!games.length) { table.append(h("tr", {}, h("td", {}, t("mygames.none")))); return; }
  for (const g of games) {
    table.append(h("tr", {"data-id": g.id}, h("td", {}, h("a", {href: `/game/${g.id}`}, gameName(g))),
                   h("td", {}, g.names.join(" – ")),
                   h("td", {}, g.status === "finished" ? tOr(`result.${g.result}`, g.result) : ""),
                   h("td", {}, g.rated ? t("player.rated") : t("player.casual")),
                   h("td", {}, g.updated ? new Date(g.updated).toLocaleString(I18N.lang) : "")));
  }
}

document.addEventListener("DOMContentLoaded", async () => {
  try {
    const mine = await api("/api/me/games");
    fillTable("my-turn", mine.my_turn);
    fillTable("my-live", mine.live);
    fillTable("my-finished", mine.finished);
  } catch (e) {
    document.getElementById("mygames-err").textContent = errorText(e);
  }
});
