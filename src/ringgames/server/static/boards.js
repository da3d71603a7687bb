// Board drawing and click-to-act for each game, driven only by the position
// string and the legal action strings the server sends. No game logic here
// beyond the board geometry of the rules.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) { if (k === "style") e.style.cssText = attrs[k]; else e.setAttribute(k, attrs[k]); }  // CSSOM: no style attributes under the CSP
  if (parent) parent.appendChild(e);
  return e;
}
const SEAT_COLOURS = ["#d9463b", "#3b6fd9", "#3aa655", "#e0b526", "#8e4fc2", "#e0822d"];
function animateFrom(e, [x0, y0], [x1, y1]) {  // e slides in from (x0, y0) (the page's style plays it when animations are on)
  if (!e) return;
  e.classList.add("slide");
  e.style.setProperty("--dx", `${x0 - x1}px`);  // CSSOM: custom properties, no style attribute
  e.style.setProperty("--dy", `${y0 - y1}px`);
}
function animateAs(e, kind) { if (e) e.classList.add(kind); }

// ---------------------------------------------------------------- YINSH
const YINSH_COLS = "abcdefghijk";
const YINSH_ROWS = [[2,5],[1,7],[1,8],[1,9],[1,10],[2,10],[2,11],[3,11],[4,11],[5,11],[7,10]];
const YINSH_POINTS = [];
YINSH_ROWS.forEach(([lo, hi], c) => { for (let r = lo; r <= hi; r++) YINSH_POINTS.push({c, r, id: YINSH_COLS[c] + r}); });
const YINSH_BY_ID = Object.fromEntries(YINSH_POINTS.map(p => [p.id, p]));
//: a point's tap target: the hexagon of the points nearer to it than to any neighbour (neighbours are 40 units apart)
const YINSH_CELL = [[-23.1, 0], [-11.55, -20], [11.55, -20], [23.1, 0], [11.55, 20], [-11.55, 20]];

