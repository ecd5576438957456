// The board in the browser: draws the game's state (from GET/POST /game...) as SVG and
// sends what the person does. Plain JavaScript, no build step, nothing from outside.
//
// The server sends, with each roll, the legal plays and the graph of legal single steps
// ("moves": nodes whose edges are [from, to, hit, next node]; a node's "play" is the row
// of the play it completes). A step is accepted only when it is an edge of the current
// node (or a chain of edges of one checker, from the clicked point to the clicked
// target), so the steps so far are always the start of some legal play; "Done" sends the
// whole play once a node completes one. Points are numbered from the person's side:
// 1..24, the bar 25, off 0.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const W = 50, R = 21, LEFT = 60, RIGHT = 410, TOP = 20, BOTTOM = 540, MID = 280;
const SHOWN = 5;  // checkers drawn on a point; more get a count

let state = null;      // the game as the server last told it
let shown = null;      // what the board shows: {board, dice, cube, analysis}
let node = null;       // the current node of the step graph
let history = [];      // [{node, board, made}] before each accepted step (undo)
let made = [];         // the steps made so far this turn, [[from, to], ...]
let selected = null;   // the point whose checker is picked up
let dragging = null;   // the point a drag started from
let mode = "game";     // "game" or "analysis"

// --- talking to the server -----------------------------------------------------------

async function call(method, path, body) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const reply = await fetch(path, init);
  const data = await reply.json();
  if (!reply.ok) {
    throw new Error(data.error || `${reply.status} ${reply.statusText}`);
  }
  return data;
}

async function act(method, path, body) {
  try {
    take(await call(method, path, body));
  } catch (e) {
    say(e.message, true);
  }
}

function gamePath(what) { return `/game/${state.id}${what ? "/" + what : ""}`; }

// --- the state -------------------------------------------------------------------------

function take(next) {
  state = next;
  document.body.dataset.version = Number(document.body.dataset.version || 0) + 1;
  mode = "game";
  $("back").hidden = true;
  $("analysis").hidden = true;
  $("hints").hidden = true;
  shown = {board: next.board.slice(), dice: next.dice || next.bot_dice,
           mine: !!next.dice, cube: next.cube, checkers: next.off.you + sumMine(next.board)};
  node = next.moves ? next.moves.root : null;
  history = []; made = []; selected = null;
  for (const event of next.events) { log(event.text); }
  say(phaseWords(), false);
  draw();
  controls();
}

function phaseWords() {
  const s = state, bot = s.bot;
  const last = s.events.length ? s.events[s.events.length - 1].text + " " : "";
  switch (s.phase) {
    case "roll": return last + "Your turn: roll" + (s.cube && s.cube.may_double ? " or double." : ".");
    case "move": return last + `You rolled ${s.dice[0]}-${s.dice[1]}: click a checker, then where it goes.`;
    case "answer": return last;
    case "over": return last + "The game is over: Next game.";
    case "match_over": return last + "Start a new match.";
    default: return last;
  }
}

function say(text, error) {
  const m = $("message");
  m.textContent = text;
  m.classList.toggle("error", !!error);
}

function log(text) {
  const li = document.createElement("li");
  li.textContent = text;
  $("log").appendChild(li);
  li.scrollIntoView({block: "nearest"});
}

function playing() { return state && ["roll", "move", "answer"].includes(state.phase); }

