"use strict";
// Puzzles: a position from the shipped set, the player's decisions judged by the server (POST .../attempt),
// "solved!" or the solution played on the board, the puzzle's rating and the player's.
const $ = (id) => document.getElementById(id);
let P = null;        // the puzzle (GET /api/puzzles/next)
let board = null, boardGame = null;
let moves = [];      // the player's decisions so far
let position = null, legal = [], over = false, timer = null;

const THEMES = {row: (p) => t("puzzles.theme.row", p), safe: (p) => t("puzzles.theme.safe", p), goal1: (p) => t("puzzles.theme.goal1", p),
  goal2: (p) => t("puzzles.theme.goal2", p), chain: (p) => t("puzzles.theme.chain", p)};

function err(msg) { $("err").textContent = msg || ""; }

function draw(pos, acts, canAct) {
  if (boardGame !== P.game) {
    const fresh = $("board").cloneNode(false); $("board").replaceWith(fresh);
    board = makeBoard(P.game, fresh, onAction); boardGame = P.game;
  }
  board.draw(pos, acts, canAct, null);
}

function showRatings(rating, mine) {
  $("rating").textContent = t("puzzles.rating", {rating: Math.round(rating)});
  $("my-rating").textContent = mine === null || mine === undefined ? t("puzzles.guest") : t("puzzles.my_rating", {rating: Math.round(mine)});
}

async function load(skip) {
  err(""); clearTimeout(timer);
  const q = new URLSearchParams({game: $("game").value});
  if (skip) q.set("skip", skip);
  P = await api(`/api/puzzles/next?${q}`);
  moves = []; over = false; position = P.position; legal = P.legal;
  const seat = cap(seatWord(P.seat_names[P.to_move]));
  $("task").textContent = THEMES[P.theme]({seat});
  $("verdict").textContent = ""; $("verdict").className = ""; $("solution").textContent = "";
  $("source").textContent = P.source;
  showRatings(P.rating, P.player_rating ? P.player_rating.rating : null);
  draw(position, legal, true);
}

async function onAction(action) {
  if (over) return;
  err("");
  moves.push(action);
  let r;
  try {
    r = await api(`/api/puzzles/${P.id}/attempt`, {method: "POST", json: {actions: moves}});
  } catch (e) { moves.pop(); err(errorText(e)); draw(position, legal, true); return; }
  position = r.position; legal = r.legal;
  if (!r.done) {  // a two-move puzzle: the defence was played; the player moves again
    $("verdict").textContent = t("puzzles.defence", {move: r.reply.join(" ")});
    draw(position, legal, true);
    return;
  }
  over = true;
  $("verdict").className = r.correct ? "solved" : "wrong";
  $("verdict").textContent = r.correct ? t("puzzles.solved") : t("puzzles.wrong", {solution: r.solution.join(" ")});
  $("solution").textContent = r.solution.join(" ");
  showRatings(r.rating, r.player_rating);
  if (!r.correct) playSolution(r.solution_positions);
  else draw(r.solution_positions[r.solution_positions.length - 1], [], false);
}

function playSolution(positions) {  // the solution on the board, one action a second, from the puzzle's position
  let i = -1;
  const step = () => {
    draw(i < 0 ? P.position : positions[i], [], false);
    if (++i < positions.length) timer = setTimeout(step, 900);
  };
  step();
}

$("next").onclick = () => load(P && P.id).catch(e => err(errorText(e)));
$("game").onchange = () => load(null).catch(e => err(errorText(e)));
const want = new URLSearchParams(location.search).get("game");
if (["yinsh", "gyges", "rings"].includes(want)) $("game").value = want;
load(null).catch(e => err(errorText(e)));