class YinshBoard {
  constructor(svg, onAction) { this.svg = svg; this.onAction = onAction; this.sel = null; }
  xy(p) { const u = 40; return [40 + p.c * u * Math.sqrt(3) / 2, 30 + (16 - (2 * p.r - p.c)) * u / 2]; }
  parse(pos) {
    const f = pos.split(" ");
    const cells = {};
    f[0].split("/").forEach((col, c) => {
      let r = YINSH_ROWS[c][0];
      for (const tok of col.match(/\d+|./g) || []) {
        if (/\d/.test(tok)) r += parseInt(tok, 10); else { cells[YINSH_COLS[c] + r] = tok; r++; }
      }
    });
    return {cells, actor: f[1], phase: f[2], removed: f[3].split(":").map(Number)};
  }
  between(a, b) {  // the points from a to b inclusive on a line
    const A = YINSH_BY_ID[a], B = YINSH_BY_ID[b];
    const n = Math.max(Math.abs(B.c - A.c), Math.abs(B.r - A.r));
    const out = [];
    for (let i = 0; i <= n; i++) out.push(YINSH_COLS[A.c + (B.c - A.c) * i / n] + (A.r + (B.r - A.r) * i / n));
    return out;
  }
  draw(position, legal, canAct, last) {
    const svg = this.svg; svg.innerHTML = "";
    const st = this.parse(position);
    // the points span x 40..386 and y 30..390. The frame shows the whole board (380 units) where that leaves each
    // point's hexagonal cell (40 units between neighbours) 44 px across, and on a narrower screen (a 390 px phone)
    // only as much as keeps the cells at 44 px: the outer columns' pieces are then cut at the screen's edge
    const avail = (svg.parentElement && svg.parentElement.clientWidth) || 620;
    const w = Math.max(352, Math.min(380, avail / 1.105));
    svg.setAttribute("viewBox", `${(213.2 - w / 2).toFixed(1)} 0 ${w.toFixed(1)} 456`);
    const g = el("g", {class: "lines"}, svg);
    for (const p of YINSH_POINTS) for (const [dc, dr] of [[0,1],[1,0],[1,1]]) {
      const q = YINSH_BY_ID[YINSH_COLS[p.c + dc] + (p.r + dr)];
      if (q) { const [x1, y1] = this.xy(p), [x2, y2] = this.xy(q); el("line", {x1, y1, x2, y2}, g); }
    }
    // what can be clicked now
    const acts = canAct ? legal : [];
    const targets = new Set(), hint = new Set();
    let rowPts = new Set();
    if (this.sel) {
      for (const a of acts) {
        let m;
        if ((m = /^([a-k]\d+)-([a-k]\d+)$/.exec(a)) && m[1] === this.sel) targets.add(m[2]);
        if ((m = /^x([a-k]\d+)-([a-k]\d+)$/.exec(a))) {
          if (m[1] === this.sel) { targets.add(m[2]); this.between(m[1], m[2]).forEach(x => rowPts.add(x)); }
          if (m[2] === this.sel) { targets.add(m[1]); this.between(m[1], m[2]).forEach(x => rowPts.add(x)); }
        }
      }
    } else {
      for (const a of acts) {
        let m;
        if ((m = /^([a-k]\d+)$/.exec(a))) targets.add(m[1]);
        else if ((m = /^x([a-k]\d+)$/.exec(a))) targets.add(m[1]);
        else if ((m = /^([a-k]\d+)-([a-k]\d+)$/.exec(a))) targets.add(m[1]);
        else if ((m = /^x([a-k]\d+)-([a-k]\d+)$/.exec(a))) { targets.add(m[1]); targets.add(m[2]); this.between(m[1], m[2]).forEach(x => hint.add(x)); }
      }
    }
    for (const p of YINSH_POINTS) {
      const [x, y] = this.xy(p);
      const v = st.cells[p.id];
      const grp = el("g", {"data-pt": p.id, class: "pt" + (targets.has(p.id) ? " target" : "") + (this.sel === p.id ? " selected" : "") + (rowPts.has(p.id) ? " inrow" : "") + (hint.has(p.id) ? " hint" : "")}, svg);
      el("polygon", {points: YINSH_CELL.map(([dx, dy]) => `${x + dx},${y + dy}`).join(" "), class: "hit"}, grp);  // the tap target
      el("circle", {cx: x, cy: y, r: 15, class: "hl"}, grp);
      el("circle", {cx: x, cy: y, r: 2.5, class: "dot"}, grp);
      if (v === "w" || v === "b") el("circle", {cx: x, cy: y, r: 10, class: "marker " + (v === "w" ? "white" : "black")}, grp);
      if (v === "W" || v === "B") el("circle", {cx: x, cy: y, r: 14, class: "ring " + (v === "W" ? "white" : "black")}, grp);
      el("title", {}, grp).textContent = p.id;
      grp.addEventListener("click", () => this.click(p.id, legal, canAct));
    }
    this.coordinates(svg);
    // the rings each side has removed, below the board on its side (white left, black right)
    for (const [seat, x0, dir] of [[0, 58, 1], [1, 368, -1]]) for (let k = 0; k < st.removed[seat]; k++) {
      el("circle", {cx: x0 + dir * k * 30, cy: 436, r: 11, class: "side-ring " + (seat ? "black" : "white"), "data-removed": seat}, svg);
    }
    this.markLast(svg, st, last);
    this.pending = legal.includes("pass") && canAct ? ["pass"] : [];
  }
  markLast(svg, st, last) {  // the last turn: a placed ring, a ring's origin, path and flipped markers, rows and rings removed
    svg.classList.toggle("animate", !!(last && last.animate));
    if (!last || !last.texts.length) return;
    const before = last.before ? this.parse(last.before) : st;
    const g = el("g", {class: "last"}, svg);
    const colour = last.seat === 0 ? "white" : "black";
    const piece = (id, cls) => svg.querySelector(`[data-pt="${id}"] .${cls}`);
    const mark = (id, kind, r, extra = "") => { const [x, y] = this.xy(YINSH_BY_ID[id]); return el("circle", {cx: x, cy: y, r, class: `lm lm-${kind} ${extra}`, "data-last": kind, "data-at": id}, g); };
    for (const a of last.texts) {
      let m;
      if ((m = /^([a-k]\d+)$/.exec(a))) { mark(m[1], "placed", 19); animateAs(piece(m[1], "ring"), "pop"); }
      else if ((m = /^([a-k]\d+)-([a-k]\d+)$/.exec(a))) {
        const path = this.between(m[1], m[2]);
        const [x1, y1] = this.xy(YINSH_BY_ID[m[1]]), [x2, y2] = this.xy(YINSH_BY_ID[m[2]]);
        el("line", {x1, y1, x2, y2, class: "lm-path"}, g);
        mark(m[1], "from", 16);
        mark(m[2], "to", 19);
        for (const id of path.slice(1, -1)) if (/^[wb]$/.test(before.cells[id] || "")) { mark(id, "flip", 6); animateAs(piece(id, "marker"), "flip"); }
        animateFrom(piece(m[2], "ring"), [x1, y1], [x2, y2]);
        animateAs(piece(m[1], "marker"), "pop");
      } else if ((m = /^x([a-k]\d+)-([a-k]\d+)$/.exec(a))) {
        for (const id of this.between(m[1], m[2])) mark(id, "row", 10, colour);
      } else if ((m = /^x([a-k]\d+)$/.exec(a))) mark(m[1], "ring", 14, colour);
    }
  }
  coordinates(svg) {  // column letters above and below each column, row numbers at both ends of each row where they fit
    const g = el("g", {class: "coords"}, svg);
    const put = (x, y, text) => { const e = el("text", {x, y: y + 4, class: "label"}, g); e.textContent = text; };
    for (let c = 0; c < 11; c++) {
      const [lo, hi] = YINSH_ROWS[c];
      const [x, y0] = this.xy({c, r: lo}), [, y1] = this.xy({c, r: hi});
      put(x, y0 + 24, YINSH_COLS[c]); put(x, y1 - 24, YINSH_COLS[c]);
    }
    for (let r = 1; r <= 11; r++) {
      const cols = YINSH_POINTS.filter(p => p.r === r).map(p => p.c);
      for (const [c, dir] of [[Math.min(...cols), -1], [Math.max(...cols), 1]]) {  // on the row's line, just beyond each end
        if (c + dir < 0 || c + dir > 10) continue;  // no room beside the outer columns (their letters name them)
        const [x, y] = this.xy({c, r});
        put(x + dir * 19, y + dir * 11, String(r));
      }
    }
  }
  click(id, legal, canAct) {
    if (!canAct) return;
    if (this.sel) {
      const s = this.sel;
      const cand = legal.filter(a => a === `${s}-${id}` || a === `x${s}-${id}` || a === `x${id}-${s}`);
      if (id === s) { this.sel = null; this.redraw(); return; }
      if (cand.length) { this.sel = null; this.onAction(cand[0]); return; }
      this.sel = null;
    }
    if (legal.includes(id)) return this.onAction(id);
    if (legal.includes("x" + id)) return this.onAction("x" + id);
    const moves = legal.filter(a => a.startsWith(id + "-"));
    const rows = legal.filter(a => new RegExp(`^x(${id}-|[a-k]\\d+-${id}$)`).test(a));
    if (rows.length === 1 && !moves.length) return this.onAction(rows[0]);
    if (moves.length || rows.length) this.sel = id;
    this.redraw();
  }
  describe(position) {
    const st = this.parse(position);
    const markers = Object.values(st.cells).filter(v => v === "w" || v === "b").length;
    return {phase: tOr(`phase.yinsh.${st.phase}`, st.phase), extra: t("yinsh.extra", {white: st.removed[0], black: st.removed[1], markers: 51 - markers})};
  }
}