function controls() {
  const s = state, phase = s ? s.phase : "none", moving = mode === "game" && phase === "move";
  const complete = moving && node !== null && s.moves.nodes[node].play !== null;
  $("roll").disabled = !(mode === "game" && phase === "roll");
  $("undo").disabled = !(moving && history.length);
  $("done").disabled = !complete;
  $("hint").disabled = !moving;
  $("double").disabled = !(mode === "game" && s && s.cube && s.cube.may_double);
  $("take").disabled = $("pass").disabled = !(mode === "game" && phase === "answer");
  $("beaver").disabled = !(mode === "game" && phase === "answer" && s.cube.may_beaver);
  $("resign").disabled = !(mode === "game" && playing());
  for (const option of $("resign-level").options) {
    option.disabled = !s || Number(option.value) > s.resign;
  }
  if (s && $("resign-level").selectedOptions[0].disabled) { $("resign-level").value = "1"; }
  $("next").disabled = !(mode === "game" && phase === "over");
  document.body.dataset.phase = mode === "game" ? phase : "analysis";
  $("status").dataset.phase = document.body.dataset.phase;
  $("status").dataset.turn = s && s.turn ? s.turn : "";
  $("status").textContent = mode === "analysis" ? "analysis" :
    {roll: "your turn", move: "your play", answer: "answer the double", over: "game over",
     match_over: "match over", none: ""}[phase];
  if (s) {
    const kind = s.length ? `${s.length}-point match` : "money";
    const rules = s.length ? (s.crawford ? ", Crawford game" : "") :
      (s.rules.cube ? "" : ", no cube") + (s.rules.jacoby ? ", Jacoby" : "") +
      (s.rules.beavers ? ", beavers" : "");
    $("score").textContent = `You ${s.score.you} - ${s.bot} ${s.score.bot} (${kind}, game ` +
      `${s.game}${rules}) · pips ${s.pips.you} : ${s.pips.bot}`;
    $("score").dataset.you = s.score.you;
    $("score").dataset.bot = s.score.bot;
    $("download").href = gamePath("record.mat");
    $("game-posid").textContent = s.posid;
    $("game-xgid").textContent = s.xgid || "";
  }
  const list = $("legal-plays");
  list.replaceChildren();
  const plays = moving ? s.plays : [];
  plays.forEach((p, k) => {
    const li = document.createElement("li");
    li.textContent = p.play;
    li.className = "legal-play";
    li.dataset.row = k;
    li.dataset.steps = JSON.stringify(p.steps);
    list.appendChild(li);
  });
  $("legal-count").textContent = `(${plays.length})`;
}

// --- the steps -------------------------------------------------------------------------

function graphNodes() { return state.moves.nodes; }

function sources() {
  const out = new Set();
  if (node === null) return out;
  for (const e of graphNodes()[node].edges) out.add(e[0]);
  return out;
}

// The edges that take the checker on `from` to `to`: one step, or a chain of steps of
// the same checker (each from where the last one ended).
function path(at, from, to) {
  const edges = graphNodes()[at].edges;
  for (const e of edges) if (e[0] === from && e[1] === to) return [e];
  for (const e of edges) {
    if (e[0] === from && e[1] > 0) {
      const rest = path(e[3], e[1], to);
      if (rest) return [e, ...rest];
    }
  }
  return null;
}

function targets(from) {
  const out = new Set();
  const walk = (at, p) => {
    for (const e of graphNodes()[at].edges) {
      if (e[0] === p) { out.add(e[1]); if (e[1] > 0) walk(e[3], e[1]); }
    }
  };
  if (node !== null) walk(node, from);
  return out;
}

function pointName(p) { return p === 25 ? "the bar" : p === 0 ? "off" : `point ${p}`; }

function refuse(text) {
  selected = null;
  say(text, true);
  draw();
}

function down(p) {
  if (mode !== "game" || !state || state.phase !== "move") {
    say(mode === "game" && state ? "It is not your turn to move a checker." :
      "Start a game to move the checkers.", true);
    return;
  }
  if (selected === null) {
    if (sources().has(p)) { selected = p; dragging = p; say(`${pointName(p)}: where to?`); draw(); }
    else refuse(`Not a legal step: no legal play moves a checker from ${pointName(p)} now.`);
  } else if (p === selected) {
    selected = null; draw();
  } else {
    step(selected, p);
  }
}

function up(p) {
  if (dragging !== null && p !== null && p !== dragging) step(dragging, p);
  dragging = null;
}

function step(from, to) {
  const edges = path(node, from, to);
  if (!edges) {
    if (sources().has(to)) { selected = to; dragging = null; draw(); return; }
    refuse(`Not a legal step: ${pointName(from)} to ${pointName(to)} is no part of a legal play.`);
    return;
  }
  history.push({node, board: shown.board.slice(), made: made.slice()});
  for (const e of edges) {
    move(shown.board, e[0], e[1]);
    made.push([e[0], e[1]]);
    node = e[3];
  }
  selected = null;
  const whole = graphNodes()[node].play !== null;
  say(whole ? "A whole play: Done sends it (or Undo)." : "Next step.", false);
  draw();
  controls();
}

