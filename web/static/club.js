/* The club overview: one card per table (board thumbnail, players and scores, whose
   turn, a link to the table's own dashboard), asked for again every few seconds.
   Uses window.Zatre.renderBoard from app.js. */
(function () {
  "use strict";
  const box = document.getElementById("club");
  if (!box || !window.Zatre) return;
  const SVG = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, parent) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) { if (k === "text") e.textContent = v; else e.setAttribute(k, v); }
    if (parent) parent.appendChild(e);
    return e;
  };
  // the page's language: app.js's words (server/i18n.py)
  const _ = window.Zatre._;

  function status(t) {
    if (!t.match_id) return _("No match");
    if (t.finished) return t.winners.length ? _("{names} won", { names: t.winners.join(" & ") }) : _("Finished");
    return t.turn ? _("{player} to play · turn {n}", { player: t.turn, n: t.turn_number }) : _("turn {n}", { n: t.turn_number });
  }

  function card(t) {
    const c = el("article", { class: "card club-table", "data-table": t.table });
    const head = el("div", { class: "club-head" }, c);
    el("h2", { text: t.table }, head);
    if (t.url) el("a", { class: "btn btn-small", href: t.url, text: _("Open its dashboard") }, head);
    else el("span", { class: "muted", text: _("dashboard address not known yet") }, head);
    if (t.variant === "board" || !t.match_id) {
      const frame = el("div", { class: "board-frame club-thumb" }, c);
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("class", "board");
      svg.setAttribute("viewBox", "-7 -7 164 164");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", _("Board of {table}", { table: t.table }));
      frame.appendChild(svg);
      window.Zatre.renderBoard(svg, t.board || {}, {});
    } else {
      el("p", { class: "muted", text: _("card game") }, c);
    }
    el("div", { class: "club-status" + (t.finished ? " finished" : ""), text: status(t) }, c);
    const ul = el("ul", { class: "club-scores" }, c);
    (t.players || []).forEach((p) => {
      const li = el("li", { "data-player": p, class: (t.turn === p ? "to-play" : "") + ((t.winners || []).includes(p) ? " winner" : "") }, ul);
      el("span", { text: p }, li);
      el("b", { text: String((t.totals || {})[p] ?? 0) }, li);
    });
    if (t.source === "demo") el("span", { class: "pill pill-demo", text: _("demo") }, c);
    if (t.note) el("p", { class: "muted", text: t.note }, c);
    return c;
  }

  function render(tables) {
    box.textContent = "";
    if (!tables.length) {
      el("p", { class: "muted", id: "club-empty", text: _("No table has played on this database yet.") }, box);
      return;
    }
    tables.forEach((t) => box.appendChild(card(t)));
  }

  const first = document.getElementById("club-data");
  render(first ? JSON.parse(first.textContent) : []);
  const every = Number(box.dataset.poll || 3) * 1000;
  setInterval(async () => {
    try {
      const r = await fetch("/api/club", { credentials: "same-origin" });
      if (r.ok) render((await r.json()).tables);
    } catch (e) { /* the next poll tries again */ }
  }, every);
})();