// ---------------------------------------------------------------- Gygès
const GY_FILES = "abcdef";
class GygesBoard {
  constructor(svg, onAction) { this.svg = svg; this.onAction = onAction; this.sel = null; this.end = null; }
  parse(pos) {
    const [b, side] = pos.trim().split(/\s+/);
    const rows = b.split("/");
    const cells = {};
    rows.forEach((row, i) => [...row].forEach((ch, f) => { if (ch !== "0") cells[GY_FILES[f] + (i + 1)] = +ch; }));
    return {cells, side};
  }
  xy(sq) { const f = GY_FILES.indexOf(sq[0]), r = +sq.slice(1); return [40 + f * 60 + 30, 80 + (6 - r) * 60 + 30]; }
  static parts(a) {  // "c1-d2-d4(e5)" -> {start, end, drop}; "b5-b6-G"
    const m = /^([a-f][1-6])((?:-[a-f][1-6])*)-(G|[a-f][1-6])(?:\(([a-f][1-6])\))?$/i.exec(a);
    if (!m) return null;
    return {start: m[1].toLowerCase(), end: m[3].toLowerCase() === "g" ? "G" : m[3].toLowerCase(), drop: m[4] ? m[4].toLowerCase() : null};
  }
  draw(position, legal, canAct, last) {
    const svg = this.svg; svg.innerHTML = "";
    svg.setAttribute("viewBox", "0 0 440 520");
    const st = this.parse(position);
    const acts = (canAct ? legal : []).map(a => [a, GygesBoard.parts(a)]).filter(x => x[1]);
    const targets = new Set();
    // free setup: the player arranges the own piece set on the home row by clicking its squares
    const setups = canAct ? legal.filter(a => /^\d{6}$/.test(a)) : [];
    if (setups.length > 4) {
      if (this.arrPos !== position || !this.arr) { this.arr = [0, 0, 0, 0, 0, 0]; this.arrPos = position; }
      this.home = st.side === "S" ? 1 : 6;
      for (let f = 0; f < 6; f++) targets.add(GY_FILES[f] + this.home);
    } else this.arr = null;
    for (const [, p] of acts) {
      if (!this.sel) targets.add(p.start);
      else if (!this.end && p.start === this.sel) targets.add(p.end);
      else if (this.end && p.start === this.sel && p.end === this.end && p.drop) targets.add(p.drop);
    }
    // goals: North's goal above row 6 (South aims at it), South's goal below row 1
    for (const [y, name, label] of [[14, "G-north", t("gyges.goal_north")], [462, "G-south", t("gyges.goal_south")]]) {
      const goalIsTarget = targets.has("G") && ((st.side === "S") === (name === "G-north"));
      const grp = el("g", {"data-pt": goalIsTarget ? "G" : name, class: "pt goal" + (goalIsTarget ? " target" : "")}, svg);
      el("rect", {x: 140, y, width: 160, height: 56, rx: 28, class: "goal hit"}, grp);  // 56 units: 44 px and more on a phone
      const t = el("text", {x: 220, y: y + 33, class: "label"}, grp); t.textContent = label;
      if (goalIsTarget) grp.addEventListener("click", () => this.click("G", legal, canAct));
    }
    for (let r = 1; r <= 6; r++) for (let f = 0; f < 6; f++) {
      const sq = GY_FILES[f] + r; const [x, y] = this.xy(sq);
      const grp = el("g", {"data-pt": sq, class: "pt sq" + (targets.has(sq) ? " target" : "") + (this.sel === sq || this.end === sq ? " selected" : "")}, svg);
      el("rect", {x: x - 30, y: y - 30, width: 60, height: 60, class: "square hit" + ((r + f) % 2 ? " alt" : "")}, grp);
      const pending = this.arr && r === this.home ? this.arr[f] : 0;
      const n = st.cells[sq] || pending;
      for (let k = 0; k < (n || 0); k++) el("circle", {cx: x, cy: y, r: 8 + 7 * k, class: "gring" + (pending ? " pending" : "")}, grp);
      el("title", {}, grp).textContent = sq;
      grp.addEventListener("click", () => this.click(sq, legal, canAct));
    }
    for (let f = 0; f < 6; f++) { const t = el("text", {x: 70 + f * 60, y: 455, class: "label"}, svg); t.textContent = GY_FILES[f]; }
    for (let r = 1; r <= 6; r++) { const t = el("text", {x: 25, y: 115 + (6 - r) * 60, class: "label"}, svg); t.textContent = r; }
    this.markLast(svg, last);
  }
  markLast(svg, last) {  // the last move: its path with the squares it bounced on, where it ended, the replaced piece's new square
    svg.classList.toggle("animate", !!(last && last.animate));
    if (!last) return;
    const a = last.texts.find(x => GygesBoard.parts(x));
    if (!a) return;
    const sqs = a.replace(/\(.*\)$/, "").split("-").map(x => x.toLowerCase());
    const drop = GygesBoard.parts(a).drop;
    const g = el("g", {class: "last"}, svg);
    const at = (sq) => sq === "g" ? [220, last.seat === 0 ? 42 : 490] : this.xy(sq);  // South (seat 0) aims at North's goal
    const end = sqs[sqs.length - 1];
    if (end !== "g") for (const r of svg.querySelectorAll(`[data-pt="${end}"] .gring`)) animateFrom(r, at(sqs[sqs.length - 2] || sqs[0]), at(end));
    if (drop) for (const r of svg.querySelectorAll(`[data-pt="${drop}"] .gring`)) animateFrom(r, at(end), this.xy(drop));
    const steps = last.before ? GygesBoard.stepPath(this.parse(last.before).cells, sqs, last.seat) : null;
    const line = [];
    (steps || sqs).forEach((q, i, all) => {  // into the goal straight on from the far row, then along the goal to it
      if (q !== "g" || i === 0) { line.push(at(q)); return; }
      const x = at(all[i - 1])[0], gy = at("g")[1];
      line.push([x, gy]);
      if (x < 160 || x > 280) line.push([Math.min(280, Math.max(160, x)), gy]);
    });
    el("polyline", {points: line.map(p => p.join(",")).join(" "), class: "lm-path", "data-steps": steps ? steps.length - 1 : ""}, g);
    sqs.forEach((q, i) => {
      const kind = i === 0 ? "from" : i === sqs.length - 1 ? "to" : "bounce";
      const [x, y] = at(q);
      if (q === "g") el("rect", {x: 140, y: y - 28, width: 160, height: 56, rx: 28, class: `lm lm-${kind}`, "data-last": kind, "data-at": "G"}, g);
      else el("rect", {x: x - 27, y: y - 27, width: 54, height: 54, rx: 6, class: `lm lm-${kind}`, "data-last": kind, "data-at": q}, g);
    });
    if (drop) {
      const [ex, ey] = at(sqs[sqs.length - 1]), [x, y] = this.xy(drop);
      el("line", {x1: ex, y1: ey, x2: x, y2: y, class: "lm-drop-path"}, g);
      el("rect", {x: x - 27, y: y - 27, width: 54, height: 54, rx: 6, class: "lm lm-drop", "data-last": "drop", "data-at": drop}, g);
    }
  }
  click(sq, legal, canAct) {
    if (!canAct) return;
    if (this.arr) {  // setup: each click puts the next size still in the set on the square (3 after 2 after 1, then empty)
      if (+sq.slice(1) !== this.home) return;
      const f = GY_FILES.indexOf(sq[0]);
      const left = (k) => 2 - this.arr.filter((v, i) => v === k && i !== f).length;
      let next = 0;
      for (let k = this.arr[f] + 1; k <= 3; k++) if (left(k) > 0) { next = k; break; }
      this.arr[f] = next;
      this.redraw();
      if (this.onLocal) this.onLocal();
      return;
    }
    const acts = legal.map(a => [a, GygesBoard.parts(a)]).filter(x => x[1]);
    if (!this.sel) {
      if (acts.some(([, p]) => p.start === sq)) this.sel = sq;
    } else if (!this.end) {
      const c = acts.filter(([, p]) => p.start === this.sel && p.end === sq);
      if (!c.length) { this.sel = acts.some(([, p]) => p.start === sq) && sq !== this.sel ? sq : null; }
      else if (c.length === 1 && !c[0][1].drop) { this.sel = null; return this.onAction(c[0][0]); }
      else {
        const plain = c.find(([, p]) => !p.drop);
        if (plain) { this.sel = null; return this.onAction(plain[0]); }
        this.end = sq;
      }
    } else {
      const c = acts.find(([, p]) => p.start === this.sel && p.end === this.end && p.drop === sq);
      this.sel = this.end = null;
      if (c) return this.onAction(c[0]);
    }
    if (this.onLocal) this.onLocal(); else this.redraw();  // the page's status says what the next click does
  }
  static stepPath(cells, sqs, seat) {
    // The squares a move went through, one orthogonal step at a time, for its landing squares `sqs` (the notation:
    // start, bounces, end or "g"): from each landing square as many steps as the piece there has rings, over empty
    // squares, never along a link twice; the goal is entered from the far row. The first such path, or null.
    const start = sqs[0], goalRank = seat === 0 ? 7 : 0;
    const occupied = (sq) => sq !== start && (cells[sq] || 0) > 0;
    const segment = (i, sq, used) => {  // the squares after sq to the move's end, segment i onwards
      if (i === sqs.length - 1) return [];
      const target = sqs[i + 1];
      const walk = (cur, left, usedNow) => {
        const f = GY_FILES.indexOf(cur[0]), r = +cur.slice(1);
        for (const [df, dr] of [[0, 1], [0, -1], [1, 0], [-1, 0]]) {
          const nf = f + df, nr = r + dr;
          let next;
          if (nr === goalRank && target === "g" && left === 1) next = "g";
          else if (nf < 0 || nf > 5 || nr < 1 || nr > 6) continue;
          else next = GY_FILES[nf] + nr;
          const link = [cur, next].sort().join("|");
          if (usedNow.has(link)) continue;
          const u = new Set(usedNow).add(link);
          let rest = null;
          if (left === 1) { if (next === target) rest = segment(i + 1, next, u); }
          else if (next !== "g" && !occupied(next)) rest = walk(next, left - 1, u);
          if (rest) return [next, ...rest];
        }
        return null;
      };
      return cells[sq] ? walk(sq, cells[sq], used) : null;
    };
    const rest = segment(0, start, new Set());
    return rest ? [start, ...rest] : null;
  }
  arrangement() {  // the arrangement clicked so far, as six digits when complete, else null
    return this.arr && this.arr.every(v => v) ? this.arr.join("") : null;
  }
  describe(position, over) {
    const st = this.parse(position);
    if (over) return {phase: "", extra: ""};
    if (this.arr) return {phase: t("phase.gyges.arrange"), extra: t("gyges.arrange_help")};
    if (this.end) return {phase: t("phase.gyges.replace"), extra: t("gyges.replace_help", {square: this.end})};
    return {phase: "", extra: t(st.side === "S" ? "gyges.south_to_move" : "gyges.north_to_move")};
  }
}

