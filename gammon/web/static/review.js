// The review page (/review/page): a .mat or SGF file sent to POST /review, and its report
// shown: the summary table of both players, the equity graph, the marked decisions with
// their boards, and every decision of the match on the board, one at a time. Plain
// JavaScript, no build step; the boards are drawn by drawBoard (draw.js).
//
// The report is the object of `gammon review --json` (eval/review/report.py):
//   players  [{name, unforced, cube_decisions, checker_loss, cube_loss, *_error_rate, pr,
//             luck, points, luck_adjusted, marks: {doubtful, bad, very_bad}, ...}]
//   games    [{number, score, crawford, winner, points, decisions: [decision, ...]}]
//   decision {move, player (0 or 1), kind ("checker" | "double" | "take"), board (26 cells
//             from the deciding player's side, engine.board's layout), posid, xgid, dice
//             ([d1, d2] or null), cube {value, owner: -1 centred, else the player}, action,
//             best, loss (EMG per 1-cube, >= 0), forced, mark (null | "doubtful" | "bad" |
//             "very bad"), luck, luck_mark, equity (player 0's before it), options [{action,
//             equity, loss, probabilities}] best first}
// Each board is drawn from the side of the player deciding (at the bottom, moving 24 -> 1),
// so that the plays, written in his numbering, read off the points; each player keeps his
// colour (player 0 light, player 1 dark: the class seat-P of the SVG, review.css).
//
// For tests the state is in data- attributes: body data-state ("empty", "sending",
// "report", "error"), data-version (one more at each answer or refusal), data-step (the
// decision shown, 1..data-steps); each summary cell data-player, data-key and data-value
// (the raw number, or a JSON list of counts); #step data-game, data-move, data-posid ...;
// each point of the graph, each row of the list and each marked decision data-step.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const THRESHOLDS = ["doubtful", "bad", "very_bad", "lucky", "very_lucky", "unlucky",
                      "very_unlucky"];
  const KIND_WORDS = {checker: "to play", double: "to double or not", take: "to take or pass"};
  const CHECKERS = {hypergammon: 3};  // each side's checkers where not 15
  const OPTIONS_SHOWN = 5;            // options listed under a decision (the played one added)

  // The summary's rows: [label, key, decimals, signed] for a number; a key naming an object
  // of counts (marks) or a list of keys gives a cell of counts "a / b / c".
  const ROWS = [
    ["unforced checker decisions", "unforced", 0],
    ["close or actual cube decisions", "cube_decisions", 0],
    ["checker play: equity lost", "checker_loss", 3],
    ["cube: equity lost", "cube_loss", 3],
    ["checker error rate (mEMG per decision)", "checker_error_rate", 1],
    ["cube error rate (mEMG per decision)", "cube_error_rate", 1],
    ["error rate (mEMG per decision)", "error_rate", 1],
    ["performance rating (PR)", "pr", 1],
    ["checker plays doubtful / bad / very bad", "marks"],
    ["cube decisions doubtful / bad / very bad", "cube_marks"],
    ["luck (EMG)", "luck", 3, true],
    ["lucky / unlucky rolls", ["lucky_rolls", "unlucky_rolls"]],
    ["points won", "points", 0],
    ["luck-adjusted result (points)", "luck_adjusted", 3, true],
  ];

  // the equity graph's frame, in its viewBox units
  const GW = 900, GH = 330, GL = 52, GR = 12, GT = 22, GB = 26;

  let report = null;  // the report shown
  let steps = [];     // every decision in match order: {game, index, d}
  let step = 0;       // the one on the board, 0-based
  let limits = {max_bytes: null, max_turns: null};  // GET /review/limits

  // --- small helpers ----------------------------------------------------------------------

  function make(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // A number with `decimals` decimals (a "+" before a positive one when `signed`), or a dash.
  function num(value, decimals, signed) {
    if (typeof value !== "number" || !Number.isFinite(value)) return "\u2013";
    const text = value.toFixed(decimals);
    return signed && value >= 0 ? "+" + text : text;
  }

  const markClass = (mark) => mark ? "mark-" + mark.replace(" ", "-") : "";
  const roll = (d) => d.dice ? `${d.dice[0]}-${d.dice[1]}` : "";
  const nameOf = (p) => (report.players[p] && report.players[p].name) || `player ${p}`;

  function say(text, error) {
    const m = $("message");
    m.textContent = text;
    m.classList.toggle("error", !!error);
  }

  function answered(state) {
    const body = document.body;
    body.dataset.state = state;
    body.dataset.version = Number(body.dataset.version || 0) + 1;
  }

  function refuse(text) {  // the one line of a file the review would not take
    report = null;
    steps = [];
    $("report").hidden = true;
    document.body.dataset.step = 0;
    document.body.dataset.steps = 0;
    say(text, true);
    answered("error");
  }

  // --- sending the file -------------------------------------------------------------------

  async function loadLimits() {
    try {
      const reply = await fetch("/review/limits");
      if (!reply.ok) return;
      limits = await reply.json();
    } catch (e) {
      return;  // the server checks the limits anyway
    }
    for (const name of THRESHOLDS) {
      const value = limits.thresholds && limits.thresholds[name];
      if (typeof value === "number") $(name).placeholder = String(value);
    }
    const words = [];
    if (limits.max_bytes) words.push(`${Math.floor(limits.max_bytes / 1024)} KB`);
    if (limits.max_turns) words.push(`${limits.max_turns.toLocaleString("en")} turns`);
    if (words.length) $("limits").textContent = `at most ${words.join(" and ")} a file`;
  }

  // The body of POST /review: the file's text and the options as JSON; a file that is not
  // UTF-8 goes as it is, for the server to say why it cannot read it.
  function requestBody(bytes) {
    const options = {on_illegal: $("skip").checked ? "skip" : "stop"};
    for (const name of THRESHOLDS) {
      const field = $(name);
      if (field.validity.badInput) return {problem: `${name.replace("_", " ")}: not a number`};
      if (field.value.trim() !== "") options[name] = Number(field.value);
    }
    let text;
    try {
      text = new TextDecoder("utf-8", {fatal: true, ignoreBOM: true}).decode(bytes);
    } catch (e) {
      return {body: bytes, type: "text/plain", size: bytes.length};
    }
    const body = JSON.stringify({text, ...options});
    return {body, type: "application/json", size: new TextEncoder().encode(body).length};
  }

  async function send(event) {
    event.preventDefault();
    const file = $("file").files[0];
    if (!file) {
      refuse("Choose a .mat or SGF file first.");
      return;
    }
    const request = requestBody(new Uint8Array(await file.arrayBuffer()));
    if (request.problem) {
      refuse(request.problem);
      return;
    }
    if (limits.max_bytes && request.size > limits.max_bytes) {  // as the server would answer
      refuse(`${file.name}: request body longer than ${limits.max_bytes} bytes (this file ` +
             `makes ${request.size.toLocaleString("en")})`);
      return;
    }
    $("review").disabled = true;
    document.body.dataset.state = "sending";
    say(`Reviewing ${file.name} ...`, false);
    let reply = null, answer = null;
    try {
      reply = await fetch("/review", {method: "POST", body: request.body,
                                      headers: {"Content-Type": request.type}});
      answer = await reply.json();
    } catch (e) {
      answer = null;  // no answer, or one that is not JSON: said below
    } finally {
      $("review").disabled = false;
    }
    if (!reply) {
      refuse(`${file.name}: no answer from the server`);
    } else if (!reply.ok || !answer || answer.error !== undefined) {
      refuse(`${file.name}: ` + (answer && answer.error ? answer.error
                                                         : `the server answered ${reply.status}`));
    } else {
      try {
        render(answer, file.name);
      } catch (e) {  // a report this page cannot read: said in one line, never thrown
        refuse(`${file.name}: the page cannot show this report (${e.message})`);
        return;
      }
      answered("report");
    }
  }

  // --- the report -------------------------------------------------------------------------

  function render(answer, fileName) {
    report = answer;
    steps = [];
    for (const game of report.games) {
      game.decisions.forEach((d, index) => steps.push({game, index, d}));
    }
    const marked = steps.filter((s) => s.d.mark).length;
    say(`${fileName}: ${steps.length} decisions graded, ${marked} marked.`, false);
    meta(fileName);
    summary();
    graph();
    decisionList();
    markedDecisions();
    $("step-count").textContent = steps.length;
    document.body.dataset.steps = steps.length;
    $("report").hidden = false;
    step = 0;
    if (steps.length) {
      show(0);
    } else {
      document.body.dataset.step = 0;
      $("step-number").textContent = 0;
      $("board").replaceChildren();
      buttons();
    }
  }

  function meta(fileName) {
    const r = report, games = r.games.length;
    const play = r.match_length ? `a match to ${r.match_length}` : "money play";
    const t = r.thresholds || {};
    $("meta").textContent =
      `${fileName} (${r.format}): ${play}, ${r.variant}, ${games} game${games === 1 ? "" : "s"}, ` +
      `${steps.length} decisions; graded by ${r.bot} at ${r.plies}-ply, cubeful, ` +
      `${r.equity_unit || "EMG per 1-cube"}. Marks: doubtful past ${num(t.doubtful, 3)}, ` +
      `bad past ${num(t.bad, 3)}, very bad past ${num(t.very_bad, 3)}; rolls lucky past ` +
      `${num(t.lucky, 3, true)}, unlucky below ${num(t.unlucky, 3, true)}.`;
    const list = $("warnings");
    list.replaceChildren();
    for (const w of r.warnings || []) make("li", {}, list, `warning: ${w}`);
  }

  function summary() {
    const table = $("summary");
    table.replaceChildren();
    const head = make("tr", {}, make("thead", {}, table));
    make("th", {}, head);
    report.players.forEach((p, i) => make("th", {"data-player": i}, head, p.name));
    const body = make("tbody", {}, table);
    for (const [label, key, decimals, signed] of ROWS) {
      const row = make("tr", {}, body);
      make("td", {}, row, label);
      report.players.forEach((p, i) => {
        let text, value;
        if (typeof decimals === "number") {
          value = p[key];
          text = num(value, decimals, signed);
        } else {
          value = Array.isArray(key) ? key.map((k) => p[k])
            : p[key] ? [p[key].doubtful, p[key].bad, p[key].very_bad] : null;
          text = value ? value.join(" / ") : "\u2013";
        }
        const raw = typeof value === "number" ? String(value) : JSON.stringify(value ?? null);
        make("td", {"data-player": i, "data-key": Array.isArray(key) ? key.join(",") : key,
                    "data-value": raw}, row, text);
      });
    }
  }

  // Player 0's equity before each decision, one point a decision in match order; a line
  // through each game's points, a dashed line where a game starts; a click picks the
  // decision under the pointer.
  function graph() {
    const svg = $("graph");
    svg.replaceChildren();
    const n = steps.length;
    svg.dataset.points = n;
    if (!n) {
      el("text", {x: GW / 2, y: GH / 2, class: "axis-label", "text-anchor": "middle"}, svg,
            "no decisions");
      return;
    }
    const values = steps.map((s) => s.d.equity);
    let lo = Math.min(-1, ...values), hi = Math.max(1, ...values);
    const pad = 0.05 * (hi - lo);
    lo -= pad;
    hi += pad;
    const width = GW - GL - GR, height = GH - GT - GB;
    const x = (k) => GL + (k + 0.5) * width / n;
    const y = (v) => GT + (hi - v) / (hi - lo) * height;
    for (let level = Math.ceil(lo); level <= Math.floor(hi); level++) {
      el("line", {x1: GL, x2: GL + width, y1: y(level), y2: y(level),
                     class: level === 0 ? "grid zero" : "grid"}, svg);
      el("text", {x: GL - 6, y: y(level) + 4, class: "axis-label", "text-anchor": "end"},
            svg, level > 0 ? `+${level}` : String(level));
    }
    let start = 0;
    for (const game of report.games) {
      const count = game.decisions.length, left = GL + start * width / n;
      if (start > 0) {
        el("line", {x1: left, x2: left, y1: GT, y2: GT + height, class: "game-boundary",
                       "data-game": game.number}, svg);
      }
      if (count) {
        el("text", {x: left + 3, y: GT - 7, class: "game-label"}, svg, `game ${game.number}`);
      }
      if (count > 1) {
        const points = game.decisions.map(
          (d, i) => `${x(start + i).toFixed(1)},${y(d.equity).toFixed(1)}`);
        el("polyline", {points: points.join(" "), class: "equity-line"}, svg);
      }
      start += count;
    }
    el("line", {id: "graph-cursor", x1: x(0), x2: x(0), y1: GT, y2: GT + height}, svg);
    steps.forEach((s, k) => {
      const d = s.d;
      const dot = el("circle", {cx: x(k).toFixed(1), cy: y(d.equity).toFixed(1),
                                   r: d.mark ? 4.5 : 2.5, "data-step": k + 1,
                                   class: `equity-point ${markClass(d.mark)}`}, svg);
      el("title", {}, dot, `game ${s.game.number}, move ${d.move}: ${nameOf(d.player)} ` +
            `${roll(d) || d.kind} ${d.action} (${num(d.equity, 3, true)}` +
            `${d.mark ? ", " + d.mark : ""})`);
    });
    el("text", {x: GL + width / 2, y: GH - 6, class: "axis-label", "text-anchor": "middle"},
          svg, `decisions in match order; the equity of ${nameOf(0)} before each`);
  }

  function graphClick(event) {
    if (!steps.length) return;
    const dot = event.target.closest("[data-step]");
    if (dot) {
      show(Number(dot.dataset.step) - 1);
      return;
    }
    const matrix = $("graph").getScreenCTM();
    if (!matrix) return;
    const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    const k = Math.floor((at.x - GL) / ((GW - GL - GR) / steps.length));
    if (k >= 0 && k < steps.length) show(k);
  }

  // Every decision as a row: a click shows it on the board.
  function decisionList() {
    const body = $("decisions").tBodies[0];
    body.replaceChildren();
    steps.forEach((s, k) => {
      const d = s.d;
      const row = make("tr", {"data-step": k + 1, class: markClass(d.mark)}, body);
      for (const text of [k + 1, s.game.number, d.move, nameOf(d.player),
                          roll(d) || d.kind, d.action + (d.forced ? " (forced)" : ""),
                          num(d.loss, 3)]) {
        make("td", {}, row, text);
      }
    });
  }

  function markedDecisions() {
    const box = $("marked");
    box.replaceChildren();
    const marked = steps.map((s, k) => [s, k]).filter(([s]) => s.d.mark);
    $("marked-count").textContent = `(${marked.length})`;
    if (!marked.length) make("p", {}, box, "No decision marked.");
    for (const [s, k] of marked) {
      const d = s.d;
      const card = make("div", {class: `marked-decision ${markClass(d.mark)}`, "data-step": k + 1,
                                title: "show it on the board above"}, box);
      const svg = el("svg", {viewBox: "0 0 760 560", class: `review-board seat-${d.player}`,
                                role: "img"}, card);
      drawBoard(svg, view(d));
      const facts = make("div", {class: "facts"}, card);
      heading(make("h3", {}, facts), s);
      const p = make("p", {}, facts);
      line(p, "played", d.action + (d.forced ? " (forced)" : ""), true);
      line(p, "best", d.best, true);
      line(p, "equity lost", num(d.loss, 3));
      optionsTable(make("table", {class: "options"}, facts), d);
      make("p", {class: "ids"}, facts, `${d.posid}  ${d.xgid || ""}`);
    }
  }

  // --- one decision -----------------------------------------------------------------------

  // What drawBoard draws: the board from the deciding player's side, his dice, the cube.
  function view(d) {
    const owner = !d.cube || d.cube.owner < 0 ? null : d.cube.owner === d.player ? "you" : "bot";
    const cube = d.cube ? {value: d.cube.value, owner} : null;
    return {board: d.board, dice: d.dice, mine: true, cube, variant: report.variant,
            checkers: CHECKERS[report.variant] || 15};
  }

  // "Game 2, move 13: NAME to play 4-1" and the badges of its mark and its roll's luck.
  function heading(h, s) {
    const d = s.d;
    h.textContent = `Game ${s.game.number}, move ${d.move}: ${nameOf(d.player)} ` +
      `${KIND_WORDS[d.kind] || d.kind}${d.dice ? " " + roll(d) : ""}`;
    if (d.mark) {
      make("span", {class: `badge ${markClass(d.mark)}`}, h, `${d.mark}: -${num(d.loss, 3)}`);
    }
    if (d.luck_mark) {
      make("span", {class: `badge ${d.luck_mark.includes("unlucky") ? "unlucky" : "lucky"}`}, h,
           `${d.luck_mark}: ${num(d.luck, 3, true)}`);
    }
  }

  function line(p, label, value, bold) {
    if (p.childNodes.length) make("br", {}, p);
    p.append(`${label}: `);
    make(bold ? "b" : "span", {}, p, value);
  }

  // The best options (and the one played, when it is not among them): equity for the
  // player deciding, loss against the best, his chance to win.
  function optionsTable(table, d) {
    table.replaceChildren();
    const rows = (d.options || []).slice(0, OPTIONS_SHOWN).map((o, i) => [i + 1, o]);
    if (d.options_played) rows.push([d.rank, d.options_played]);
    if (!rows.length) return;
    const head = make("tr", {}, make("thead", {}, table));
    for (const label of ["#", "option", "equity", "loss", "win"]) make("th", {}, head, label);
    const body = make("tbody", {}, table);
    for (const [rank, o] of rows) {
      const classes = [o.action === d.action ? "played" : "", rank === 1 ? "best" : ""];
      const row = make("tr", {class: classes.join(" ").trim()}, body);
      const win = o.probabilities ? `${(100 * o.probabilities[0]).toFixed(1)}%` : "\u2013";
      for (const text of [rank, o.action, num(o.equity, 3, true), num(o.loss, 3), win]) {
        make("td", {}, row, text);
      }
    }
  }

  function show(k) {
    if (!steps.length) return;
    step = Math.max(0, Math.min(steps.length - 1, k));
    const s = steps[step], d = s.d;
    const board = $("board");
    drawBoard(board, view(d));
    board.setAttribute("class", `review-board seat-${d.player}`);
    document.body.dataset.step = step + 1;
    $("step-number").textContent = step + 1;

    const box = $("step");
    Object.assign(box.dataset, {game: s.game.number, index: s.index, move: d.move,
                                player: d.player, kind: d.kind, action: d.action, best: d.best,
                                loss: d.loss, mark: d.mark || "", posid: d.posid});
    box.className = `step-facts ${d.mark ? "marked " + markClass(d.mark) : ""}`.trim();
    heading($("step-head"), s);
    const what = $("step-what");
    what.replaceChildren();
    line(what, "played", d.action + (d.forced ? " (forced)" : ""), true);
    line(what, "best", d.best, true);
    line(what, "equity lost", num(d.loss, 3) + (d.mark ? ` (${d.mark})` : ""));
    if (typeof d.luck === "number") {
      line(what, "luck of the roll",
           num(d.luck, 3, true) + (d.luck_mark ? ` (${d.luck_mark})` : ""));
    }
    const owner = !d.cube || d.cube.owner < 0 ? "centred" : `${nameOf(d.cube.owner)}'s`;
    const score = s.game.score || [0, 0];
    line(what, "cube", `${d.cube ? d.cube.value : 1}, ${owner}` +
         (report.match_length ? `; score ${score[0]}-${score[1]} of ${report.match_length}` +
                                (s.game.crawford ? ", Crawford" : "") : ""));
    line(what, `equity of ${nameOf(0)} before it`, num(d.equity, 3, true));
    optionsTable($("step-options"), d);
    $("step-ids").textContent = `Position ID ${d.posid}` + (d.xgid ? `  ${d.xgid}` : "");
    const other = 1 - d.player;
    $("seat").textContent = `From ${nameOf(d.player)}'s side: ${nameOf(d.player)} at the ` +
      `bottom (${d.player ? "dark" : "light"}), moving from 24 down to 1; ${nameOf(other)} ` +
      `at the top` + (d.kind === "take" ? `, who doubled.` : ".");

    for (const old of document.querySelectorAll(".current")) old.classList.remove("current");
    const row = $("decisions").tBodies[0].rows[step];
    row.classList.add("current");
    const list = $("step-list");
    if (row.offsetTop < list.scrollTop ||
        row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = row.offsetTop - list.clientHeight / 2;
    }
    const card = document.querySelector(`.marked-decision[data-step="${step + 1}"]`);
    if (card) card.classList.add("current");
    const dot = document.querySelector(`#graph circle[data-step="${step + 1}"]`);
    if (dot) {
      dot.classList.add("current");
      const cursor = $("graph-cursor");
      cursor.setAttribute("x1", dot.getAttribute("cx"));
      cursor.setAttribute("x2", dot.getAttribute("cx"));
    }
    buttons();
  }

  function nextMarked() {
    for (let k = step + 1; k < steps.length; k++) {
      if (steps[k].d.mark) return k;
    }
    return -1;
  }

  function buttons() {
    const n = steps.length;
    $("first").disabled = $("previous").disabled = !n || step === 0;
    $("next").disabled = $("last").disabled = !n || step === n - 1;
    $("next-marked").disabled = !n || nextMarked() < 0;
  }

  // --- wiring -----------------------------------------------------------------------------

  $("review-form").addEventListener("submit", (event) => {
    send(event).catch((e) => refuse(`the file could not be sent: ${e.message}`));
  });
  $("first").addEventListener("click", () => show(0));
  $("previous").addEventListener("click", () => show(step - 1));
  $("next").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(steps.length - 1));
  $("next-marked").addEventListener("click", () => {
    const k = nextMarked();
    if (k >= 0) show(k);
  });
  $("graph").addEventListener("click", graphClick);
  $("decisions").addEventListener("click", (event) => {
    const row = event.target.closest("tr[data-step]");
    if (row) show(Number(row.dataset.step) - 1);
  });
  $("marked").addEventListener("click", (event) => {
    const card = event.target.closest(".marked-decision");
    if (!card) return;
    show(Number(card.dataset.step) - 1);
    $("stepper").scrollIntoView({block: "start"});
  });
  document.addEventListener("keydown", (event) => {
    if (!steps.length || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target.closest("input, select, textarea")) return;
    const moves = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: steps.length - 1};
    const to = moves[event.key];
    if (to === undefined) return;
    event.preventDefault();
    show(to);
  });
  loadLimits();
})();