function move(board, from, to) {
  board[from] -= 1;
  if (to > 0) {
    if (board[to] === -1) { board[to] = 1; board[0] -= 1; } else { board[to] += 1; }
  }
}

function undo() {
  const last = history.pop();
  if (!last) return;
  node = last.node; shown.board = last.board; made = last.made; selected = null;
  say("Taken back.", false);
  draw();
  controls();
}

// --- drawing ---------------------------------------------------------------------------

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function pointX(p) {
  if (p <= 6) return RIGHT + (6 - p) * W;
  if (p <= 12) return LEFT + (12 - p) * W;
  if (p <= 18) return LEFT + (p - 13) * W;
  return RIGHT + (p - 19) * W;
}

function draw() {
  const svg = $("board");
  svg.replaceChildren();
  el("rect", {x: 0, y: 0, width: 760, height: 560, class: "frame"}, svg);
  el("rect", {x: LEFT, y: TOP, width: 6 * W, height: BOTTOM - TOP, class: "felt"}, svg);
  el("rect", {x: RIGHT, y: TOP, width: 6 * W, height: BOTTOM - TOP, class: "felt"}, svg);
  el("rect", {x: 720, y: TOP, width: 36, height: 250, class: "tray"}, svg);
  el("rect", {x: 720, y: 290, width: 36, height: 250, class: "tray"}, svg);
  const board = shown ? shown.board : new Array(26).fill(0);
  const canMove = mode === "game" && state && state.phase === "move";
  const from = canMove ? sources() : new Set();
  const to = canMove && selected !== null ? targets(selected) : new Set();
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), low = p <= 12;
    const base = low ? BOTTOM : TOP, apex = low ? BOTTOM - 210 : TOP + 210;
    el("polygon", {points: `${x},${base} ${x + W},${base} ${x + W / 2},${apex}`,
                   class: p % 2 ? "point-dark" : "point-light"}, svg);
    const label = el("text", {x: x + W / 2, y: low ? 554 : 14, class: "label"}, svg);
    label.textContent = p;
    stack(svg, board[p], x + W / 2, low, p);
  }
  bar(svg, board);
  off(svg, board);
  cube(svg);
  dice(svg);
  // the places a click lands on (drawn last, on top)
  for (let p = 1; p <= 24; p++) {
    const low = p <= 12;
    hit(svg, p, pointX(p), low ? MID : TOP, W, low ? BOTTOM - MID : MID - TOP, from, to);
  }
  hit(svg, 25, LEFT + 6 * W, MID, RIGHT - LEFT - 6 * W, BOTTOM - MID, from, to, "bar-you");
  hit(svg, 0, 716, 290, 44, 250, from, to, "off-you");
}