// ---------------------------------------------------------------- RINGS
const RI_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWX";
const RI_SEATS = "rbgypo";
const RI_CIRCLES = [];  // {name, pts: [ids], cx, cy}
const RI_ROWS = {};      // row -> sorted letter indexes
(function () {
  const seen = new Set();
  for (let r = -5; r <= 5; r++) for (let q = -5; q <= 5; q++) {
    if (Math.max(Math.abs(q), Math.abs(r), Math.abs(q + r)) > 5) continue;
    const c = 2 * (q + 5) + 1, t = 2 * r + q + 11;
    const pts = [[c, t], [c + 1, t], [c + 2, t + 1], [c + 1, t + 2], [c, t + 2], [c - 1, t + 1]];
    for (const [pc, pt] of pts) { const k = pc + "," + pt; if (!seen.has(k)) { seen.add(k); (RI_ROWS[pt] = RI_ROWS[pt] || []).push(pc); } }
    RI_CIRCLES.push({name: RI_LETTERS[c] + RI_LETTERS[c + 1] + (t + 1), pts: pts.map(([pc, pt]) => RI_LETTERS[pc] + pt), t: t + 1, c});
  }
  for (const k in RI_ROWS) RI_ROWS[k].sort((a, b) => a - b);
  RI_CIRCLES.sort((a, b) => a.t - b.t || a.c - b.c);
})();
function riXY(id) {
  const c = RI_LETTERS.indexOf(id[0]), t = +id.slice(1);
  const x = 1.5 * Math.floor(c / 2) + (c % 2 === 0 ? -0.5 : 0);
  return [40 + (x + 0.5) * 26, 20 + t * 26 * Math.sqrt(3) / 2];
}
class RingsBoard {
  constructor(svg, onAction) { this.svg = svg; this.onAction = onAction; }
  parse(pos) {
    const f = pos.trim().split(/\s+/);
    const stones = {};
    f[0].split("/").forEach((row, i) => {
      const t = i + 1, letters = RI_ROWS[t] || []; let k = 0;
      for (const tok of row.match(/\d+|./g) || []) {
        if (/\d/.test(tok)) k += parseInt(tok, 10);
        else { if (tok !== ".") stones[RI_LETTERS[letters[k]] + t] = tok; k++; }
      }
    });
    return {stones, toMove: f[1], phase: f[2], passes: f[3]};
  }
  draw(position, legal, canAct, last) {
    const svg = this.svg; svg.innerHTML = "";
    svg.setAttribute("viewBox", "0 0 520 560");
    const st = this.parse(position);
    const acts = canAct ? legal : [];
    const ptTargets = new Set(acts.filter(a => /^[A-X]\d+$/i.test(a)).map(a => a.toUpperCase()));
    const ciTargets = new Set(acts.filter(a => /^x/i.test(a)).map(a => a.slice(1).toUpperCase()));
    for (const ci of RI_CIRCLES) {
      const xy = ci.pts.map(riXY);
      const owner = ci.pts.every(p => st.stones[p] && st.stones[p] === st.stones[ci.pts[0]]) ? st.stones[ci.pts[0]] : null;
      const cx = xy.reduce((s, p) => s + p[0], 0) / 6, cy = xy.reduce((s, p) => s + p[1], 0) / 6;
      const grp = el("g", {"data-circle": ci.name, class: "circle" + (ciTargets.has(ci.name) ? " target" : "")}, svg);
      const idx = owner ? RI_SEATS.indexOf(owner) : -1;
      el("polygon", {points: xy.map(p => p.join(",")).join(" "), class: "hex" + (owner ? " ringed" : ""),
        style: idx >= 0 ? `fill:${SEAT_COLOURS[idx]};fill-opacity:.35` : ""}, grp);
      el("title", {}, grp).textContent = ci.name;
      if (ciTargets.has(ci.name)) {
        el("circle", {cx, cy, r: 9, class: "convert"}, grp);
        grp.addEventListener("click", () => canAct && this.onAction("x" + ci.name));
      }
    }
    for (const t in RI_ROWS) for (const c of RI_ROWS[t]) {
      const id = RI_LETTERS[c] + t; const [x, y] = riXY(id);
      const s = st.stones[id];
      const grp = el("g", {"data-pt": id, class: "pt" + (ptTargets.has(id) ? " target" : "")}, svg);
      el("circle", {cx: x, cy: y, r: 13, class: "hit"}, grp);  // half the distance to a neighbour: a cell of its own
      el("circle", {cx: x, cy: y, r: 8, class: "hl"}, grp);
      if (s) el("circle", {cx: x, cy: y, r: 7, class: "stone", style: `fill:${s === "x" ? "#888" : SEAT_COLOURS[RI_SEATS.indexOf(s)]}`}, grp);
      else el("circle", {cx: x, cy: y, r: 2, class: "dot"}, grp);
      el("title", {}, grp).textContent = id;
      if (ptTargets.has(id)) grp.addEventListener("click", () => canAct && this.onAction(id));
    }
    this.coordinates(svg);
    this.markLast(svg, st, last);
  }
  markLast(svg, st, last) {  // the last turn: the placed stone, the circles converted and the stones they turned
    svg.classList.toggle("animate", !!(last && last.animate));
    if (!last || !last.texts.length) return;
    const before = last.before ? this.parse(last.before) : null;
    const mover = RI_SEATS[last.seat];
    const g = el("g", {class: "last"}, svg);
    const stone = (id) => svg.querySelector(`[data-pt="${id}"] .stone`);
    const done = new Set();
    for (const a of last.texts) {
      if (/^[A-X]\d+$/i.test(a)) {
        const id = a.toUpperCase(); const [x, y] = riXY(id);
        el("circle", {cx: x, cy: y, r: 11, class: "lm lm-placed", "data-last": "placed", "data-at": id}, g);
        animateAs(stone(id), "pop");
      } else if (/^x[A-X]{2}\d+$/i.test(a)) {
        const ci = RI_CIRCLES.find(c => c.name === a.slice(1).toUpperCase());
        if (!ci) continue;
        el("polygon", {points: ci.pts.map(p => riXY(p).join(",")).join(" "), class: "lm lm-circle", "data-last": "circle", "data-at": ci.name}, g);
        for (const p of ci.pts) {  // a stone that was another player's before the turn and is the mover's now
          if (done.has(p) || !before || !before.stones[p] || before.stones[p] === mover || st.stones[p] !== mover) continue;
          done.add(p);
          const [x, y] = riXY(p);
          el("circle", {cx: x, cy: y, r: 10, class: "lm lm-converted", "data-last": "converted", "data-at": p}, g);
          animateAs(stone(p), "flip");
        }
      }
    }
  }
  coordinates(svg) {  // the notation's names: each letter above and below its column, each row number at both ends
    const g = el("g", {class: "coords"}, svg);
    const put = (x, y, text) => { const e = el("text", {x, y: y + 4, class: "label small"}, g); e.textContent = text; };
    const rowsOf = {};
    for (const t in RI_ROWS) {
      const cs = RI_ROWS[t];
      const [x0, y] = riXY(RI_LETTERS[cs[0]] + t), [x1] = riXY(RI_LETTERS[cs[cs.length - 1]] + t);
      put(x0 - 16, y, t); put(x1 + 16, y, t);
      for (const c of cs) (rowsOf[c] = rowsOf[c] || []).push(+t);
    }
    for (const c in rowsOf) {
      const ts = rowsOf[c];
      const [x, y0] = riXY(RI_LETTERS[c] + Math.min(...ts)), [, y1] = riXY(RI_LETTERS[c] + Math.max(...ts));
      put(x, y0 - 14, RI_LETTERS[c]); put(x, y1 + 14, RI_LETTERS[c]);
    }
  }
  describe(position) {
    const st = this.parse(position);
    const what = {place: "phase.rings.place", convert: "phase.rings.convert", "pass-convert": "phase.rings.convert"};
    return {phase: what[st.phase] ? t(what[st.phase]) : st.phase, extra: ""};
  }
}

// ---------------------------------------------------------------- generic
class ListBoard {  // a game without a drawing: the legal actions as buttons
  constructor(svg, onAction) { this.svg = svg; this.onAction = onAction; }
  draw(position) { this.svg.innerHTML = ""; const t = el("text", {x: 10, y: 30}, this.svg); t.textContent = position; }
  describe() { return {phase: "", extra: ""}; }
}

function makeBoard(game, svg, onAction) {
  const B = {yinsh: YinshBoard, gyges: GygesBoard, rings: RingsBoard}[game] || ListBoard;
  svg.classList.add(game);  // the page's style sizes each board for touch
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(() => b.redraw(), 150); });  // YINSH's frame
  const b = new B(svg, onAction);
  b.redraw = () => b._last && b.draw(...b._last);
  const draw = b.draw.bind(b);
  b.draw = (...args) => {
    b._last = args; draw(...args);
    if (args[3] && args[3].animate) args[3] = Object.assign({}, args[3], {animate: false});  // a redraw does not play it again
  };
  return b;
}
