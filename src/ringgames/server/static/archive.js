"use strict";
// The archive page: finished and imported games, and the upload form for records.
const $ = (id) => document.getElementById(id);
async function list() {
  const rows = [];
  for (const st of ["finished", "archived"]) {
    const {games} = await api(`/api/games?status=${st}&limit=200`);
    for (const g of games) rows.push(h("tr", {},
      h("td", {}, h("a", {href: `/game/${g.id}?replay`, "data-game": g.id}, `${g.game} ${tOr(`variant.${g.variant}`, g.variant)}`)),
      h("td", {}, g.seats.map(playerName).join(" – ")), h("td", {class: "result"}, resultText(g.result)),
      h("td", {class: "plies"}, tn("archive.plies", g.ply)), h("td", {}, tOr(`source.${g.source}`, g.source)),
      h("td", {}, h("a", {href: `/analysis?from=${encodeURIComponent(g.id)}`, "data-analyse": g.id}, t("analysis.link")))));
  }
  $("games").replaceChildren(...rows);
}
$("upload").onsubmit = async (ev) => {
  ev.preventDefault();
  if (!$("files").files.length) { $("results").replaceChildren(h("li", {class: "err"}, t("archive.choose_files"))); return; }
  const fd = new FormData();
  for (const f of $("files").files) fd.append("files", f);
  try {
    const res = await api("/api/import", {method: "POST", body: fd});
    $("results").replaceChildren(...res.results.map(r => h("li", {class: r.ok ? "" : r.duplicate ? "duplicate" : "err"},
      r.ok ? h("a", {href: `/game/${r.id}?replay`}, tn("archive.imported", r.plies, {file: r.file, game: r.game, result: resultText(r.result)}))
        : r.duplicate ? h("a", {href: `/game/${r.id}?replay`, "data-duplicate": r.id}, t("archive.duplicate", {file: r.file}))
        : r.error.startsWith(r.file) ? r.error : `${r.file}: ${r.error}`)));
  } catch (e) { $("results").replaceChildren(h("li", {class: "err"}, errorText(e))); }
  list();
};
list();
