// The board drawn as SVG, for the game page (board.js) and the review page (review.js).
// Plain JavaScript, no build step, nothing from outside.
//
// drawBoard(svg, view, marks) draws one position from the side of the player at the
// bottom ("you"):
//   view.board     26 cells as engine.board keeps them: 1..24 the points, 25 your bar, 0 the
//                  other side's bar, your checkers positive. In Plakoto (view.variant
//                  "plakoto") a cell is the count on top plus 16 (same sign) when one checker
//                  of the other side lies pinned beneath them (engine/rules/plakoto.py).
//   view.dice      [d1, d2] or null; view.mine: the dice are yours (drawn on your side)
//   view.cube      {value, owner} or null (no cube): owner "you" (or "on roll", the bottom
//                  player of a set-up position), "bot" (or "opponent"), else centred
//   view.checkers  checkers a side has (15; 3 in Hypergammon)
//   view.bomb      Nuclear: the bomb's owner "you" | "bot" | "centred", else absent
//   view.mothers   Plakoto: {you: point, bot: point} of each side's mother checker (the
//                  last one on its starting point), a side absent when it has none;
//                  without it, read from the cells (mothersOf)
// marks (optional): {from: Set of points a step may start from, to: Set of targets of the
// selected checker, selected: the point picked up or null}: the click areas' highlights.
//
// Every stack is a <g id="stack-P" data-point data-count data-owner data-pinned
// data-mother> (count and owner of the checkers on top), the click areas are rects
// id="point-P" / "bar-you" / "off-you" with data-point, so that tests read the board.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const W = 50, R = 21, LEFT = 60, RIGHT = 410, TOP = 20, BOTTOM = 540, MID = 280;
const SHOWN = 5;  // checkers drawn on a point; more get a count
const PIN = 16;   // Plakoto: added to a cell's count when a checker beneath is pinned

// An SVG element `name` with `attrs`, appended to `parent`, holding `text` when given.
function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined && text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function pointX(p) {
  if (p <= 6) return RIGHT + (6 - p) * W;
  if (p <= 12) return LEFT + (12 - p) * W;
  if (p <= 18) return LEFT + (p - 13) * W;
  return RIGHT + (p - 19) * W;
}

// A cell read as {count, owner, pinned}: the checkers on top, whose ("you" / "bot" / ""),
// and whose checker lies pinned beneath them ("you" / "bot" / "").
function cellOf(c, plakoto) {
  const n = Math.abs(c), owner = c > 0 ? "you" : c < 0 ? "bot" : "";
  if (plakoto && n >= PIN) {
    return {count: n - PIN, owner, pinned: owner === "you" ? "bot" : "you"};
  }
  return {count: n, owner, pinned: ""};
}

// [yours, theirs]: the checkers of each side still on the board (bars and pinned ones too).
function onBoard(board, plakoto) {
  let mine = 0, theirs = 0;
  board.forEach((c, p) => {
    if (plakoto && (p === 0 || p === 25)) return;  // no bar in Plakoto
    const cell = cellOf(c, plakoto);
    if (cell.owner === "you") mine += cell.count; else if (cell.owner === "bot") theirs += cell.count;
    if (cell.pinned === "you") mine += 1; else if (cell.pinned === "bot") theirs += 1;
  });
  return [mine, theirs];
}

// Plakoto: each side's mother, the last checker of its own on its starting point (yours
// the 24-point, the other side's your 1-point), pinned or not: {you: 24, bot: 1}, a side
// without one absent (as the server's state gives them, gammon.web.view.mothers).
function mothersOf(board) {
  const out = {};
  for (const [side, p] of [["you", 24], ["bot", 1]]) {
    const cell = cellOf(board[p], true);
    const count = (cell.owner === side ? cell.count : 0) + (cell.pinned === side ? 1 : 0);
    if (count === 1) out[side] = p;
  }
  return out;
}

