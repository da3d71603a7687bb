"use strict";
// The leaderboard of one game and variant: the best-rated players, and the computer levels' fixed ratings.
const BOARD_NAMES = {"yinsh": "YINSH", "yinsh-blitz": t("rating.yinsh_blitz"), "gyges": "Gygès",
                     "gyges-beginner": t("rating.gyges_beginner"), "rings": "RINGS"};

document.addEventListener("DOMContentLoaded", async () => {
  const key = decodeURIComponent(location.pathname.split("/").pop());
  const tabs = document.getElementById("rating-keys");
  for (const k of Object.keys(BOARD_NAMES)) {
    tabs.append(k === key ? h("strong", {}, BOARD_NAMES[k]) : h("a", {href: `/leaderboard/${k}`}, BOARD_NAMES[k]), " ");
  }
  let board;
  try {
    board = await api(`/api/leaderboard/${encodeURIComponent(key)}`);
  } catch (e) {
    document.getElementById("board-err").textContent = errorText(e);
    return;
  }
  document.getElementById("board-title").textContent = BOARD_NAMES[key] || key;
  const table = document.getElementById("board");
  table.append(h("tr", {}, h("th", {}, "#"), h("th", {}, t("login.username")), h("th", {}, t("player.rating")),
                 h("th", {}, t("player.deviation")), h("th", {}, t("player.games_count"))));
  board.players.forEach((p, i) => {
    table.append(h("tr", {"data-player": p.username}, h("td", {}, String(i + 1)), h("td", {}, h("a", {href: `/player/${p.username}`}, p.username)),
                   h("td", {class: "rating"}, String(Math.round(p.rating)) + (p.provisional ? "?" : "")),
                   h("td", {}, `±${Math.round(p.deviation)}`), h("td", {}, String(p.games))));
  });
  if (!board.players.length) table.append(h("tr", {}, h("td", {colspan: "5"}, t("player.no_history"))));
  const comp = document.getElementById("computers");
  for (const c of board.computers) {
    comp.append(h("tr", {}, h("td", {}, t("game.computer_level", {level: c.level})), h("td", {class: "rating"}, String(Math.round(c.rating)))));
  }
});
