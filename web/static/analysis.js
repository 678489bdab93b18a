/* The analysis page: step through the turns (the best move as ghost tiles beside what
   was played), a chart of points and points missed per turn per player, and the
   progress of an analysis still running. Uses window.Zatre from app.js. */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const main = document.querySelector("[data-analysis]");
  if (!main) return;
  const matchId = main.dataset.analysis;
  const $ = (sel) => document.querySelector(sel);
  const el = (tag, attrs, parent, ns) => {
    const e = ns ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    if (parent) parent.appendChild(e);
    return e;
  };
  const readJSON = (id) => { const n = document.getElementById(id); return n ? JSON.parse(n.textContent) : null; };
  const cells = {};
  (readJSON("cells-data") || []).forEach((c) => { cells[c.name] = c; });
  const _ = window.Zatre._;
  const localize = (window.Zatre && window.Zatre.localize) || ((t) => t);
  const moveText = (placed) => Object.entries(placed || {}).map(([c, v]) => `${c}=${v}`).join(" ") || _("nothing (a pass)");

  // an analysis not made yet: show its progress, reload once it is stored
  const status = main.dataset.status;
  if (status === "queued" || status === "running" || status === "none" || main.dataset.stale === "1") {
    const poll = async () => {
      let data;
      try {
        const resp = await fetch(`/api/matches/${matchId}/analysis`, { headers: { Accept: "application/json" } });
        data = await resp.json();
      } catch (e) { setTimeout(poll, 2000); return; }
      const bar = $("#analysis-bar"), count = $("#analysis-count");
      if (bar) { bar.max = data.total || 1; bar.value = data.done; }
      if (count) count.textContent = _("{done} of {total} turns", data);
      if ((data.status === "done" && !data.stale) || data.status === "failed") window.location.reload();
      else setTimeout(poll, 1000);
    };
    setTimeout(poll, 500);
  }

  const turns = readJSON("analysis-turns") || [];
  if (!turns.length) return;

  // ---- stepping through the turns ----------------------------------------------------------
  const svg = $("#board"), range = $("#step"), box = $("#analysis-turn");
  function ghosts(best, played) {
    const layer = svg.querySelector(".layer-tiles");
    Object.entries(best || {}).forEach(([name, v]) => {
      const c = cells[name];
      if (!c || played[name] === v) return;
      const under = name in played;  // the best move uses a cell the turn filled: a badge
      const g = el("g", { class: "ghost" + (under ? " ghost-badge" : ""), "data-cell": name, "data-value": v,
        transform: `translate(${c.col * 10},${c.row * 10})` }, layer, true);
      if (under) {
        el("circle", { cx: 8, cy: 2, r: 2.2 }, g, true);
        el("text", { x: 8, y: 3.1, text: String(v) }, g, true);
      } else {
        el("rect", { x: 0.9, y: 0.9, width: 8.2, height: 8.2, rx: 1.3 }, g, true);
        el("text", { x: 5, y: 6.8, text: String(v) }, g, true);
      }
    });
  }
  function show(k) {
    const t = turns[k - 1];
    range.value = k;
    const played = (t.played && t.played.placed) || {};
    const board = Object.assign({}, t.board, played);
    window.Zatre.renderBoard(svg, board, { lastPlaced: Object.keys(played) });
    const best = t.best_by_value;
    ghosts(best ? best.placed : {}, played);
    $("#step-label").textContent = _("turn {k} of {n}", { k: t.number, n: turns.length });
    box.textContent = "";
    box.id = "analysis-turn";
    const head = el("h3", { text: _("Turn {n}", { n: t.number }) + " · " + t.player }, box);
    head.dataset.turn = t.number;
    const handSource = t.hand_source === "declared" ? _("declared") : _("by the rules");
    const hand = t.hand_known ? _("hand {tiles} ({source})", { tiles: t.hand.join(" "), source: handSource })
      : _("hand not fully known: the tiles placed, {tiles}, are analysed", { tiles: t.tiles_analysed.join(" ") || _("none") });
    el("div", { class: "muted", text: hand }, box);
    if (t.played) el("div", { class: "played", text: _("Played {move} for {points} (value {value})", { move: moveText(t.played.placed), points: t.played.points, value: t.played.value }) }, box);
    if (t.best_by_points) el("div", { text: _("Best by points: {move} for {points}", { move: moveText(t.best_by_points.placed), points: t.best_by_points.points }) }, box);
    if (t.best_by_value) el("div", { class: "best", text: _("Best by value: {move} (value {value}, {points} points)", { move: moveText(t.best_by_value.placed), value: t.best_by_value.value, points: t.best_by_value.points }) }, box);
    if (t.missed_points !== null) {
      const floor = t.lower_bound ? _("at least") + " " : "";
      el("div", { class: t.missed_points ? "bad missed" : "good missed",
        text: t.missed_points || t.missed_value ? _("Missed {points} points ({value} in value)", { points: floor + window.Zatre.num(t.missed_points), value: floor + window.Zatre.num(t.missed_value) }) : _("The best move by both measures.") }, box);
    }
    if (t.alternatives.length) {
      const ol = el("ol", { class: "alternatives" }, box);
      t.alternatives.forEach((a) => el("li", { text: _("{move}: {points} points, value {value}", { move: moveText(a.placed), points: a.points, value: a.value }) }, ol));
    }
    if (t.notes.length) {
      const ul = el("ul", { class: "notes" }, box);
      t.notes.forEach((n) => el("li", { text: localize(n) }, ul));
    }
  }
  range.addEventListener("input", () => show(Number(range.value)));
  $("#step-prev").addEventListener("click", () => show(Math.max(1, Number(range.value) - 1)));
  $("#step-next").addEventListener("click", () => show(Math.min(turns.length, Number(range.value) + 1)));
  document.addEventListener("keydown", (e) => {
    if (e.target === range) return;
    if (e.key === "ArrowLeft") $("#step-prev").click();
    if (e.key === "ArrowRight") $("#step-next").click();
  });
  document.querySelectorAll("a[data-turn]").forEach((a) => a.addEventListener("click", (e) => {
    e.preventDefault();
    show(Number(a.dataset.turn));
  }));
  const first = turns.findIndex((t) => t.missed_points);
  show(first >= 0 ? first + 1 : 1);

  // ---- the chart: per player, bars of points scored and points missed per turn -------------
  const chart = $("#analysis-chart");
  const players = [...new Set(turns.map((t) => t.player))];
  const top = Math.max(4, ...turns.map((t) => (t.played ? t.played.points : 0) + (t.missed_points || 0)));
  const W = 600, H = 90, step = W / turns.length;
  players.forEach((p) => {
    const row = el("div", { class: "chart-row", "data-player": p }, chart);
    el("div", { class: "chart-name", text: p }, row);
    const g = el("svg", { class: "chart", viewBox: `0 0 ${W} ${H + 12}`, preserveAspectRatio: "none", role: "img",
      "aria-label": _("points and points missed per turn, {player}", { player: p }) }, row, true);
    el("line", { x1: 0, y1: H, x2: W, y2: H, class: "axis" }, g, true);
    turns.forEach((t, i) => {
      if (t.player !== p) return;
      const got = t.played ? t.played.points : 0, missed = t.missed_points || 0;
      const x = i * step + step * 0.1, w = Math.max(1, step * 0.8);
      const hGot = (got / top) * H, hMissed = (missed / top) * H;
      const bar = el("g", { class: "chart-turn", "data-turn": t.number }, g, true);
      el("title", { text: _("turn {n}: {got} points, missed {missed}", { n: t.number, got, missed: (t.lower_bound ? _("at least") + " " : "") + missed }) }, bar, true);
      el("rect", { class: "bar-points", x, y: H - hGot, width: w, height: hGot }, bar, true);
      el("rect", { class: "bar-missed", x, y: H - hGot - hMissed, width: w, height: hMissed }, bar, true);
      bar.addEventListener("click", () => show(t.number));
    });
  });
  const legend = el("p", { class: "muted legend" }, chart);
  el("span", { class: "key key-points" }, legend);
  legend.append(" " + _("points scored") + " ");
  el("span", { class: "key key-missed" }, legend);
  legend.append(" " + _("points missed (turns left to right; click a bar to see the turn)"));
})();