function drawBoard(svg, view, marks) {
  view = view || {};
  marks = marks || {};
  const from = marks.from || new Set(), to = marks.to || new Set();
  const selected = marks.selected ?? null;
  const plakoto = view.variant === "plakoto";
  svg.replaceChildren();
  el("rect", {x: 0, y: 0, width: 760, height: 560, class: "frame"}, svg);
  el("rect", {x: LEFT, y: TOP, width: 6 * W, height: BOTTOM - TOP, class: "felt"}, svg);
  el("rect", {x: RIGHT, y: TOP, width: 6 * W, height: BOTTOM - TOP, class: "felt"}, svg);
  el("rect", {x: 720, y: TOP, width: 36, height: 250, class: "tray"}, svg);
  el("rect", {x: 720, y: 290, width: 36, height: 250, class: "tray"}, svg);
  const board = view.board || new Array(26).fill(0);
  const mothers = view.mothers || (plakoto ? mothersOf(board) : {});
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), low = p <= 12;
    const base = low ? BOTTOM : TOP, apex = low ? BOTTOM - 210 : TOP + 210;
    el("polygon", {points: `${x},${base} ${x + W},${base} ${x + W / 2},${apex}`,
                   class: p % 2 ? "point-dark" : "point-light"}, svg);
    const label = el("text", {x: x + W / 2, y: low ? 554 : 14, class: "label"}, svg);
    label.textContent = p;
    const mother = mothers.you === p ? "you" : mothers.bot === p ? "bot" : "";
    stack(svg, cellOf(board[p], plakoto), x + W / 2, low, p, mother);
  }
  if (!plakoto) bar(svg, board);  // Plakoto has no bar (its cell 0 counts mothers pinned)
  off(svg, board, view.checkers || 15, plakoto);
  cube(svg, view.cube);
  bomb(svg, view.bomb);
  dice(svg, view.dice, !!view.mine);
  // the places a click lands on (drawn last, on top)
  for (let p = 1; p <= 24; p++) {
    const low = p <= 12;
    hit(svg, p, pointX(p), low ? MID : TOP, W, low ? BOTTOM - MID : MID - TOP,
        from, to, selected);
  }
  hit(svg, 25, LEFT + 6 * W, MID, RIGHT - LEFT - 6 * W, BOTTOM - MID, from, to, selected,
      "bar-you");
  hit(svg, 0, 716, 290, 44, 250, from, to, selected, "off-you");
}

// One point's checkers: a pinned checker first, at the point's edge, then those on top.
function stack(svg, cell, cx, low, p, mother) {
  const g = el("g", {id: `stack-${p}`, "data-point": p, "data-count": cell.count,
                     "data-owner": cell.owner, "data-pinned": cell.pinned,
                     "data-mother": mother}, svg);
  const at = (i) => low ? BOTTOM - R - 1 - i * 2 * R : TOP + R + 1 + i * 2 * R;
  let i = 0;
  if (cell.pinned) {
    el("circle", {cx, cy: at(0), r: R - 1, class: `checker checker-${cell.pinned} pinned`}, g);
    el("path", {d: `M ${cx - 9} ${at(0) - 9} L ${cx + 9} ${at(0) + 9} M ${cx + 9} ${at(0) - 9} ` +
                   `L ${cx - 9} ${at(0) + 9}`, class: "pin-mark"}, g);
    i = 1;
  }
  const shown = Math.min(cell.count, SHOWN - i);
  for (let k = 0; k < shown; k++, i++) {
    el("circle", {cx, cy: at(i), r: R - 1, class: `checker checker-${cell.owner}`}, g);
    if (k === shown - 1 && cell.count > shown) {
      const t = el("text", {x: cx, y: at(i), class: `count count-${cell.owner}`}, g);
      t.textContent = cell.count;
    }
  }
  if (mother) {  // a ring round the mother checker (the lowest of the side's on the point)
    const k = cell.pinned === mother ? 0 : cell.pinned ? 1 : 0;
    el("circle", {cx, cy: at(k), r: R - 5, class: "mother"}, g);
  }
}

