/* Zatre Vision dashboard: draws the board and the score sheets, keeps them live from
   the server-sent event stream, and sends the operator's corrections. No build step. */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const COLS = "ABCDEFGHIJKLMNO";
  const PRINTED_BONUS = [3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6];
  const PIPS = {
    1: [[5, 5]], 2: [[3, 3], [7, 7]], 3: [[3, 3], [5, 5], [7, 7]],
    4: [[3, 3], [7, 3], [3, 7], [7, 7]], 5: [[3, 3], [7, 3], [5, 5], [3, 7], [7, 7]],
    6: [[3, 2.6], [7, 2.6], [3, 5], [7, 5], [3, 7.4], [7, 7.4]],
  };
  const $ = (sel, root) => (root || document).querySelector(sel);
  const el = (tag, attrs, parent, ns) => {
    const e = ns ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    if (parent) parent.appendChild(e);
    return e;
  };
  const s = (tag, attrs, parent) => el(tag, attrs, parent, true);
  const readJSON = (id) => { const n = document.getElementById(id); return n ? JSON.parse(n.textContent) : null; };
  // The page's language (i18n.js): the words of this script, {name} filling a
  // placeholder. Messages the rules engine makes (the same for every screen) are
  // translated by their templates, see localize().
  const _ = window.Zatre._;
  const TEMPLATES = window.Zatre.i18n.templates.map(([en, tr]) => {
    const names = [];
    const src = en.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, (m, k) => { names.push(k); return "(.+?)"; });
    return { re: new RegExp("^" + src + "$"), names, tr };
  });
  function localize(text) {
    if (!text || !TEMPLATES.length) return text;
    for (const t of TEMPLATES) {
      const m = t.re.exec(text);
      if (m) return t.tr.replace(/\{(\w+)\}/g, (x, k) => { const i = t.names.indexOf(k); return i < 0 ? x : m[i + 1]; });
    }
    return text;
  }
  const CELLS = readJSON("cells-data") || [];
  const cellPos = {};
  CELLS.forEach((c) => { cellPos[c.name] = c; });

  // ---- board ---------------------------------------------------------------------------
  function drawGrid(svg) {
    svg.textContent = "";
    const defs = s("defs", {}, svg);
    const glow = s("filter", { id: "glow", x: "-50%", y: "-50%", width: "200%", height: "200%" }, defs);
    s("feGaussianBlur", { stdDeviation: "1.1", result: "b" }, glow);
    const m = s("feMerge", {}, glow);
    s("feMergeNode", { in: "b" }, m); s("feMergeNode", { in: "SourceGraphic" }, m);
    const labels = s("g", { class: "labels", "aria-hidden": "true" }, svg);
    // the bands behind the labels when a phone zooms in (they sit over the cells then)
    s("rect", { class: "label-band label-band-top" }, labels);
    s("rect", { class: "label-band label-band-left" }, labels);
    for (let i = 0; i < 15; i++) {
      s("text", { class: "col-label", x: i * 10 + 5, y: -2.2, text: COLS[i] }, labels);
      s("text", { class: "row-label", x: -3.6, y: i * 10 + 6.2, text: String(i + 1) }, labels);
    }
    // an ARIA grid: a row of gridcells for each board row, one cell in the tab order
    // (roving tabindex), each named by its cell, kind and value (see labelCells)
    svg.setAttribute("role", "grid");
    if (!svg.getAttribute("aria-label")) svg.setAttribute("aria-label", _("Zatre board"));
    const cells = s("g", { class: "cells", role: "rowgroup" }, svg);
    const byName = {};
    const rows = {};
    CELLS.forEach((c) => {
      const row = rows[c.row] || (rows[c.row] = s("g", { role: "row", "aria-rowindex": c.row + 1 }, cells));
      const g = s("g", { class: "cell cell-" + c.kind, "data-cell": c.name, role: "gridcell",
        tabindex: "-1", "aria-colindex": c.col + 1,
        transform: `translate(${c.col * 10},${c.row * 10})` }, row);
      s("rect", { class: "cell-bg", width: 10, height: 10 }, g);
      // H8 is the red start and an x2 cell too (rules.md): a light ring inside the red
      if (c.kind === "start" && c.light) s("rect", { class: "light-ring", x: 1.4, y: 1.4, width: 7.2, height: 7.2, rx: 0.6 }, g);
      byName[c.name] = g;
    });
    s("g", { class: "layer-tiles", "aria-hidden": "true" }, svg);
    svg.appendChild(labels);  // over the cells and tiles: a zoomed view shows them at its edge
    svg._cells = byName;
    svg._ready = true;
    const start = byName.H8 || Object.values(byName)[0];
    if (start) start.setAttribute("tabindex", "0");
    svg.addEventListener("keydown", (ev) => {
      const g = ev.target.closest && ev.target.closest("[data-cell]");
      if (!g) return;
      const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[ev.key];
      if (step) {
        ev.preventDefault();
        const next = neighbourCell(g.dataset.cell, step);
        if (next) focusCell(svg, next);
        return;
      }
      if (svg._onKey) svg._onKey(ev, g.dataset.cell);
    });
    svg.addEventListener("focusin", (ev) => {
      const g = ev.target.closest && ev.target.closest("[data-cell]");
      if (g) moveTabStop(svg, g.dataset.cell);
    });
  }

  // the next cell of the board from `name` in direction [dr, dc], over the cut corners
  function neighbourCell(name, [dr, dc]) {
    const c = cellPos[name];
    for (let r = c.row + dr, k = c.col + dc; r >= 0 && r < 15 && k >= 0 && k < 15; r += dr, k += dc) {
      const n = COLS[k] + (r + 1);
      if (cellPos[n]) return n;
    }
    return null;
  }
  function moveTabStop(svg, name) {
    Object.values(svg._cells).forEach((g) => g.setAttribute("tabindex", g.dataset.cell === name ? "0" : "-1"));
    svg._focused = name;
  }
  function focusCell(svg, name) {
    moveTabStop(svg, name);
    svg._cells[name].focus();
    if (svg._onFocus) svg._onFocus(name);
  }

  const KIND_WORDS = () => ({ start: _("start cell, x2 cell"), light: _("x2 cell"), plain: "" });
  // each cell's accessible name: "H8, start cell, x2 cell: 6", "G8: empty", "G9: 4, not scored yet"
  function labelCells(svg, board, opts) {
    const kinds = KIND_WORDS();
    CELLS.forEach((c) => {
      const g = svg._cells[c.name];
      let value;
      if (opts.draft && opts.draft[c.name]) value = _("{value}, not scored yet", { value: opts.draft[c.name] });
      else if (opts.pending && opts.pending[c.name]) value = _("{value}, waiting for a decision", { value: opts.pending[c.name] });
      else if (board[c.name]) value = String(board[c.name]);
      else if (opts.hints && opts.hints[c.name] !== undefined) value = _("empty, takes up to {max}", { max: opts.hints[c.name] });
      else value = _("empty");
      const label = (kinds[c.kind] ? `${c.name}, ${kinds[c.kind]}` : c.name) + ": " + value;
      if (g.getAttribute("aria-label") !== label) g.setAttribute("aria-label", label);
      g.setAttribute("aria-selected", opts.selected === c.name ? "true" : "false");
    });
  }

  function drawTile(layer, name, value, cls) {
    const c = cellPos[name];
    if (!c) return;
    const g = s("g", { class: "tile " + (cls || ""), "data-cell": name, "data-value": value,
      transform: `translate(${c.col * 10},${c.row * 10})` }, layer);
    s("rect", { class: "tile-face", x: 0.7, y: 0.7, width: 8.6, height: 8.6, rx: 1.3 }, g);
    (PIPS[value] || []).forEach(([x, y]) => s("circle", { class: "pip", cx: x, cy: y, r: 0.85 }, g));
  }

  function renderBoard(svg, board, opts) {
    opts = opts || {};
    if (!svg._ready) drawGrid(svg);
    const layer = svg.querySelector(".layer-tiles");
    layer.textContent = "";
    const last = new Set(opts.lastPlaced || []);
    Object.entries(opts.hints || {}).forEach(([name, max]) => {
      const c = cellPos[name];
      if (!c || board[name]) return;
      const g = s("g", { class: "hint", "data-cell": name, "data-max": max,
        transform: `translate(${c.col * 10},${c.row * 10})` }, layer);
      s("rect", { x: 0.8, y: 0.8, width: 8.4, height: 8.4, rx: 1.2 }, g);
      s("text", { x: 5, y: 6.6, text: String(max) }, g);
    });
    Object.entries(board).forEach(([name, v]) => drawTile(layer, name, v, last.has(name) ? "last" : ""));
    Object.entries(opts.pending || {}).forEach(([name, v]) => drawTile(layer, name, v, "pending"));
    Object.entries(opts.draft || {}).forEach(([name, v]) => drawTile(layer, name, v, "draft"));
    if (opts.selected && cellPos[opts.selected]) {
      const c = cellPos[opts.selected];
      s("rect", { class: "selected", x: c.col * 10, y: c.row * 10, width: 10, height: 10 }, layer);
    }
    labelCells(svg, board, opts);
  }

  // ---- score sheets --------------------------------------------------------------------------
  const cellText = (v) => (v === null || v === undefined ? "" : String(v));

  function renderSheets(container, sheets, opts) {
    opts = opts || {};
    const players = opts.players || Object.keys(sheets);
    const previous = container._values || {};
    const values = {};
    container.textContent = "";
    players.forEach((p) => {
      const sheet = sheets[p] || { rows: [], minus: 0, total: 0 };
      const box = el("div", { class: "sheet paper" + (opts.turn === p ? " to-play" : "") +
        ((opts.winners || []).includes(p) ? " winner" : ""), "data-player": p }, container);
      const head = el("div", { class: "sheet-head" }, box);
      el("span", { class: "brand-mini", text: "ZATRE" }, head);
      el("span", { class: "name", text: p }, head);
      if (opts.turn === p) el("span", { class: "to-play-badge", text: _("to play") }, head);
      if ((opts.winners || []).includes(p)) el("span", { class: "winner-badge", text: _("winner") }, head);
      const table = el("table", {}, box);
      el("caption", { class: "sr-only", text: _("Score sheet of {player}", { player: p }) }, table);
      const hr = el("tr", {}, el("thead", {}, table));
      [_("x 2"), "10 (1)", "11 (2)", "12 (4)", _("Bonus"), _("Total")].forEach((h) => el("th", { scope: "col", text: h }, hr));
      const body = el("tbody", {}, table);
      const n = Math.max(opts.minRows || 16, sheet.rows.length);
      for (let k = 0; k < n; k++) {
        const r = sheet.rows[k];
        const tr = el("tr", { "data-row": k + 1 }, body);
        const put = (col, text, cls) => {
          const key = `${p}|${k}|${col}`;
          values[key] = text;
          const changed = container._values && previous[key] !== text && text !== "";
          return el("td", { class: (cls || "") + (changed ? " changed" : ""), "data-col": col, text }, tr);
        };
        put("x2", r && r.x2 ? "✕" : "", "x2");
        put("10", cellText(r && r["10"]));
        put("11", cellText(r && r["11"]));
        put("12", cellText(r && r["12"]));
        const bonus = put("bonus", r && r.bonus ? String(r.bonus) : "", "bonus");
        if (!(r && r.bonus) && k < 16) el("span", { class: "printed", text: String(PRINTED_BONUS[k]) }, bonus);
        put("total", r && (r.total || r["10"] !== null || r["11"] !== null || r["12"] !== null) ? String(r.total) : "", "total");
      }
      const foot = el("tfoot", {}, table);
      const m = el("tr", {}, foot);
      el("td", { colspan: 5, text: _("Minus") }, m);
      el("td", { class: "total minus", "data-player": p, text: sheet.minus ? "-" + sheet.minus : "" }, m);
      const g = el("tr", { class: "grand" }, foot);
      el("td", { colspan: 5, text: _("Grand Total") }, g);
      const key = `${p}|grand`;
      values[key] = String(sheet.total);
      el("td", { class: "total grand-total" + (container._values && previous[key] !== values[key] ? " changed" : ""),
        "data-player": p, text: String(sheet.total) }, g);
    });
    container._values = values;
  }

  // ---- helpers ----------------------------------------------------------------------------------
  // choice: a refusal's way out ({label}), offered as a button that calls onChoose
  function toast(message, bad, choice, onChoose) {
    const t = $("#toast");
    if (!t) return;
    const text = localize(message) || "";
    t.textContent = text.charAt(0).toUpperCase() + text.slice(1);  // a sentence, as every toast
    t.className = "toast" + (bad ? " bad" : "");
    t.hidden = false;
    t.onclick = choice ? null : () => { t.hidden = true; };
    clearTimeout(t._timer);
    if (choice) {
      const row = el("div", { class: "toast-choice" }, t);
      const go = el("button", { class: "btn btn-small", id: "toast-choice", text: localize(choice.label) }, row);
      go.addEventListener("click", () => { t.hidden = true; onChoose(); });
      const no = el("button", { class: "btn btn-small btn-ghost", text: _("Cancel") }, row);
      no.addEventListener("click", () => { t.hidden = true; });
      return;  // stays until answered
    }
    t._timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 2500);
  }

  // Forms marked data-background (tournaments, annul) are sent in the background: a
  // refusal is a toast on this page (with its way out, when it offers one), never a
  // bare status page; done, the page goes where the server says, or reloads.
  function backgroundForm(form) {
    form.addEventListener("submit", async function send(ev, extra) {
      if (ev) ev.preventDefault();
      if (inFlight) return;
      const body = new FormData(form);
      if (extra) body.set(extra.field, extra.value);
      inFlight = true;
      busy(true);
      let resp, data;
      try {
        resp = await fetch(form.action, { method: "POST", body, credentials: "same-origin",
          headers: { "Accept": "application/json" } });
        data = await resp.json().catch(() => ({}));
      } catch (e) {
        toast(_("The table server cannot be reached."), true);
        return;
      } finally {
        inFlight = false;
        busy(false);
      }
      if (!resp.ok) {
        const c = data.choice;
        toast(data.error || _("Error {code}", { code: resp.status }), true, c, c ? () => send(null, c) : null);
        return;
      }
      if (data.message) sessionStorage.setItem("zatre-toast", data.message);
      if (data.location) window.location.href = data.location; else window.location.reload();
    });
  }
  document.querySelectorAll("form[data-background]").forEach(backgroundForm);

  // The revision of the match this page shows, sent with every write: the server
  // answers a repeat (a double click, a resent request) "Already recorded".
  const revMeta = $('meta[name="table-revision"]');
  const shown = { revision: revMeta ? revMeta.content : "", boot: revMeta ? revMeta.dataset.boot : "" };
  function noteState(state) {
    if (state && state.revision !== undefined) { shown.revision = String(state.revision); shown.boot = state.boot; }
  }

  // While a write is in flight every button of the page is off, and a second write
  // is not sent.
  let inFlight = false;
  function busy(on) {
    document.querySelectorAll("button, input[type=submit]").forEach((b) => {
      if (on) { b.dataset.wasDisabled = b.disabled ? "1" : ""; b.disabled = true; }
      else if (b.dataset.wasDisabled !== undefined) { b.disabled = b.dataset.wasDisabled === "1"; delete b.dataset.wasDisabled; }
    });
    document.body.classList.toggle("busy", on);
  }

  async function post(url, body) {
    if (inFlight) return null;
    const token = $('meta[name="csrf-token"]').content;
    inFlight = true;
    busy(true);
    let resp, data;
    try {
      resp = await fetch(url, { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": token },
        body: JSON.stringify({ ...(body || {}), revision: shown.revision, boot: shown.boot }) });
      data = await resp.json().catch(() => ({}));
    } catch (e) {
      toast(_("The table server cannot be reached."), true);
      return null;
    } finally {
      inFlight = false;
      busy(false);
    }
    if (!resp.ok) { toast(data.error || _("Error {code}", { code: resp.status }), true); return null; }
    if (data.message) toast(data.message, data.turn && !data.turn.legal);
    if (data.state) noteState(data.state);
    if (data.state && window.ZatreLive) window.ZatreLive.apply(data.state);
    return data;
  }
  // plain forms (sign out, calibration): their buttons go off once sent
  document.querySelectorAll('form[method="post"]:not([data-background])').forEach((f) => f.addEventListener("submit", () => {
    setTimeout(() => f.querySelectorAll("button, input[type=submit]").forEach((b) => { b.disabled = true; }), 0);
  }));

  function setLive(on) {
    const live = $("#live");
    if (!live) return;
    live.textContent = on ? _("live") : _("reconnecting…");
    live.className = "pill " + (on ? "pill-live" : "pill-off");
  }

  // how a match is entered, and the camera sources, in the page's language
  function sourceWord(source) {
    const words = { manual: _("manual"), camera: _("camera"), demo: _("demo"), none: _("none") };
    return words[source] || source;
  }

  function describeTurn(t) {
    if (!t) return _("No turn yet.");
    const pts = t.points || {};
    const total = 1 * (pts["10"] || 0) + 1 * (pts["11"] || 0) + 1 * (pts["12"] || 0);
    const cells = Object.keys(t.placed || {});
    if (!cells.length) return _("{player} passed.", { player: t.player });
    const parts = [];
    ["10", "11", "12"].forEach((k) => { if (pts[k]) parts.push(`${k}: ${pts[k]}`); });
    if (t.crosses) parts.push(`x2 ✕${t.crosses}`);
    const args = { player: t.player, n: cells.length, points: total, gain: t.gain };
    const doubled = t.gain !== undefined && t.gain !== total ? " " + _("({gain} with the x2)", args) : "";
    return (cells.length === 1 ? _("{player} placed 1 tile", args) : _("{player} placed {n} tiles", args)) + " " +
      (total === 1 ? _("and scored 1 point", args) : _("and scored {points} points", args)) + doubled +
      (parts.length ? ` · ${parts.join(" · ")}` : "") +
      (t.override ? " · " + _("accepted by the operator") : "");
  }

  // ---- live table view ------------------------------------------------------------------------------
  function tableView() {
    const svg = $("#board");
    const sheetsBox = $("#sheets");
    const auth = document.body.dataset.auth === "1";
    let state = readJSON("state-data");
    let mode = "view";
    let draft = {};
    let pickCell = null;
    const hintsToggle = $("#hints-toggle");
    if (hintsToggle) {
      hintsToggle.checked = localStorage.getItem("zatre-hints") === "1";
      hintsToggle.addEventListener("change", () => {
        localStorage.setItem("zatre-hints", hintsToggle.checked ? "1" : "0");
        render();
      });
    }

    function render() {
      if (svg) {
        const showHints = hintsToggle && hintsToggle.checked && !state.profi && mode !== "correct";
        renderBoard(svg, state.board || {}, {
          lastPlaced: state.last_turn ? Object.keys(state.last_turn.placed || {}) : [],
          pending: state.pending ? state.pending.placed : {},
          hints: showHints ? state.hints : {},
          draft, selected: pickCell,
        });
        svg.classList.toggle("mode-enter", mode === "enter");
        svg.classList.toggle("mode-correct", mode === "correct");
        zoomToPlay();
      }
      if (sheetsBox) renderSheets(sheetsBox, state.sheets || {}, { players: state.players, turn: state.turn, winners: state.winners });
      const who = $("#who");
      if (who) {
        if (!state.match_id) who.textContent = _("No match");
        else if (state.finished) who.textContent = state.winners.length ? _("{names} won", { names: state.winners.join(" & ") }) : _("Finished");
        else who.textContent = state.turn ? _("{player} to play", { player: state.turn }) : "—";
        who.classList.toggle("finished", !!state.finished);
      }
      const set = (id, text) => { const n = document.getElementById(id); if (n) n.textContent = text; };
      set("who-short", state.turn ? _("{player} to play · turn {n}", { player: state.turn, n: state.turn_number }) : "");
      set("turn-number", state.match_id ? _("Turn {n}", { n: state.turn_number }) : "");
      set("match-label", state.match_id ? _("Match {id}", { id: state.match_id }) + (state.source ? " · " + sourceWord(state.source) : "") : "");
      set("last-turn", describeTurn(state.last_turn));
      set("bag", String(state.bag));
      const cam = state.camera || {};
      const endTurn = $("#end-turn");
      const over = !!state.finished || !state.match_id;
      if (endTurn) endTurn.hidden = !cam.source || cam.source === "none" || over;
      // after the end only what still applies: correct cells, undo (reopens), annul
      const enterBtn = $('#mode [data-mode="enter"]');
      if (enterBtn) enterBtn.hidden = over;
      if (over && mode === "enter") { const v = $('#mode [data-mode="view"]'); if (v) v.click(); }
      const finishBox = $("#finish-box");
      if (finishBox) finishBox.hidden = over;
      const matchLink = $("#match-page-link");  // annul a match started by mistake there
      if (matchLink) { matchLink.hidden = !state.match_id; if (state.match_id) matchLink.href = `/matches/${state.match_id}`; }
      const camEl = $("#camera-state");
      if (camEl) {
        camEl.textContent = _(cam.state || "off");
        camEl.className = "stat-value camera cam-" + (cam.state || "off");
      }
      // the board print the reader named (a profile's name, shown as it is)
      set("camera-message", _("camera: {source}", { source: sourceWord(cam.source || "none") }) + (cam.board_print ? " · " + cam.board_print : "") + (cam.message ? " · " + localize(cam.message) : ""));
      const hc = $("#hints-card"), pn = $("#profi-note");
      if (hc && pn) { pn.hidden = !state.profi; hc.querySelector(".switch").hidden = !!state.profi; }
      const pt = $("#profi-toggle");
      if (pt) pt.checked = !!state.profi;
      renderAlerts();
      renderFinishForm();
      renderHeldChoice();
    }

    // declared tiles name their player and turn: the latest turn of each player, newest
    // first (the one just played is chosen), so they never land on the wrong hand
    function renderHeldChoice() {
      const sel = $("#held-turn");
      if (!sel) return;
      const turns = state.turn_players || [];
      $("#held-form").hidden = !turns.length || !!state.finished;
      const key = `${state.match_id}|${turns.length}`;
      if (sel._key === key) return;
      sel._key = key;
      sel.textContent = "";
      const seen = new Set();
      for (let k = turns.length; k >= 1 && seen.size < (state.players || []).length; k--) {
        if (seen.has(turns[k - 1])) continue;
        seen.add(turns[k - 1]);
        el("option", { value: String(k), text: _("turn {n} by {player}", { n: k, player: turns[k - 1] }) }, sel);
      }
    }

    function renderAlerts() {
      const box = $("#alerts");
      if (!box) return;
      box.textContent = "";
      (state.alerts || []).forEach((a) => {
        const card = el("div", { class: "alert alert-" + a.kind }, box);
        const title = a.kind === "illegal-turn" ? _("Illegal placement by {player}", a)
          : a.kind === "broken-turn" ? _("Turn {turn} by {player} breaks a rule since a correction", a)
          : a.kind === "as-recorded" ? _("Stored by an earlier version: shown as recorded")
          : _("Camera");
        el("div", { class: "alert-title", text: "⚠ " + title + (a.cells ? ` (${a.cells.join(", ")})` : "") }, card);
        const ul = el("ul", {}, card);
        (a.reasons || []).forEach((r) => el("li", { text: localize(r) }, ul));
        // tiles on cells that already hold one: nothing to accept, only to take back
        const onTaken = (a.violations || []).some((v) => v.code === "cell-occupied");
        if (a.kind === "illegal-turn" && auth) {
          const row = el("div", { class: "row" }, card);
          if (!onTaken) {
            const acc = el("button", { class: "btn btn-small", id: "accept", text: _("Accept anyway") }, row);
            acc.addEventListener("click", () => post("/table/accept"));
          }
          const rej = el("button", { class: "btn btn-small btn-danger", id: "reject", text: _("Reject: tiles taken back") }, row);
          rej.addEventListener("click", () => post("/table/reject"));
        } else if (a.kind === "illegal-turn") {
          el("div", { class: "muted", text: _("Take the tiles back, or an operator can accept the turn.") }, card);
        } else if (a.kind === "broken-turn") {
          el("div", { class: "muted", text: _("It stays scored as placed: check the corrected cells on the board.") }, card);
        }
      });
      renderWaiting(box);
      const hint = (state.camera || {}).hint;
      if (hint) {
        const card = el("div", { class: "alert alert-camera-hint" }, box);
        el("div", { class: "alert-title", text: _("Camera: many cells unreadable") }, card);
        el("div", { text: localize(hint) }, card);
        el("a", { href: "/calibration", text: _("Open the Calibration page") }, card);
      }
    }

    // a camera turn waiting for a cell it cannot read (issue 41): which cell, and a
    // one-tap value for each (PIN-protected like every write)
    function renderWaiting(box) {
      const w = state.waiting_turn;
      if (!w) return;
      const card = el("div", { class: "alert alert-waiting-cell", id: "waiting-turn" }, box);
      el("div", { class: "alert-title", text: "⏳ " + _("Turn {turn} by {player} waits", w) }, card);
      el("div", { text: localize(w.message) }, card);
      if (!auth) return;
      (w.cells || []).forEach((cell) => {
        const row = el("div", { class: "row waiting-cell" }, card);
        el("span", { class: "label", text: cell }, row);
        for (let v = 1; v <= 6; v++) {
          const b = el("button", { class: "tile-btn", "data-cell": cell, "data-value": String(v), text: String(v) }, row);
          b.addEventListener("click", () => post("/table/waiting-cell", { cell, value: v }));
        }
        const none = el("button", { class: "btn btn-small btn-ghost", "data-cell": cell, "data-value": "", text: _("No tile of this turn") }, row);
        none.addEventListener("click", () => post("/table/waiting-cell", { cell, value: "" }));
      });
    }

    function renderFinishForm() {
      const form = $("#finish-form");
      const key = `${state.match_id}|${(state.players || []).join("|")}`;
      if (!form || form._match === key) return;
      form._match = key;  // a new match (same players or not) starts with an empty form
      form.textContent = "";
      (state.players || []).forEach((p, i) => {
        const l = el("label", { text: _("{player}: tiles left", { player: p }) + " " }, form);
        el("input", { name: `minus_${i}`, "data-player": p, placeholder: _("e.g. 3 5"), autocomplete: "off" }, l);
      });
      el("button", { class: "btn", id: "finish", text: _("Finish the game") }, form);
    }

    function apply(next) {
      if (!next) return;
      if (next.variant === "cards") { window.location.reload(); return; } // cards.js draws card games
      if (state && next.boot === state.boot && next.version < state.version) return;
      state = next;
      dropFilledDraft();
      render();
    }
    window.ZatreLive = { apply, get state() { return state; } };

    // operator interaction
    const picker = $("#picker");
    const announce = (text) => { const n = $("#board-status"); if (n) n.textContent = text; };
    function openPicker(name, fromKeyboard) {
      pickCell = name;
      $("#picker-title").textContent = mode === "correct" ? _("Correct {cell}", { cell: name }) : _("Tile on {cell}", { cell: name });
      const clear = picker.querySelector('[data-value="clear"]');
      clear.hidden = mode === "enter" && !(name in draft);
      picker.hidden = false;
      render();
      placePicker(name);
      if (fromKeyboard) picker.querySelector(".tile-btn").focus();
    }
    // the picker beside its cell, on the side with room, never over it
    function placePicker(name) {
      const g = svg._cells[name];
      const wrap = picker.offsetParent || picker.parentElement;
      if (!g || !wrap) return;
      const cell = g.getBoundingClientRect(), box = wrap.getBoundingClientRect();
      const pw = picker.offsetWidth, ph = picker.offsetHeight, gap = 6;
      const vw = document.documentElement.clientWidth;
      const x = (left) => Math.min(Math.max(left, 4 - box.left), vw - 4 - pw - box.left);
      const sides = [
        { room: vw - cell.right, left: cell.right + gap - box.left, top: cell.top - box.top + cell.height / 2 - ph / 2, need: pw },
        { room: cell.left, left: cell.left - gap - pw - box.left, top: cell.top - box.top + cell.height / 2 - ph / 2, need: pw },
        { room: window.innerHeight - cell.bottom, left: x(cell.left + cell.width / 2 - pw / 2 - box.left), top: cell.bottom + gap - box.top, need: ph },
        { room: cell.top, left: x(cell.left + cell.width / 2 - pw / 2 - box.left), top: cell.top - gap - ph - box.top, need: ph },
      ];
      const side = sides.find((o) => o.room >= o.need + gap + 4) || sides.reduce((a, b) => (b.room - b.need > a.room - a.need ? b : a));
      picker.style.left = `${Math.round(side.left)}px`;
      picker.style.top = `${Math.round(Math.max(side.top, -box.top + 4))}px`;
      picker.style.right = "auto";
    }
    function closePicker(refocus) {
      const was = pickCell;
      pickCell = null;
      if (picker) picker.hidden = true;
      render();
      if (refocus && was && svg) focusCell(svg, was);
    }
    function setMode(next) {
      const b = document.querySelector(`#mode button[data-mode="${next}"]`);
      if (b) b.click();
    }
    // a value for a cell: into the draft (Enter turn) or sent as a correction
    async function setValue(name, value) {
      if (mode === "enter") {
        if (value === null) delete draft[name];
        else if (state.board[name]) { toast(_("{cell} already has a tile: use Correct cells", { cell: name }), true); return; }
        else draft[name] = value;
        updateDraft();
        announce(value === null ? _("{cell}: empty", { cell: name }) : _("{cell}: {value}, not scored yet", { cell: name, value }));
      } else if (mode === "correct") {
        await post("/table/cell", { cell: name, value });
      }
    }
    // The turn this page is sending (the revision it was sent against and its tiles),
    // and the revisions its own replies brought back: a state that holds exactly these
    // tiles at a later revision is this page's change, never "filled meanwhile".
    let sending = null;
    const ownRevisions = new Set();
    function isOwnChange(name) {
      const board = state.board || {};
      if (ownRevisions.has(String(state.revision)) && sending === null) return true;
      return !!sending && sending.placed[name] === board[name] && state.boot === sending.boot
        && Number(state.revision) > sending.revision;
    }
    async function commitTurn() {
      if (!Object.keys(draft).length) { toast(_("Tap empty cells to place tiles first"), true); return; }
      if (inFlight) return;
      sending = { revision: Number(shown.revision), boot: shown.boot, placed: { ...draft } };
      let r = null;
      try {
        r = await post("/table/turn", { placed: draft });
      } finally {
        sending = null;
      }
      if (r && r.state) ownRevisions.add(String(r.state.revision));
      if (r) { draft = {}; panAt = null; forgetDraft(); updateDraft(); }
    }
    if (svg && auth) {
      svg.addEventListener("click", (ev) => {
        if (svg._dragged) { svg._dragged = false; return; }   // the end of a drag
        const g = ev.target.closest("[data-cell]");
        if (!g || mode === "view") return;
        const name = g.dataset.cell;
        if (mode === "enter" && state.board[name]) { toast(_("{cell} already has a tile: use Correct cells", { cell: name }), true); return; }
        openPicker(name);
      });
      // the keyboard on the board (drawGrid moves the focus with the arrows): 1 to 6 set
      // the focused cell, 0 (or Delete) clears it, Space opens the picker, Enter scores
      // the turn; a digit in View mode starts entering a turn
      svg._onKey = (ev, name) => {
        if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
        if (/^[0-6]$/.test(ev.key) || ev.key === "Delete" || ev.key === "Backspace") {
          ev.preventDefault();
          if (state.finished || !state.match_id) return;
          if (mode === "view") setMode("enter");
          const v = /^[1-6]$/.test(ev.key) ? Number(ev.key) : null;
          setValue(name, v);
        } else if (ev.key === "Enter") {
          ev.preventDefault();
          if (mode === "enter") commitTurn();
        } else if (ev.key === " ") {
          ev.preventDefault();
          if (mode === "view") setMode("enter");
          if (mode === "enter" && state.board[name]) { toast(_("{cell} already has a tile: use Correct cells", { cell: name }), true); return; }
          openPicker(name, true);
        } else if (ev.key === "Escape" && pickCell) {
          closePicker(true);
        }
      };
      svg._onFocus = () => { if (phone.matches && mode !== "view") { panAt = null; zoomToPlay(); } };
      picker.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape") { ev.preventDefault(); closePicker(true); }
      });
      picker.addEventListener("click", async (ev) => {
        const b = ev.target.closest("button");
        if (!b || !pickCell) return;
        const v = b.dataset.value;
        const name = pickCell;
        const keyboard = ev.detail === 0;  // pressed with Enter or Space: the focus goes back to the cell
        if (v === "cancel") { closePicker(keyboard); return; }
        closePicker(keyboard);
        await setValue(name, v === "clear" ? null : Number(v));
      });
      document.querySelectorAll("#mode button").forEach((b) => b.addEventListener("click", () => {
        mode = b.dataset.mode;
        panAt = null;
        document.querySelectorAll("#mode button").forEach((x) => {
          x.classList.toggle("on", x === b);
          x.setAttribute("aria-pressed", x === b ? "true" : "false");
        });
        $("#draft").hidden = mode !== "enter";
        document.body.classList.toggle("entering", mode === "enter");
        closePicker();
        // on a phone the mode buttons sit below the board: bring the board back in sight
        if (phone.matches && mode !== "view" && svg.scrollIntoView) svg.scrollIntoView({ block: "nearest" });
      }));
      $("#commit-turn").addEventListener("click", commitTurn);
      $("#pass-turn").addEventListener("click", () => post("/table/turn", { placed: {} }));
      $("#clear-draft").addEventListener("click", () => { draft = {}; forgetDraft(); updateDraft(); });
      $("#undo").addEventListener("click", () => post("/table/undo"));
      // End of turn for the camera: a button, or E on the keyboard (turns with held-back tiles)
      $("#end-turn").addEventListener("click", () => post("/table/end-turn"));
      document.addEventListener("keydown", (ev) => {
        const typing = ev.target && /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName);
        const endTurn = $("#end-turn");
        if (!typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey && (ev.key === "e" || ev.key === "E")
            && endTurn && !endTurn.hidden) {
          post("/table/end-turn");
        }
      });
      $("#profi-toggle").addEventListener("change", (ev) => post("/table/profi", { profi: ev.target.checked }));
      $("#held-form").addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const r = await post("/table/held", { tiles: $("#held-tiles").value, turn: $("#held-turn").value });
        if (r) $("#held-tiles").value = "";
      });
      $("#finish-form").addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const minus = {};
        ev.target.querySelectorAll("input").forEach((i) => {
          const tiles = i.value.trim().split(/[\s,]+/).filter(Boolean);
          minus[i.dataset.player] = tiles;
        });
        // one stray click ends nothing: with tiles still in the bag the match ends only
        // once the toast's button confirms it
        if (state.bag > 0) {
          toast(_("{n} tiles are still in the bag: end match {id} now?", { n: state.bag, id: state.match_id }),
            false, { label: _("End the match") }, () => post("/table/finish", { minus }));
          return;
        }
        await post("/table/finish", { minus });
      });
    }
    // a tile another screen (or the camera) has put on a draft cell meanwhile: the draft
    // would only make a flagged turn of it, so the cell leaves the draft, with a word
    function dropFilledDraft() {
      const filled = Object.keys(draft).filter((n) => n in (state.board || {}));
      if (!filled.length) return;
      filled.forEach((n) => delete draft[n]);
      // this page's own turn, scored: the stream (or the reply) can bring it back before
      // the reply has cleared the draft. Not a conflict: the draft simply goes.
      if (filled.every(isOwnChange)) { draft = {}; forgetDraft(); showDraftCells(); return; }
      toast((filled.length > 1 ? _("{cells} were filled meanwhile: taken out of your turn", { cells: filled.join(", ") })
        : _("{cells} was filled meanwhile: taken out of your turn", { cells: filled[0] })), true);
      saveDraft();
      showDraftCells();
    }
    function showDraftCells() {
      const box = $("#draft-cells");
      if (box) {
        const names = Object.keys(draft);
        box.textContent = names.length ? names.map((n) => `${n}=${draft[n]}`).join("  ") : _("Tap empty cells to place tiles.");
      }
    }

    function updateDraft() {
      saveDraft();
      showDraftCells();
      render();
    }

    // The draft lives in this tab's sessionStorage, keyed by the table's run, the match
    // and the turn it is for: a reload or History-and-back brings it back; scoring the
    // turn, or the turn moving on (another screen scored it), forgets it.
    const draftKey = () => `zatre-draft|${state.boot}|${state.match_id}|${state.turn_number}`;
    function saveDraft() {
      if (!auth || !state.match_id) return;
      try {
        if (Object.keys(draft).length) sessionStorage.setItem(draftKey(), JSON.stringify(draft));
        else sessionStorage.removeItem(draftKey());
      } catch (e) { /* storage full or off: the draft stays on this page only */ }
    }
    function forgetDraft() {
      try {
        Object.keys(sessionStorage).filter((k) => k.startsWith("zatre-draft|")).forEach((k) => sessionStorage.removeItem(k));
      } catch (e) { /* nothing kept */ }
    }
    function restoreDraft() {
      if (!auth || !state.match_id || state.finished) return;
      let kept = null;
      try { kept = JSON.parse(sessionStorage.getItem(draftKey()) || "null"); } catch (e) { kept = null; }
      Object.keys(sessionStorage).filter((k) => k.startsWith("zatre-draft|") && k !== draftKey())
        .forEach((k) => sessionStorage.removeItem(k));  // drafts of turns already played
      if (!kept || typeof kept !== "object") return;
      Object.entries(kept).forEach(([n, v]) => {
        if (cellPos[n] && !(n in state.board) && Number.isInteger(v) && v >= 1 && v <= 6) draft[n] = v;
      });
      if (Object.keys(draft).length) setMode("enter");
      updateDraft();
    }
    // a new turn number from the stream: a draft kept for the turn before is gone
    const applyLive = apply;
    function applyAndForget(next) {
      const before = state && state.turn_number;
      applyLive(next);
      if (state.turn_number !== before && Object.keys(draft).length) { draft = {}; forgetDraft(); showDraftCells(); render(); }
    }

    // On a phone, entering or correcting zooms the board to where the play is: the
    // draft, the picked and the focused cell, else the last turn (else H8), in a window
    // of 7 x 7 cells (wider only for a draft that needs it), so that a cell is a
    // finger's width (44 px or more on a 390 px phone). The column letters and row
    // numbers follow the window, along its top and left edge. A drag moves the window
    // (panAt: its top left corner, in board units, kept until the mode changes or a
    // turn is scored); "Whole board" (#board-view, kept in localStorage) shows all 193
    // cells edge to edge instead, each 24 px or more on a 390 px phone: any cell is then
    // one tap away.
    const phone = window.matchMedia("(max-width: 640px)");
    const WINDOW = 7;
    const WHOLE = "-4 -4 158 158";  // the whole board with its labels tucked in
    let panAt = null;
    let wholeBoard = localStorage.getItem("zatre-whole-board") === "1";
    const boardView = $("#board-view");
    if (boardView) {
      const showView = () => {
        boardView.setAttribute("aria-pressed", wholeBoard ? "true" : "false");
        boardView.textContent = wholeBoard ? _("Zoom to the play") : _("Whole board");
      };
      showView();
      boardView.addEventListener("click", () => {
        wholeBoard = !wholeBoard;
        localStorage.setItem("zatre-whole-board", wholeBoard ? "1" : "0");
        panAt = null;
        showView();
        zoomToPlay();
        if (svg && svg.scrollIntoView) svg.scrollIntoView({ block: "nearest" });  // all of it in sight
      });
    }
    function placeLabels(x0, y0, zoomed, w, tight) {
      // the labels of the columns and rows in the window only (none in the corner)
      const inside = (at, from) => !zoomed || (at >= from && at < from + w);
      svg.querySelectorAll(".labels .col-label").forEach((t, i) => {
        t.setAttribute("y", y0 - (tight ? 0.9 : 2.2));
        t.setAttribute("visibility", inside(i * 10, x0) ? "visible" : "hidden");
      });
      svg.querySelectorAll(".labels .row-label").forEach((t, i) => {
        t.setAttribute("x", x0 - (tight ? 2.1 : 3.6));
        t.setAttribute("visibility", inside(i * 10, y0) ? "visible" : "hidden");
      });
      const top = svg.querySelector(".label-band-top"), left = svg.querySelector(".label-band-left");
      if (!top || !left) return;
      [top, left].forEach((r) => r.setAttribute("visibility", zoomed ? "visible" : "hidden"));
      top.setAttribute("x", x0 - 7); top.setAttribute("y", y0 - 7); top.setAttribute("width", 164); top.setAttribute("height", 6);
      left.setAttribute("x", x0 - 7); left.setAttribute("y", y0 - 7); left.setAttribute("width", 6); left.setAttribute("height", 164);
    }
    function zoomToPlay() {
      if (!svg) return;
      const full = "-7 -7 164 164";
      const whole = phone.matches && mode !== "view" && wholeBoard;
      if (svg.parentElement) svg.parentElement.classList.toggle("whole-board", whole);
      if (!phone.matches || mode === "view" || whole) {
        const box = whole ? WHOLE : full;
        if (svg.getAttribute("viewBox") !== box) svg.setAttribute("viewBox", box);
        placeLabels(0, 0, false, 150, whole);
        svg.classList.remove("zoomed");
        return;
      }
      let names = Object.keys(draft);
      if (pickCell) names.push(pickCell);
      if (svg._focused && document.activeElement && svg.contains(document.activeElement)) names.push(svg._focused);
      if (!names.length && state.last_turn) names = Object.keys(state.last_turn.placed || {});
      if (!names.length) names.push("H8");
      let r0 = 14, r1 = 0, c0 = 14, c1 = 0;
      names.forEach((n) => { const c = cellPos[n]; if (!c) return; r0 = Math.min(r0, c.row); r1 = Math.max(r1, c.row); c0 = Math.min(c0, c.col); c1 = Math.max(c1, c.col); });
      const span = Math.min(15, Math.max(WINDOW, r1 - r0 + 3, c1 - c0 + 3));
      const clamp = (lo, hi) => Math.min(Math.max(Math.round((lo + hi) / 2 - span / 2), 0), Math.max(0, 15 - span));
      const w = span * 10;
      const inBoard = (v) => Math.min(Math.max(v, 0), 150 - w);
      const x = panAt ? inBoard(panAt[0]) : clamp(c0, c1 + 1) * 10;
      const y = panAt ? inBoard(panAt[1]) : clamp(r0, r1 + 1) * 10;
      const box = `${x - 6} ${y - 6} ${w + 7} ${w + 7}`;  // room for the labels above and left
      if (svg.getAttribute("viewBox") !== box) svg.setAttribute("viewBox", box);
      placeLabels(x, y, true, w);
      svg.classList.add("zoomed");
    }
    if (phone.addEventListener) phone.addEventListener("change", () => render());
    // a drag on the zoomed board moves its window (a finger, a pen or a mouse); the
    // click that ends a drag is not a tap on a cell
    let drag = null;
    if (svg) {
      svg.addEventListener("pointerdown", (ev) => {
        if (!svg.classList.contains("zoomed")) return;
        const vb = svg.viewBox.baseVal, shown = svg.getBoundingClientRect();
        drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, vx: vb.x + 6, vy: vb.y + 6,
          scale: vb.width / (shown.width || 1), moved: false };
      });
      svg.addEventListener("pointermove", (ev) => {
        if (!drag || ev.pointerId !== drag.id) return;
        const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) < 8) return;
        if (!drag.moved) {
          drag.moved = true;
          if (svg.setPointerCapture) try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* gone */ }
        }
        panAt = [drag.vx - dx * drag.scale, drag.vy - dy * drag.scale];
        zoomToPlay();
      });
      const endDrag = (ev) => {
        if (!drag || ev.pointerId !== drag.id) return;
        if (drag.moved && panAt) {
          // the window comes to rest on whole cells, on the side the drag was going
          // to (along an axis it moved half a cell or more), so that one drag across
          // the board reaches its far edge
          const snap = (v, px) => {
            const units = px * drag.scale;
            return 10 * (units >= 5 ? Math.floor(v / 10) : units <= -5 ? Math.ceil(v / 10) : Math.round(v / 10));
          };
          const up = ev.type === "pointerup";  // a cancelled drag has no direction: the nearest cells
          panAt = [snap(panAt[0], up ? ev.clientX - drag.x : 0), snap(panAt[1], up ? ev.clientY - drag.y : 0)];
          zoomToPlay();
        }
        if (drag.moved) {
          svg._dragged = true;
          setTimeout(() => { svg._dragged = false; }, 0);
        }
        drag = null;
      };
      svg.addEventListener("pointerup", endDrag);
      svg.addEventListener("pointercancel", endDrag);
    }

    render();
    restoreDraft();
    connect(applyAndForget);
  }

  // The live state: an event stream, or, while the server has no room for one more
  // (it answers 503) or the browser has none, GET /api/state every 2 s; the stream is
  // tried again after 30 s.
  function connect(apply) {
    let es = null, poller = null;
    const poll = async () => {
      try {
        const resp = await fetch("/api/state", { credentials: "same-origin" });
        if (resp.ok) { setLive(true); const st = await resp.json(); noteState(st); apply(st); } else setLive(false);
      } catch (e) { setLive(false); }
    };
    const startPolling = () => { if (!poller) { poll(); poller = setInterval(poll, 2000); } };
    const stopPolling = () => { clearInterval(poller); poller = null; };
    const open = () => {
      if (!window.EventSource) { startPolling(); return; }
      es = new EventSource("/events");
      es.addEventListener("open", () => { stopPolling(); setLive(true); });
      es.addEventListener("error", () => {
        if (es.readyState !== EventSource.CLOSED) { setLive(false); return; }
        startPolling();  // refused: the browser does not retry by itself
        setTimeout(open, 30000);
      });
      es.addEventListener("state", (ev) => { setLive(true); const st = JSON.parse(ev.data); noteState(st); apply(st); });
    };
    open();
    window.addEventListener("beforeunload", () => { if (es) es.close(); stopPolling(); });
  }

  // ---- match replay ------------------------------------------------------------------------------------
  function replayView() {
    const steps = readJSON("steps-data");
    const svg = $("#board"), range = $("#step"), sheets = $("#sheets");
    const show = (k) => {
      const st = steps[k];
      range.value = k;
      renderBoard(svg, st.board, { lastPlaced: st.turn ? Object.keys(st.turn.placed || {}) : [] });
      renderSheets(sheets, st.sheets, {});
      $("#step-label").textContent = _("turn {k} of {n}", { k, n: steps.length - 1 });
      const box = $("#step-turn");
      box.textContent = "";
      el("div", { text: k ? describeTurn(st.turn) : _("The empty board.") }, box);
      if (st.turn && st.turn.violations && st.turn.violations.length) {
        const ul = el("ul", { class: "bad" }, box);
        st.turn.violations.forEach((v) => el("li", { text: localize(v.message) }, ul));
      }
    };
    range.addEventListener("input", () => show(Number(range.value)));
    $("#step-prev").addEventListener("click", () => show(Math.max(0, Number(range.value) - 1)));
    $("#step-next").addEventListener("click", () => show(Math.min(steps.length - 1, Number(range.value) + 1)));
    document.addEventListener("keydown", (e) => {
      if (e.target === range) return;  // the focused slider steps by itself
      if (e.key === "ArrowLeft") $("#step-prev").click();
      if (e.key === "ArrowRight") $("#step-next").click();
    });
    show(steps.length - 1);
  }

  function setupView() {
    const inputs = document.querySelectorAll(".player-input");
    const starter = $("#starter");
    if (!starter) return;
    const refresh = () => {
      const keep = starter.value;
      starter.textContent = "";
      el("option", { value: "draw", text: _("Drawn by lot: the highest draw starts") }, starter);
      inputs.forEach((i) => { const v = i.value.trim(); if (v) el("option", { value: v, text: v }, starter); });
      starter.value = [...starter.options].some((o) => o.value === keep) ? keep : "draw";
    };
    inputs.forEach((i) => i.addEventListener("input", refresh));
    // What was typed is kept in this tab (sessionStorage) until the match starts: a
    // reload or History-and-back brings it back. The setup code and PIN are never kept.
    const form = $("#setup-form");
    const KEEP = "zatre-setup";
    const kept = () => [...form.elements].filter((e) => e.name && !/^(csrf_token|revision|boot|setup_code|new_pin)$/.test(e.name)
      && e.type !== "hidden" && e.type !== "password" && e.type !== "submit");
    const keyed = () => {  // "players[]#0" ... : a field's name and its place among its namesakes
      const seen = {};
      return kept().map((e) => { seen[e.name] = (seen[e.name] || 0) + 1; return [`${e.name}#${seen[e.name] - 1}`, e]; });
    };
    const save = () => {
      const data = {};
      keyed().forEach(([k, e]) => { data[k] = e.type === "checkbox" ? e.checked : e.value; });
      try { sessionStorage.setItem(KEEP, JSON.stringify(data)); } catch (e) { /* not kept */ }
    };
    if (form) {
      let data = null;
      try { data = JSON.parse(sessionStorage.getItem(KEEP) || "null"); } catch (e) { data = null; }
      if (data && typeof data === "object" && !Array.isArray(data)) {
        keyed().forEach(([k, e]) => {
          if (e === starter || e.type === "checkbox" || !(k in data)) return;  // the "end it unfinished" box is ticked anew
          e.value = String(data[k]);
          e.dispatchEvent(new Event("change", { bubbles: true }));
        });
        refresh();
        const want = data["starter#0"];
        if ([...starter.options].some((o) => o.value === want)) starter.value = want;
        const team = $("#team-game");
        if (team && "team_game#0" in data) team.checked = !!data["team_game#0"];
      }
      form.addEventListener("input", save);
      form.addEventListener("change", save);
    }
    // sent in the background: a refused form (a wrong PIN, a starter who is not
    // playing, a match under way) keeps what was typed and says why
    if (form) form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      if (inFlight) return;
      inFlight = true;
      busy(true);
      let resp, data;
      try {
        resp = await fetch(form.action, { method: "POST", body: new FormData(form),
          credentials: "same-origin", headers: { "Accept": "application/json" } });
        data = await resp.json().catch(() => ({}));
      } catch (e) {
        toast(_("The table server cannot be reached."), true);
        return;
      } finally {
        inFlight = false;
        busy(false);
      }
      if (!resp.ok) { toast(data.error || _("Error {code}", { code: resp.status }), true); return; }
      try { sessionStorage.removeItem(KEEP); } catch (e) { /* nothing kept */ }
      if (data.message) sessionStorage.setItem("zatre-toast", data.message);
      window.location.href = "/";
    });
  }

  // a PIN lockout counts down on the sign-in form; Sign in waits until it ends
  const lockNote = $("#login-error[data-wait]");
  if (lockNote) {
    let left = Number(lockNote.dataset.wait);
    const btn = $("#login-submit");
    const base = lockNote.textContent.replace(/:[^:]*$/, "");
    const say = (s) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
      : s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`);
    const tick = () => {
      if (left <= 0) { lockNote.textContent = base + ": " + _("try again now"); if (btn) btn.disabled = false; return; }
      lockNote.textContent = base + ": " + _("try again in {time}", { time: say(left) });
      if (btn) btn.disabled = true;
      left -= 1;
      setTimeout(tick, 1000);
    };
    tick();
  }

  const told = sessionStorage.getItem("zatre-toast");  // e.g. Setup's "Match 3 started"
  if (told) { sessionStorage.removeItem("zatre-toast"); toast(told); }

  // words the server sends as they are (camera states), listed here for the translators
  const CAMERA_STATES = [_("ok"), _("off"), _("starting"), _("moving"), _("no-board"), _("unreadable"), _("stalled"), _("error")];
  void CAMERA_STATES;

  Object.assign(window.Zatre, { renderBoard, renderSheets, post, connect, localize });
  const page = document.body.dataset.page;
  const cards = !!$("[data-cards]"); // a card game: cards.js draws the page
  if ((page === "table" || page === "sheet") && !cards) tableView();
  else if (page === "history" && $("#steps-data") && !cards) replayView();
  else if (page === "setup") setupView();
  if (((page !== "table" && page !== "sheet") || cards) && $("#live")) $("#live").hidden = true;
})();