function stack(svg, n, cx, low, p) {
  const g = el("g", {id: `stack-${p}`, "data-point": p, "data-count": Math.abs(n),
                     "data-owner": n > 0 ? "you" : n < 0 ? "bot" : ""}, svg);
  const who = n > 0 ? "you" : "bot", count = Math.abs(n);
  for (let i = 0; i < Math.min(count, SHOWN); i++) {
    const cy = low ? BOTTOM - R - 1 - i * 2 * R : TOP + R + 1 + i * 2 * R;
    el("circle", {cx, cy, r: R - 1, class: `checker checker-${who}`}, g);
    if (i === SHOWN - 1 && count > SHOWN) {
      const t = el("text", {x: cx, y: cy, class: `count count-${who}`}, g);
      t.textContent = count;
    }
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

function off(svg, board) {
  const total = shown ? shown.checkers : 15;
  let mine = 0, theirs = 0;
  for (const c of board) { if (c > 0) mine += c; else theirs -= c; }
  for (const [count, low, who] of [[total - mine, true, "you"], [total - theirs, false, "bot"]]) {
    const g = el("g", {id: `off-${who}-checkers`, "data-count": count, "data-owner": who}, svg);
    for (let i = 0; i < count; i++) {
      const y = low ? BOTTOM - 14 - i * 15 : TOP + 2 + i * 15;
      el("rect", {x: 722, y, width: 32, height: 12, rx: 2, class: `off-${who}`}, g);
    }
  }
}

function sumMine(board) { let n = 0; for (const c of board) if (c > 0) n += c; return n; }

function cube(svg) {
  const c = shown && shown.cube;
  if (!c) return;
  const y = c.owner === "you" || c.owner === "on roll" ? BOTTOM - 50 :
    c.owner === "bot" || c.owner === "opponent" ? TOP + 10 : MID - 20;
  const g = el("g", {id: "cube", "data-value": c.value, "data-owner": c.owner || "centred"}, svg);
  el("rect", {x: 10, y, width: 40, height: 40, rx: 5, class: "cube"}, g);
  const t = el("text", {x: 30, y: y + 20, class: "cube-text"}, g);
  t.textContent = c.owner === "centred" || !c.owner ? (c.value === 1 ? 64 : c.value) : c.value;
}

const PIPS = {1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
              4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
              5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
              6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]]};

