"use strict";
async function api(path, opts = {}) {
  const o = {method: opts.method || "GET", headers: {}, credentials: "same-origin"};
  if (opts.json !== undefined) { o.headers["Content-Type"] = "application/json"; o.body = JSON.stringify(opts.json); }
  if (opts.body) o.body = opts.body;
  const r = await fetch(path, o);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new Error((data && data.message) || `${r.status} ${r.statusText}`);
  return data;
}
function h(tag, attrs = {}, ...kids) {  // builds DOM nodes; text always goes in as text, never as HTML
  const e = document.createElement(tag);
  for (const k in attrs) { if (k === "onclick") e.onclick = attrs[k]; else if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]); }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
function topbar() {
  const t = document.querySelector("header.top");
  if (t) t.replaceChildren(h("a", {class: "brand", href: "/"}, "ringgames"), h("a", {href: "/"}, "Lobby"), h("a", {href: "/archive"}, "Archive"),
    h("a", {href: "/rules/yinsh"}, "YINSH rules"), h("a", {href: "/rules/gyges"}, "Gygès rules"), h("a", {href: "/rules/rings"}, "RINGS rules"), h("a", {href: "/docs"}, "API"));
}
document.addEventListener("DOMContentLoaded", topbar);
