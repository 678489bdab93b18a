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
    const labels = s("g", { class: "labels" }, svg);
    for (let i = 0; i < 15; i++) {
      s("text", { x: i * 10 + 5, y: -2.2, text: COLS[i] }, labels);
      s("text", { x: -3.6, y: i * 10 + 6.2, text: String(i + 1) }, labels);
    }
    const cells = s("g", { class: "cells" }, svg);
    const byName = {};
    CELLS.forEach((c) => {
      const g = s("g", { class: "cell cell-" + c.kind, "data-cell": c.name,
        transform: `translate(${c.col * 10},${c.row * 10})` }, cells);
      s("rect", { class: "cell-bg", width: 10, height: 10 }, g);
      // H8 is the red start and an x2 cell too (rules.md): a light ring inside the red
      if (c.kind === "start" && c.light) s("rect", { class: "light-ring", x: 1.4, y: 1.4, width: 7.2, height: 7.2, rx: 0.6 }, g);
      byName[c.name] = g;
    });
    s("g", { class: "layer-tiles" }, svg);
    svg._cells = byName;
    svg._ready = true;
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
      if (opts.turn === p) el("span", { class: "to-play-badge", text: "to play" }, head);
      if ((opts.winners || []).includes(p)) el("span", { class: "winner-badge", text: "winner" }, head);
      const table = el("table", {}, box);
      const hr = el("tr", {}, el("thead", {}, table));
      ["x 2", "10 (1)", "11 (2)", "12 (4)", "Bonus", "Total"].forEach((h) => el("th", { text: h }, hr));
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
      el("td", { colspan: 5, text: "Minus" }, m);
      el("td", { class: "total minus", "data-player": p, text: sheet.minus ? "-" + sheet.minus : "" }, m);
      const g = el("tr", { class: "grand" }, foot);
      el("td", { colspan: 5, text: "Grand Total" }, g);
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
    t.textContent = message;
    t.className = "toast" + (bad ? " bad" : "");
    t.hidden = false;
    t.onclick = choice ? null : () => { t.hidden = true; };
    clearTimeout(t._timer);
    if (choice) {
      const row = el("div", { class: "toast-choice" }, t);
      const go = el("button", { class: "btn btn-small", id: "toast-choice", text: choice.label }, row);
      go.addEventListener("click", () => { t.hidden = true; onChoose(); });
      const no = el("button", { class: "btn btn-small btn-ghost", text: "Cancel" }, row);
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
        toast("The table server cannot be reached.", true);
        return;
      } finally {
        inFlight = false;
        busy(false);
      }
      if (!resp.ok) {
        const c = data.choice;
        toast(data.error || `Error ${resp.status}`, true, c, c ? () => send(null, c) : null);
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
      toast("The table server cannot be reached.", true);
      return null;
    } finally {
      inFlight = false;
      busy(false);
    }
    if (!resp.ok) { toast(data.error || `Error ${resp.status}`, true); return null; }
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
    live.textContent = on ? "live" : "reconnecting…";
    live.className = "pill " + (on ? "pill-live" : "pill-off");
  }

  function describeTurn(t) {
    if (!t) return "No turn yet.";
    const pts = t.points || {};
    const total = 1 * (pts["10"] || 0) + 1 * (pts["11"] || 0) + 1 * (pts["12"] || 0);
    const cells = Object.keys(t.placed || {});
    if (!cells.length) return `${t.player} passed.`;
    const parts = [];
    ["10", "11", "12"].forEach((k) => { if (pts[k]) parts.push(`${k}: ${pts[k]}`); });
    if (t.crosses) parts.push(`x2 ✕${t.crosses}`);
    const doubled = t.gain !== undefined && t.gain !== total ? ` (${t.gain} with the x2)` : "";
    return `${t.player} placed ${cells.length} tile${cells.length > 1 ? "s" : ""} and scored ` +
      `${total} point${total === 1 ? "" : "s"}${doubled}` + (parts.length ? ` · ${parts.join(" · ")}` : "") +
      (t.override ? " · accepted by the operator" : "");
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
      }
      if (sheetsBox) renderSheets(sheetsBox, state.sheets || {}, { players: state.players, turn: state.turn, winners: state.winners });
      const who = $("#who");
      if (who) {
        if (!state.match_id) who.textContent = "No match";
        else if (state.finished) who.textContent = state.winners.length ? `${state.winners.join(" & ")} won` : "Finished";
        else who.textContent = state.turn ? `${state.turn} to play` : "—";
        who.classList.toggle("finished", !!state.finished);
      }
      const set = (id, text) => { const n = document.getElementById(id); if (n) n.textContent = text; };
      set("who-short", state.turn ? `${state.turn} to play · turn ${state.turn_number}` : "");
      set("turn-number", state.match_id ? `Turn ${state.turn_number}` : "");
      set("match-label", state.match_id ? `Match ${state.match_id}${state.source ? " · " + state.source : ""}` : "");
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
        camEl.textContent = cam.state || "off";
        camEl.className = "stat-value camera cam-" + (cam.state || "off");
      }
      set("camera-message", `camera: ${cam.source || "none"}${cam.message ? " · " + cam.message : ""}`);
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
        el("option", { value: String(k), text: `turn ${k} by ${turns[k - 1]}` }, sel);
      }
    }

    function renderAlerts() {
      const box = $("#alerts");
      if (!box) return;
      box.textContent = "";
      (state.alerts || []).forEach((a) => {
        const card = el("div", { class: "alert alert-" + a.kind }, box);
        const title = a.kind === "illegal-turn" ? `Illegal placement by ${a.player}`
          : a.kind === "broken-turn" ? `Turn ${a.turn} by ${a.player} breaks a rule since a correction`
          : a.kind === "as-recorded" ? "Stored by an earlier version: shown as recorded"
          : "Camera";
        el("div", { class: "alert-title", text: "⚠ " + title + (a.cells ? ` (${a.cells.join(", ")})` : "") }, card);
        const ul = el("ul", {}, card);
        (a.reasons || []).forEach((r) => el("li", { text: r }, ul));
        // tiles on cells that already hold one: nothing to accept, only to take back
        const onTaken = (a.violations || []).some((v) => v.code === "cell-occupied");
        if (a.kind === "illegal-turn" && auth) {
          const row = el("div", { class: "row" }, card);
          if (!onTaken) {
            const acc = el("button", { class: "btn btn-small", id: "accept", text: "Accept anyway" }, row);
            acc.addEventListener("click", () => post("/table/accept"));
          }
          const rej = el("button", { class: "btn btn-small btn-danger", id: "reject", text: "Reject: tiles taken back" }, row);
          rej.addEventListener("click", () => post("/table/reject"));
        } else if (a.kind === "illegal-turn") {
          el("div", { class: "muted", text: "Take the tiles back, or an operator can accept the turn." }, card);
        } else if (a.kind === "broken-turn") {
          el("div", { class: "muted", text: "It stays scored as placed: check the corrected cells on the board." }, card);
        }
      });
      renderWaiting(box);
      const hint = (state.camera || {}).hint;
      if (hint) {
        const card = el("div", { class: "alert alert-camera-hint" }, box);
        el("div", { class: "alert-title", text: "Camera: many cells unreadable" }, card);
        el("div", { text: hint }, card);
        el("a", { href: "/calibration", text: "Open the Calibration page" }, card);
      }
    }

    // a camera turn waiting for a cell it cannot read (issue 41): which cell, and a
    // one-tap value for each (PIN-protected like every write)
    function renderWaiting(box) {
      const w = state.waiting_turn;
      if (!w) return;
      const card = el("div", { class: "alert alert-waiting-cell", id: "waiting-turn" }, box);
      el("div", { class: "alert-title", text: `⏳ Turn ${w.turn} by ${w.player} waits` }, card);
      el("div", { text: w.message }, card);
      if (!auth) return;
      (w.cells || []).forEach((cell) => {
        const row = el("div", { class: "row waiting-cell" }, card);
        el("span", { class: "label", text: cell }, row);
        for (let v = 1; v <= 6; v++) {
          const b = el("button", { class: "tile-btn", "data-cell": cell, "data-value": String(v), text: String(v) }, row);
          b.addEventListener("click", () => post("/table/waiting-cell", { cell, value: v }));
        }
        const none = el("button", { class: "btn btn-small btn-ghost", "data-cell": cell, "data-value": "", text: "No tile of this turn" }, row);
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
        const l = el("label", { text: p + ": tiles left " }, form);
        el("input", { name: `minus_${i}`, "data-player": p, placeholder: "e.g. 3 5", autocomplete: "off" }, l);
      });
      el("button", { class: "btn", id: "finish", text: "Finish the game" }, form);
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
    function openPicker(name) {
      pickCell = name;
      $("#picker-title").textContent = mode === "correct" ? `Correct ${name}` : `Tile on ${name}`;
      const clear = picker.querySelector('[data-value="clear"]');
      clear.hidden = mode === "enter" && !(name in draft);
      picker.hidden = false;
      render();
    }
    function closePicker() { pickCell = null; if (picker) picker.hidden = true; render(); }
    if (svg && auth) {
      svg.addEventListener("click", (ev) => {
        const g = ev.target.closest("[data-cell]");
        if (!g || mode === "view") return;
        const name = g.dataset.cell;
        if (mode === "enter" && state.board[name]) { toast(`${name} already has a tile: use Correct cells`, true); return; }
        openPicker(name);
      });
      picker.addEventListener("click", async (ev) => {
        const b = ev.target.closest("button");
        if (!b || !pickCell) return;
        const v = b.dataset.value;
        const name = pickCell;
        if (v === "cancel") { closePicker(); return; }
        if (mode === "enter") {
          if (v === "clear") delete draft[name]; else draft[name] = Number(v);
          closePicker(); updateDraft();
        } else if (mode === "correct") {
          closePicker();
          await post("/table/cell", { cell: name, value: v === "clear" ? null : Number(v) });
        }
      });
      document.querySelectorAll("#mode button").forEach((b) => b.addEventListener("click", () => {
        mode = b.dataset.mode;
        document.querySelectorAll("#mode button").forEach((x) => x.classList.toggle("on", x === b));
        $("#draft").hidden = mode !== "enter";
        closePicker();
      }));
      $("#commit-turn").addEventListener("click", async () => {
        if (!Object.keys(draft).length) { toast("Tap empty cells to place tiles first", true); return; }
        const r = await post("/table/turn", { placed: draft });
        if (r) { draft = {}; updateDraft(); }
      });
      $("#pass-turn").addEventListener("click", () => post("/table/turn", { placed: {} }));
      $("#clear-draft").addEventListener("click", () => { draft = {}; updateDraft(); });
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
        await post("/table/finish", { minus });
      });
    }
    // a tile another screen (or the camera) has put on a draft cell meanwhile: the draft
    // would only make a flagged turn of it, so the cell leaves the draft, with a word
    function dropFilledDraft() {
      const filled = Object.keys(draft).filter((n) => n in (state.board || {}));
      if (!filled.length) return;
      filled.forEach((n) => delete draft[n]);
      toast(`${filled.join(", ")} ${filled.length > 1 ? "were" : "was"} filled meanwhile: ` +
            "taken out of your turn", true);
      const box = $("#draft-cells");
      if (box) box.textContent = Object.keys(draft).map((n) => `${n}=${draft[n]}`).join("  ")
        || "Tap empty cells to place tiles.";
    }

    function updateDraft() {
      const box = $("#draft-cells");
      if (box) {
        const names = Object.keys(draft);
        box.textContent = names.length ? names.map((n) => `${n}=${draft[n]}`).join("  ") : "Tap empty cells to place tiles.";
      }
      render();
    }

    render();
    connect(apply);
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
      $("#step-label").textContent = `turn ${k} of ${steps.length - 1}`;
      const box = $("#step-turn");
      box.textContent = "";
      el("div", { text: k ? describeTurn(st.turn) : "The empty board." }, box);
      if (st.turn && st.turn.violations && st.turn.violations.length) {
        const ul = el("ul", { class: "bad" }, box);
        st.turn.violations.forEach((v) => el("li", { text: v.message }, ul));
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
      el("option", { value: "draw", text: "Drawn by lot: the highest draw starts" }, starter);
      inputs.forEach((i) => { const v = i.value.trim(); if (v) el("option", { value: v, text: v }, starter); });
      starter.value = [...starter.options].some((o) => o.value === keep) ? keep : "draw";
    };
    inputs.forEach((i) => i.addEventListener("input", refresh));
    // sent in the background: a refused form (a wrong PIN, a starter who is not
    // playing, a match under way) keeps what was typed and says why
    const form = $("#setup-form");
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
        toast("The table server cannot be reached.", true);
        return;
      } finally {
        inFlight = false;
        busy(false);
      }
      if (!resp.ok) { toast(data.error || `Error ${resp.status}`, true); return; }
      if (data.message) sessionStorage.setItem("zatre-toast", data.message);
      window.location.href = "/";
    });
  }

  // a PIN lockout counts down on the sign-in form; Sign in waits until it ends
  const lockNote = $("#login-error[data-wait]");
  if (lockNote) {
    let left = Number(lockNote.dataset.wait);
    const btn = $("#login-submit");
    const base = lockNote.textContent.replace(/: try again in .*$/, "");
    const say = (s) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
      : s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`);
    const tick = () => {
      if (left <= 0) { lockNote.textContent = base + ": try again now"; if (btn) btn.disabled = false; return; }
      lockNote.textContent = `${base}: try again in ${say(left)}`;
      if (btn) btn.disabled = true;
      left -= 1;
      setTimeout(tick, 1000);
    };
    tick();
  }

  const told = sessionStorage.getItem("zatre-toast");  // e.g. Setup's "Match 3 started"
  if (told) { sessionStorage.removeItem("zatre-toast"); toast(told); }

  window.Zatre = { renderBoard, renderSheets, post, connect };
  const page = document.body.dataset.page;
  const cards = !!$("[data-cards]"); // a card game: cards.js draws the page
  if ((page === "table" || page === "sheet") && !cards) tableView();
  else if (page === "history" && $("#steps-data") && !cards) replayView();
  else if (page === "setup") setupView();
  if (((page !== "table" && page !== "sheet") || cards) && $("#live")) $("#live").hidden = true;
})();