function dice(svg) {
  const d = shown && shown.dice;
  const g = el("g", {id: "dice", "data-dice": d ? d.join(",") : "",
                     "data-owner": shown && shown.mine ? "you" : "bot"}, svg);
  if (!d) return;
  const mine = shown.mine;
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

function hit(svg, p, x, y, w, h, from, to, id) {
  const cls = ["hit"];
  if (p === selected) cls.push("selected");
  else if (to.has(p)) cls.push("target");
  else if (selected === null && from.has(p)) cls.push("source");
  el("rect", {x, y, width: w, height: h, class: cls.join(" "), id: id || `point-${p}`,
              "data-point": p}, svg);
}

// --- hints and the position box ---------------------------------------------------------

function percent(x) { return (100 * x).toFixed(1); }

async function hint() {
  try {
    const h = await call("GET", gamePath("hint?count=5"));
    $("hint-label").textContent = `${state.bot}'s best plays for ${h.dice[0]}-${h.dice[1]} (${h.score})`;
    const body = $("hint-table").tBodies[0];
    body.replaceChildren();
    for (const row of h.plays) {
      const tr = document.createElement("tr");
      tr.className = "hint-row";
      tr.dataset.play = row.play;
      const p = row.probabilities;
      const cells = [row.rank, row.play, (row.cubeless_equity ?? row.score).toFixed(3)];
      if (p) cells.push(percent(p.win), percent(p.win_gammon), percent(p.win_backgammon),
                        percent(p.lose_gammon), percent(p.lose_backgammon));
      for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
      body.appendChild(tr);
    }
    $("hints").hidden = false;
  } catch (e) {
    say(e.message, true);
  }
}

async function analyse(event) {
  event.preventDefault();
  const body = {position: $("position").value.trim()};
  if ($("position-dice").value.trim()) body.dice = $("position-dice").value.trim();
  let a;
  try {
    a = await call("POST", "/analyse", body);
  } catch (e) {
    say(e.message, true);
    return;
  }
  mode = "analysis";
  selected = null;
  document.body.dataset.version = Number(document.body.dataset.version || 0) + 1;
  shown = {board: a.board, dice: a.dice, mine: true, cube: a.cube,
           checkers: a.off[0] + sumMine(a.board)};
  $("analysis").hidden = false;
  $("back").hidden = !state;
  $("analysis-posid").textContent = a.posid;
  $("analysis-xgid").textContent = a.xgid || "";
  $("analysis-note").textContent = (a.match ? `${a.match.length}-point match, on roll ` +
    `${a.match.score[0]}, opponent ${a.match.score[1]}${a.match.crawford ? ", Crawford" : ""}. ` : "Money play. ") +
    `Pips ${a.pips[0]} : ${a.pips[1]}, the player on roll at the bottom.` + (a.note ? ` (${a.note})` : "");
  const probs = $("analysis-probabilities");
  probs.replaceChildren();
  if (a.analysis) {
    const p = a.analysis.probabilities;
    const rows = [["win", p.win], ["win gammon", p.win_gammon], ["win backgammon", p.win_backgammon],
                  ["lose gammon", p.lose_gammon], ["lose backgammon", p.lose_backgammon]];
    for (const [name, v] of rows) {
      const tr = probs.insertRow();
      tr.insertCell().textContent = name;
      tr.insertCell().textContent = percent(v) + "%";
    }
    const eq = a.analysis.cubeless_equity ?? a.analysis.cubeless_emg;
    if (eq !== undefined) {
      const tr = probs.insertRow();
      tr.insertCell().textContent = "cubeless equity";
      tr.insertCell().textContent = eq.toFixed(3);
    }
    const cubeful = a.analysis.cubeful || {};
    for (const [k, v] of Object.entries(cubeful)) {
      const tr = probs.insertRow();
      tr.insertCell().textContent = k.replace("_", " ");
      tr.insertCell().textContent = Number(v).toFixed(3);
    }
    $("analysis-action").textContent = `Cube: ${a.analysis.decision || a.action.action + ", " + a.action.response}`;
    $("analysis-action").dataset.action = a.action.action;
  } else {
    $("analysis-action").textContent = "";
    delete $("analysis-action").dataset.action;
  }
  const tbody = $("analysis-plays").tBodies[0];
  tbody.replaceChildren();
  for (const row of a.plays || []) {
    const tr = tbody.insertRow();
    tr.className = "analysis-play";
    tr.dataset.play = row.play;
    const p = row.probabilities;
    const cells = [row.rank, row.play, row.equity.toFixed(3), row.loss.toFixed(3)];
    if (p) cells.push(percent(p.win), percent(p.win_gammon), percent(p.lose_gammon));
    for (const c of cells) tr.insertCell().textContent = c;
  }
  say(`Position ${a.posid} set up and analysed.`, false);
  draw();
  controls();
}

function back() {
  if (state) take({...state, events: []});
}

// --- starting ---------------------------------------------------------------------------

function newGame(event) {
  if (event) event.preventDefault();
  const body = {length: Number($("length").value || 0), cube: $("cube-on").checked,
                jacoby: $("jacoby").checked, beavers: $("beavers").checked};
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  $("log").replaceChildren();
  act("POST", "/game", body);
}

function pointOf(target) {
  const p = target && target.closest && target.closest("[data-point]");
  return p && p.dataset.point !== "" ? Number(p.dataset.point) : null;
}

function start() {
  const svg = $("board");
  svg.addEventListener("pointerdown", (e) => {
    const p = pointOf(e.target);
    if (p !== null) { e.preventDefault(); down(p); }
  });
  svg.addEventListener("pointerup", (e) => {
    up(pointOf(document.elementFromPoint(e.clientX, e.clientY)));
  });
  $("roll").onclick = () => act("POST", gamePath("roll"));
  $("undo").onclick = undo;
  $("done").onclick = () => act("POST", gamePath("play"), {steps: made});
  $("hint").onclick = hint;
  $("double").onclick = () => act("POST", gamePath("double"));
  $("take").onclick = () => act("POST", gamePath("answer"), {response: "take"});
  $("pass").onclick = () => act("POST", gamePath("answer"), {response: "pass"});
  $("beaver").onclick = () => act("POST", gamePath("answer"), {response: "beaver"});
  $("resign").onclick = () => act("POST", gamePath("resign"), {level: Number($("resign-level").value)});
  $("next").onclick = () => act("POST", gamePath("next"));
  $("new-game-form").addEventListener("submit", newGame);
  $("position-form").addEventListener("submit", analyse);
  $("back").onclick = back;
  const query = new URLSearchParams(location.search);
  for (const [name, id] of [["length", "length"], ["seed", "seed"]]) {
    if (query.has(name)) $(id).value = query.get(name);
  }
  for (const name of ["jacoby", "beavers"]) if (query.get(name) === "1") $(name).checked = true;
  if (query.get("cube") === "0") $("cube-on").checked = false;
  draw();
  controls();
  if (query.get("start") !== "0") newGame();
}

start();