function bar(svg, board) {
  const cx = LEFT + 6 * W + (RIGHT - LEFT - 6 * W) / 2;
  for (const [cell, low, who] of [[25, true, "you"], [0, false, "bot"]]) {
    const count = Math.abs(board[cell]);
    const g = el("g", {id: `bar-${who}-checkers`, "data-point": who === "you" ? 25 : "",
                       "data-count": count, "data-owner": who}, svg);
    for (let i = 0; i < Math.min(count, 4); i++) {
      const cy = low ? MID + 50 + i * 2 * R : MID - 50 - i * 2 * R;
      el("circle", {cx, cy, r: R - 1, class: `checker checker-${who}`}, g);
      if (i === 3 && count > 4) {
        const t = el("text", {x: cx, y: cy, class: `count count-${who}`}, g);
        t.textContent = count;
      }
    }
  }
}

function off(svg, board, total, plakoto) {
  const [mine, theirs] = onBoard(board, plakoto);
  for (const [count, low, who] of [[total - mine, true, "you"], [total - theirs, false, "bot"]]) {
    const g = el("g", {id: `off-${who}-checkers`, "data-count": count, "data-owner": who}, svg);
    for (let i = 0; i < count; i++) {
      const y = low ? BOTTOM - 14 - i * 15 : TOP + 2 + i * 15;
      el("rect", {x: 722, y, width: 32, height: 12, rx: 2, class: `off-${who}`}, g);
    }
  }
}

function cube(svg, c) {
  if (!c) return;
  const low = c.owner === "you" || c.owner === "on roll";
  const high = c.owner === "bot" || c.owner === "opponent";
  const y = low ? BOTTOM - 50 : high ? TOP + 10 : MID - 20;
  const g = el("g", {id: "cube", "data-value": c.value, "data-owner": c.owner || "centred"}, svg);
  el("rect", {x: 10, y, width: 40, height: 40, rx: 5, class: "cube"}, g);
  const t = el("text", {x: 30, y: y + 20, class: "cube-text"}, g);
  t.textContent = !c.owner || c.owner === "centred" ? (c.value === 1 ? 64 : c.value) : c.value;
}

// Nuclear's bomb, on the side of its owner (centred: the middle), like the cube.
function bomb(svg, owner) {
  if (!owner) return;
  const y = owner === "you" ? BOTTOM - 110 : owner === "bot" ? TOP + 70 : MID + 40;
  const g = el("g", {id: "bomb", "data-owner": owner}, svg);
  el("circle", {cx: 30, cy: y + 20, r: 17, class: `bomb bomb-${owner}`}, g);
  el("path", {d: `M 38 ${y + 6} q 6 -8 12 -4`, class: "fuse"}, g);
  const t = el("text", {x: 30, y: y + 20, class: "bomb-text"}, g);
  t.textContent = "B";
  const title = el("title", {}, g);
  title.textContent = owner === "centred" ? "the bomb: centred, either side may detonate it"
    : `the bomb: ${owner === "you" ? "yours" : "the bot's"} to detonate`;
}

const PIPS = {1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
              4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
              5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
              6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]]};

function dice(svg, d, mine) {
  const g = el("g", {id: "dice", "data-dice": d ? d.join(",") : "",
                     "data-owner": mine ? "you" : "bot"}, svg);
  if (!d) return;
  const x0 = mine ? RIGHT + 95 : LEFT + 95;
  d.forEach((value, i) => {
    const x = x0 + i * 55, y = MID - 20;
    const die = el("g", {id: `die-${i}`, "data-value": value}, g);
    el("rect", {x, y, width: 40, height: 40, rx: 6, class: mine ? "die" : "die die-bot"}, die);
    const pips = el("g", {class: mine ? "pips" : "pips pips-bot"}, die);
    for (const [dx, dy] of PIPS[value]) {
      el("circle", {cx: x + 20 + dx * 10, cy: y + 20 + dy * 10, r: 4, class: "pip"}, pips);
    }
  });
}

function hit(svg, p, x, y, w, h, from, to, selected, id) {
  const cls = ["hit"];
  if (p === selected) cls.push("selected");
  else if (to.has(p)) cls.push("target");
  else if (selected === null && from.has(p)) cls.push("source");
  el("rect", {x, y, width: w, height: h, class: cls.join(" "), id: id || `point-${p}`,
              "data-point": p}, svg);
}
