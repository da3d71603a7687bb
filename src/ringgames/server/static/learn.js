"use strict";
// Learn: the lessons index (progress kept in localStorage), a lesson (a board from boards.js; every action goes to
// POST /api/learn/{game}/{n}/check, which plays it with the real rules and says whether the goal is met) and the
// rules pages' diagrams (the same board code, drawn from the positions the server embeds).
const PROGRESS_KEY = "rg-learn";
function progress() {
  try { return JSON.parse(localStorage.getItem(PROGRESS_KEY) || "{}") || {}; } catch (e) { return {}; }
}
function markSolved(id) {
  const p = progress(); p[id] = true;
  try { localStorage.setItem(PROGRESS_KEY, JSON.stringify(p)); } catch (e) { /* private mode: not remembered */ }
}

function drawDiagrams() {  // every <figure class="diagram"> of the page: the position after the turn, the turn marked
  for (const fig of document.querySelectorAll("figure.diagram")) {
    const svg = fig.querySelector("svg");
    const board = makeBoard(fig.dataset.game, svg, () => {});
    const turn = fig.dataset.turn ? fig.dataset.turn.split(" ") : [];
    board.draw(fig.dataset.position, [], false, turn.length ? {texts: turn, before: fig.dataset.before, seat: +fig.dataset.seat} : null);
    fig.dataset.drawn = "1";
  }
}

function showIndex() {
  const p = progress();
  for (const s of document.querySelectorAll("[data-done]")) s.hidden = !p[s.dataset.done];
}

const LESSON = (() => { const e = document.getElementById("lesson"); return e ? JSON.parse(e.textContent) : null; })();
const LS = {actions: [], position: null, legal: [], done: false, over: false, turn: [], busy: false};
let lessonBoard = null;

function lessonRender() {
  const $ = (id) => document.getElementById(id);
  const last = LS.turn.length ? {texts: LS.turn, before: LESSON.position, seat: LESSON.seat} : null;
  lessonBoard.draw(LS.position, LS.legal, !(LS.done || LS.over) && !LS.busy, last);
  $("status").textContent = LS.done ? "" : LS.over ? t("learn.wrong") : LS.actions.length ? t("learn.go_on") : "";
  $("status").className = LS.over ? "err" : "";
  $("done").hidden = !LS.done;
  $("next").hidden = !LS.done;
  if (LS.over) $("hint").hidden = false;
  document.body.dataset.lesson = LS.done ? "done" : LS.over ? "over" : "playing";
}

function lessonReset() {
  Object.assign(LS, {actions: [], position: LESSON.position, legal: LESSON.legal, done: false, over: false, turn: []});
  document.getElementById("err").textContent = "";
  lessonRender();
}

async function lessonAction(a) {
  if (LS.busy || LS.done || LS.over) return;
  LS.busy = true;
  const actions = LS.actions.concat([a]);
  try {
    const r = await api(`/api/learn/${LESSON.game}/${LESSON.n}/check`, {method: "POST", json: {actions}});
    Object.assign(LS, {actions, position: r.position, legal: r.legal, done: r.done, over: r.over, turn: r.turn});
    document.getElementById("err").textContent = "";
    if (r.done) markSolved(`${LESSON.game}/${LESSON.n}`);
  } catch (e) {
    document.getElementById("err").textContent = errorText(e);
  } finally {
    LS.busy = false;
    lessonRender();
  }
}

document.addEventListener("DOMContentLoaded", () => {
  if (document.querySelector("figure.diagram")) drawDiagrams();
  if (document.getElementById("learn-index")) showIndex();
  if (LESSON) {
    lessonBoard = makeBoard(LESSON.game, document.getElementById("board"), lessonAction);
    document.getElementById("show-hint").addEventListener("click", () => { document.getElementById("hint").hidden = false; });
    document.getElementById("retry").addEventListener("click", lessonReset);
    lessonReset();
  }
});
