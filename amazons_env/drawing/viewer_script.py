"""The script of the web page viewer (``amazons_env.drawing.html``), in the page as it is.

It reads the game's JSON (``<script id="game">``), replays the moves from the start position
(checking each fits and that they reach the recorded final position), builds the board as SVG
and keeps it, the move list, the value curve and the panel up to date as the reader steps. With
an engine's review in the record (``amazons_env.move_review``) it draws the engine's move in the
shown position as an arrow on the board (the queen's path, then the shot, dashed) and puts each
move's mark in the move list and the panel. The DOM it keeps is what the browser tests read: the
board's ``data-ply``, ``data-position`` and ``data-best``, each square's ``data-piece``.

>>> VIEWER_SCRIPT.startswith('"use strict";')
True
"""

__all__ = ["VIEWER_SCRIPT"]

VIEWER_SCRIPT = """"use strict";
(function () {
  const G = JSON.parse(document.getElementById("game").textContent);
  const n = G.size, plies = G.moves.length / 3, C = G.colours;
  const board = document.getElementById("board"), NS = board.namespaceURI;
  const CELL = 40, M = 20, SIDE = n * CELL + 2 * M;
  const $ = (id) => document.getElementById(id);
  document.documentElement.style.setProperty("--mark", C.mark);

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    parent.appendChild(node);
    return node;
  }
  const squareName = (sq) => G.files[sq % n] + (Math.floor(sq / n) + 1);
  const moveAt = (p) => G.moves.slice(3 * p, 3 * p + 3);
  const named = (m) => squareName(m[0]) + "-" + squareName(m[1]) + "/" + squareName(m[2]);
  const notation = (p) => named(moveAt(p));
  const markOf = (p) => (G.marks ? G.marks[p] : "");  // "?!", "?", "??" or ""
  const colourOf = (p) => ((G.turn + p) % 2 ? "Black" : "White");  // the side to move after p plies

  // replay: positions[p] is the cells after p plies; a move that does not fit stops the replay
  const positions = [G.start];
  let problem = null;
  for (let p = 0; p < plies; p++) {
    const cells = positions[p].split(""), [from, to, arrow] = moveAt(p);
    const queen = colourOf(p) === "White" ? "Q" : "q";
    if (cells[from] !== queen || cells[to] !== ".") {
      problem = "move " + (p + 1) + " (" + notation(p) + ") does not fit its position";
      break;
    }
    cells[to] = queen;
    cells[from] = ".";
    if (cells[arrow] !== ".") {
      problem = "move " + (p + 1) + " (" + notation(p) + ") shoots at an occupied square";
      break;
    }
    cells[arrow] = "*";
    positions.push(cells.join(""));
  }
  const last = positions.length - 1;
  if (!problem && positions[last] !== G.final) problem = "the moves do not reach the recorded final position";
  if (problem) console.error("damaged game: " + problem);

  // the board: squares, a queen and an arrow per square (shown as the position needs), the marks
  board.setAttribute("viewBox", "0 0 " + SIDE + " " + SIDE);
  el("rect", { width: SIDE, height: SIDE, fill: C.background }, board);
  const squares = [], queens = [], arrows = [];
  for (let sq = 0; sq < n * n; sq++) {
    const file = sq % n, rank = Math.floor(sq / n), x = M + file * CELL, y = M + (n - 1 - rank) * CELL;
    const cx = x + CELL / 2, cy = y + CELL / 2, d = CELL * 0.3;
    const fill = (file + rank) % 2 === 0 ? C.dark : C.light;
    const name = squareName(sq);
    squares.push(el("rect", { x: x, y: y, width: CELL, height: CELL, fill: fill, "data-square": name }, board));
    queens.push(el("circle", { cx: cx, cy: cy, r: CELL * 0.36, "stroke-width": 2 }, board));
    const cross = "M" + (cx - d) + "," + (cy - d) + "L" + (cx + d) + "," + (cy + d)
      + "M" + (cx - d) + "," + (cy + d) + "L" + (cx + d) + "," + (cy - d);
    arrows.push(el("path", { d: cross, stroke: C.arrow, "stroke-width": 5, "stroke-linecap": "round" }, board));
  }
  const markLook = { width: CELL - 3, height: CELL - 3, fill: "none", stroke: C.mark, "stroke-width": 3 };
  const marks = [0, 1, 2].map(() => el("rect", markLook, board));
  // the engine's move in the shown position (a review): the queen's path with a head, the shot dashed
  const centre = (sq) => [M + (sq % n) * CELL + CELL / 2, M + (n - 1 - Math.floor(sq / n)) * CELL + CELL / 2];
  const bestLook = { stroke: C.best, "stroke-linecap": "round", opacity: 0.8, "pointer-events": "none" };
  const bestPath = el("line", { ...bestLook, id: "best-path", "stroke-width": CELL * 0.14 }, board);
  const bestHead = el("polygon", { ...bestLook, id: "best-head", fill: C.best, "stroke-width": 1 }, board);
  const bestShot = el("line", { ...bestLook, id: "best-shot", "stroke-width": CELL * 0.07, "stroke-dasharray": "4 4" },
    board);
  const bestTarget = el("circle", { ...bestLook, id: "best-target", r: CELL * 0.13, fill: C.best }, board);
  for (let i = 0; i < n; i++) {
    const fileY = SIDE - 5, rankY = M + (n - 1 - i) * CELL + CELL / 2 + 4;
    el("text", { x: M + i * CELL + CELL / 2, y: fileY, "text-anchor": "middle" }, board).textContent = G.files[i];
    el("text", { x: M / 2, y: rankY, "text-anchor": "middle" }, board).textContent = String(i + 1);
  }

  // the side panel: players, other headers, the move list
  $("players").textContent = G.white + " (White) vs " + G.black + " (Black)";
  $("info").textContent = [n + "x" + n, plies + " move" + (plies === 1 ? "" : "s")]
    .concat(G.info.map((pair) => pair[0] + ": " + pair[1])).join(" \\u00b7 ");
  const list = $("moves"), entries = [];
  if (plies && G.turn === 1) list.appendChild(document.createElement("i"));  // Black's column first
  for (let p = 0; p < plies; p++) {
    const entry = document.createElement("span");
    entry.textContent = (p + 1) + ". " + notation(p);
    if (markOf(p)) {
      const glyph = document.createElement("b");
      glyph.textContent = markOf(p);
      glyph.className = glyph.title = G.markWords[markOf(p)];
      entry.appendChild(glyph);
    }
    entry.setAttribute("data-ply", p + 1);
    entry.addEventListener("click", () => show(p + 1));
    list.appendChild(entry);
    entries.push(entry);
  }
  $("review").hidden = !(G.best || G.marks);
  const slider = $("slider");
  slider.max = last;

  // the value curve, White's view: up is good for White
  const W = 300, H = 100, curve = $("curve");
  const cx = (p) => (plies ? (p / plies) * W : 0);
  const cy = (v) => H / 2 - Math.max(-1, Math.min(1, v)) * (H / 2 - 4);
  let cursor = null;
  if (G.values) {
    $("values").hidden = false;
    el("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, stroke: "#bbb", "stroke-width": 1 }, curve);
    const points = [];
    G.values.forEach((v, p) => { if (v !== null) points.push(cx(p + 1).toFixed(1) + "," + cy(v).toFixed(1)); });
    const thin = { fill: "none", "vector-effect": "non-scaling-stroke" };
    el("polyline", { ...thin, id: "curve-line", points: points.join(" "), stroke: C.mark, "stroke-width": 1.5 }, curve);
    cursor = el("line", { ...thin, y1: 0, y2: H, stroke: C.arrow, "stroke-width": 1 }, curve);
    curve.addEventListener("click", (event) => {
      const box = curve.getBoundingClientRect();
      show(Math.round(((event.clientX - box.left) / box.width) * plies));
    });
  }

  let ply = 0, current = null;
  function show(p) {
    ply = Math.max(0, Math.min(last, p));
    const cells = positions[ply];
    for (let sq = 0; sq < n * n; sq++) {
      const piece = cells[sq], queen = queens[sq];
      squares[sq].setAttribute("data-piece", piece);
      queen.style.display = piece === "Q" || piece === "q" ? "" : "none";
      queen.setAttribute("fill", piece === "Q" ? C.white : C.black);
      queen.setAttribute("stroke", piece === "Q" ? C.white_edge : C.black_edge);
      arrows[sq].style.display = piece === "*" ? "" : "none";
    }
    marks.forEach((mark, i) => {
      mark.style.display = ply ? "" : "none";
      if (ply) {
        const sq = moveAt(ply - 1)[i];
        mark.setAttribute("x", M + (sq % n) * CELL + 1.5);
        mark.setAttribute("y", M + (n - 1 - Math.floor(sq / n)) * CELL + 1.5);
      }
    });
    const engine = G.best ? G.best[ply] : null;
    [bestPath, bestHead, bestShot, bestTarget].forEach((part) => { part.style.display = engine ? "" : "none"; });
    board.setAttribute("data-best", engine ? named(engine) : "");
    if (engine) {
      const [from, to, shot] = engine.map(centre);
      bestPath.setAttribute("x1", from[0]);
      bestPath.setAttribute("y1", from[1]);
      // the head: its tip a little past the target's centre, the path ending at its base
      const dx = to[0] - from[0], dy = to[1] - from[1], length = Math.hypot(dx, dy), ux = dx / length, uy = dy / length;
      const tip = [to[0] + ux * CELL * 0.15, to[1] + uy * CELL * 0.15];
      const base = [tip[0] - ux * CELL * 0.4, tip[1] - uy * CELL * 0.4], half = CELL * 0.2;
      bestPath.setAttribute("x2", base[0]);
      bestPath.setAttribute("y2", base[1]);
      bestHead.setAttribute("points", [tip, [base[0] - uy * half, base[1] + ux * half],
        [base[0] + uy * half, base[1] - ux * half]].map((pt) => pt[0].toFixed(1) + "," + pt[1].toFixed(1)).join(" "));
      bestShot.setAttribute("x1", to[0]);
      bestShot.setAttribute("y1", to[1]);
      bestShot.setAttribute("x2", shot[0]);
      bestShot.setAttribute("y2", shot[1]);
      bestTarget.setAttribute("cx", shot[0]);
      bestTarget.setAttribute("cy", shot[1]);
    }
    if (G.best || G.marks) {
      const said = engine ? ["Engine's move here: " + named(engine) + " (the green arrow)"] : [];
      if (ply < plies) {
        const mark = markOf(ply), same = engine && named(engine) === notation(ply);
        said.push(same ? "the game's move too"
          : "the game went " + notation(ply) + mark + (mark ? " (" + G.markWords[mark] + ")" : ""));
      }
      $("review").textContent = said.length ? said.join("; ") + "." : "";
    }
    board.setAttribute("data-ply", ply);
    board.setAttribute("data-position", cells);
    if (current) current.classList.remove("cur");
    current = ply ? entries[ply - 1] : null;
    if (current) {
      current.classList.add("cur");
      current.scrollIntoView({ block: "nearest" });
    }
    slider.value = ply;
    const lastMark = ply ? markOf(ply - 1) : "";
    $("where").textContent = ply ? "Move " + ply + "/" + plies + ": " + notation(ply - 1) + lastMark + " by "
      + colourOf(ply - 1) + (lastMark ? ", " + G.markWords[lastMark] : "") : "Start position";
    $("status").textContent = problem && ply === last ? "Damaged record: " + problem
      : ply === plies && G.over ? G.result : colourOf(ply) + " to move" + (ply === plies ? ". " + G.result : "");
    if (cursor) {
      cursor.setAttribute("x1", cx(ply));
      cursor.setAttribute("x2", cx(ply));
      const v = ply ? G.values[ply - 1] : null;
      $("value").textContent = v === null ? "No value for this move."
        : "Value for White after this move: " + (v > 0 ? "+" : "") + v.toFixed(2);
    }
  }

  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(ply - 1));
  $("forward").addEventListener("click", () => show(ply + 1));
  $("last").addEventListener("click", () => show(last));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    show(to);
  });
  show(0);
})();
"""
