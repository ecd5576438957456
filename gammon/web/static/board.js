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

const $ = (id) => document.getElementById(id);

let state = null;      // the game as the server last told it
let shown = null;      // what the board shows: {board, dice, cube, analysis}
let node = null;       // the current node of the step graph
let history = [];      // [{node, board, made}] before each accepted step (undo)
let made = [];         // the steps made so far this turn, [[from, to], ...]
let hitters = [];      // points where a checker that hit in your home board stands now
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
  $("advice-box").hidden = true;
  shown = {board: next.board.slice(), dice: next.dice || next.bot_dice,
           mine: !!next.dice, cube: next.cube, checkers: next.checkers,
           variant: next.variant, bomb: next.bomb ? next.bomb.owner : null};
  node = next.moves ? next.moves.root : null;
  history = []; made = []; hitters = []; selected = null;
  for (const event of next.events) { log(event.text); }
  say(phaseWords(), false);
  draw();
  controls();
}

function phaseWords() {
  const s = state, bot = s.bot;
  const last = s.events.length ? s.events[s.events.length - 1].text + " " : "";
  switch (s.phase) {
    case "roll": return last + "Your turn: roll" + (s.cube && s.cube.may_double ? ", double" : "") +
      (s.bomb && s.bomb.may_detonate ? ", or detonate the bomb." : ".");
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
  $("advice").disabled = !(mode === "game" && phase === "roll" && s.cube);
  $("double").disabled = !(mode === "game" && s && s.cube && s.cube.may_double);
  $("take").disabled = $("pass").disabled = !(mode === "game" && phase === "answer");
  $("beaver").disabled = !(mode === "game" && phase === "answer" && s.cube.may_beaver);
  $("resign").disabled = !(mode === "game" && playing());
  $("detonate").hidden = !(s && s.bomb);
  $("detonate").disabled = !(mode === "game" && s && s.bomb && s.bomb.may_detonate);
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
    const named = $("variant").querySelector(`option[value="${s.variant}"]`);
    const kind = (s.variant !== "standard" ? `${named ? named.textContent : s.variant}, ` : "") +
      (s.length ? `${s.length}-point match` : "money");
    const rules = s.length ? (s.crawford ? ", Crawford game" : "") :
      (s.rules.cube ? "" : ", no cube") + (s.rules.jacoby ? ", Jacoby" : "") +
      (s.rules.beavers ? ", beavers" : "");
    $("score").textContent = `You ${s.score.you} - ${s.bot} ${s.score.bot} (${kind}, game ` +
      `${s.game}${rules}) · pips ${s.pips.you} : ${s.pips.bot}`;
    $("score").dataset.you = s.score.you;
    $("score").dataset.bot = s.score.bot;
    $("download").href = gamePath("record.mat");
    $("game-posid").textContent = s.posid;
    $("game-posid-label").textContent = s.variant === "plakoto" ? "Position" : "Position ID";
    $("game-xgid").textContent = s.xgid || "";
    $("game-matchid").textContent = s.matchid || "";
    $("game-xgid-row").hidden = !s.xgid;
    $("game-matchid-row").hidden = !s.matchid;
    const legend = {plakoto: "A crossed checker is pinned under the other side's; a ringed " +
                             "one is a mother, the last on its starting point.",
                    nuclear: "B is the bomb, on the side of the player who may detonate " +
                             "it (in the middle: either)."}[s.variant];
    $("legend").hidden = !legend;
    $("legend").textContent = legend || "";
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
    li.dataset.hits = JSON.stringify(p.hits);
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

// Why no legal play moves a checker from `p` (the status line's words).
function whyNotFrom(p) {
  const cell = cellOf(shown.board[p] || 0, state.variant === "plakoto");
  if (cell.pinned === "you" && cell.owner === "bot") {
    return `your checker on ${p} is pinned: it cannot move until ${state.bot}'s checkers leave.`;
  }
  if (p !== 25 && shown.board[25] > 0) return "you must enter your checkers from the bar first.";
  if (state.variant === "caucasian" && hitters.includes(p)) {
    return `the Caucasian rule: the checker that hit on ${p} may not move on to hide on ` +
      "your own checkers or bear off this turn.";
  }
  return `no legal play moves a checker from ${pointName(p)} now.`;
}

// Why the step from `from` to `to` is no part of a legal play (the status line's words).
function whyNot(from, to) {
  const plakoto = state.variant === "plakoto";
  const cell = to > 0 ? cellOf(shown.board[to], plakoto) : null;
  if (state.variant === "caucasian" && hitters.includes(from) &&
      (to === 0 || (cell && cell.owner === "you"))) {
    return `the Caucasian rule: the checker that hit on ${from} may not hide ` +
      (to === 0 ? "by bearing off" : `on your own checkers on ${to}`) + " this turn.";
  }
  if (cell && cell.owner === "bot" && (cell.count >= 2 || cell.pinned === "you")) {
    return `point ${to} is closed (` + (cell.pinned === "you" ? `${state.bot} pins a checker ` +
      "of yours there)." : `${cell.count} of ${state.bot}'s checkers).`);
  }
  return `${pointName(from)} to ${pointName(to)} is no part of a legal play.`;
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
    else refuse(`Not a legal step: ${whyNotFrom(p)}`);
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
    refuse(`Not a legal step: ${whyNot(from, to)}`);
    return;
  }
  history.push({node, made: made.slice(), hitters: hitters.slice()});
  for (const e of edges) {
    made.push([e[0], e[1]]);
    node = e[3];
    const k = hitters.indexOf(e[0]);  // a home-board hitter moving on (the Caucasian rule)
    if (k >= 0) { hitters.splice(k, 1); if (e[1] > 0) hitters.push(e[1]); }
    if (e[2] && e[1] >= 1 && e[1] <= 6) hitters.push(e[1]);
  }
  shown.board = graphNodes()[node].board.slice();  // the server's cells (pins, hits)
  selected = null;
  const whole = graphNodes()[node].play !== null;
  say(whole ? "A whole play: Done sends it (or Undo)." : "Next step.", false);
  draw();
  controls();
}

function undo() {
  const last = history.pop();
  if (!last) return;
  node = last.node; made = last.made; hitters = last.hitters; selected = null;
  shown.board = graphNodes()[node].board.slice();
  say("Taken back.", false);
  draw();
  controls();
}

// --- drawing (draw.js) ------------------------------------------------------------------

function draw() {
  const canMove = mode === "game" && state && state.phase === "move";
  drawBoard($("board"), shown, {from: canMove ? sources() : new Set(),
                                to: canMove && selected !== null ? targets(selected) : new Set(),
                                selected});
}

function sumMine(board) { let n = 0; for (const c of board) if (c > 0) n += c; return n; }

// --- hints and the position box ---------------------------------------------------------

function percent(x) { return (100 * x).toFixed(1); }

async function hint() {
  try {
    const h = await call("GET", gamePath(`hint?count=5&plies=${$("plies").value}`));
    $("hint-label").textContent = `${state.bot}'s best plays for ${h.dice[0]}-${h.dice[1]} ` +
      `(${h.score}, ${h.plies}-ply, ${h.seconds.toFixed(2)} s)`;
    $("hints").dataset.plies = h.plies;
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

// The cube action before your roll, with its equities (gammon cube's answer, at the depth
// chosen): no double, double/take, double/pass.
async function advice() {
  let a;
  try {
    a = await call("GET", gamePath(`advice?plies=${$("plies").value}`));
  } catch (e) {
    say(e.message, true);
    return;
  }
  const unit = a.unit === "match winning chance" ? "match winning chance" : "points per cube";
  $("advice-label").textContent = `${state.bot}, ${a.plies}-ply, ${a.seconds.toFixed(2)} s (${unit})`;
  const body = $("advice-table").tBodies[0];
  body.replaceChildren();
  const names = {no_double: "no double", double_take: "double, take", double_pass: "double, pass"};
  for (const [key, name] of Object.entries(names)) {
    if (!(key in a.equities)) continue;
    const tr = body.insertRow();
    tr.className = "advice-row";
    tr.dataset.key = key;
    tr.dataset.equity = a.equities[key];
    tr.insertCell().textContent = name;
    tr.insertCell().textContent = unit === "match winning chance" ?
      percent(a.equities[key]) + "%" : a.equities[key].toFixed(3);
  }
  const box = $("advice-action");
  box.textContent = (a.decision || `${a.action}, ${a.response}`) + (a.note ? ` (${a.note})` : "");
  box.dataset.action = a.action;
  box.dataset.response = a.response;
  box.dataset.plies = a.plies;
  $("advice-box").hidden = false;
  document.body.dataset.version = Number(document.body.dataset.version || 0) + 1;
}

// A game from the position in the box: you on roll, the ID's match, score, cube and dice.
function playPosition() {
  const text = $("position").value.trim();
  if (!text) { say("Type a Position ID, POSID:MATCHID or XGID to play from.", true); return; }
  newGame(null, text);
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

function newGame(event, position) {
  if (event) event.preventDefault();
  const body = {variant: $("variant").value, length: Number($("length").value || 0),
                cube: $("cube-on").checked,
                jacoby: $("jacoby").checked, beavers: $("beavers").checked};
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  if (position) body.position = position;
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
  $("advice").onclick = advice;
  $("play-position").onclick = playPosition;
  $("double").onclick = () => act("POST", gamePath("double"));
  $("detonate").onclick = () => act("POST", gamePath("detonate"));
  $("take").onclick = () => act("POST", gamePath("answer"), {response: "take"});
  $("pass").onclick = () => act("POST", gamePath("answer"), {response: "pass"});
  $("beaver").onclick = () => act("POST", gamePath("answer"), {response: "beaver"});
  $("resign").onclick = () => act("POST", gamePath("resign"), {level: Number($("resign-level").value)});
  $("next").onclick = () => act("POST", gamePath("next"));
  $("new-game-form").addEventListener("submit", newGame);
  $("position-form").addEventListener("submit", analyse);
  $("back").onclick = back;
  const query = new URLSearchParams(location.search);
  for (const [name, id] of [["length", "length"], ["seed", "seed"], ["variant", "variant"]]) {
    if (query.has(name)) $(id).value = query.get(name);
  }
  for (const name of ["jacoby", "beavers"]) if (query.get(name) === "1") $(name).checked = true;
  if (query.get("cube") === "0") $("cube-on").checked = false;
  draw();
  controls();
  if (query.get("start") !== "0") newGame();
}

start();
