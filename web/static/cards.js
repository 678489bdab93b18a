/* Zatre Vision, the card game: draws the free card layout (cards on "x,y" places,
   no grid), the card score sheets, and the manual entry of card turns. Live from the
   same event stream as the board game. Needs app.js (window.Zatre.post). */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const W = 10, H = 13.5;             // one card place, portrait
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
  const RULES = readJSON("card-rules") || { printed_bonus: [], line_points: { 10: 1, 11: 3, 12: 5 } };
  const parse = (name) => name.split(",").map(Number);
  const key = (x, y) => `${x},${y}`;
  const NEIGHBOURS = [[1, 0], [-1, 0], [0, 1], [0, -1]];
  // the page's language: app.js's words and message templates (server/i18n.py)
  const _ = window.Zatre._;
  const localize = (window.Zatre && window.Zatre.localize) || ((t) => t);

  function toast(message, bad) {
    const t = $("#toast");
    if (!t) return;
    t.textContent = localize(message);
    t.className = "toast" + (bad ? " bad" : "");
    t.hidden = false;
    clearTimeout(t._timer);
    t._timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 2500);
  }

  /* Free places: empty places next to a laid (or drafted) card. With nothing laid, a
     small patch around 0,0 where the round's first two cards may go. */
  function freePlaces(occupied) {
    const names = Object.keys(occupied);
    const free = new Set();
    if (!names.length) {
      for (let y = -1; y <= 1; y++) for (let x = -2; x <= 2; x++) free.add(key(x, y));
      return free;
    }
    names.forEach((n) => {
      const [x, y] = parse(n);
      NEIGHBOURS.forEach(([dx, dy]) => { const k = key(x + dx, y + dy); if (!(k in occupied)) free.add(k); });
    });
    return free;
  }

  function drawCard(layer, name, value, cls) {
    const [x, y] = parse(name);
    const g = s("g", { class: `pcard v${value} ${cls || ""}`, "data-pos": name, "data-value": value,
      transform: `translate(${x * W},${y * H})` }, layer);
    s("rect", { class: "pcard-face", x: 0.5, y: 0.5, width: W - 1, height: H - 1, rx: 1.1 }, g);
    s("rect", { class: "pcard-inner", x: 1.5, y: 1.5, width: W - 3, height: H - 3, rx: 0.6 }, g);
    s("text", { class: "pcard-num", x: W / 2, y: H / 2 + 2.6, text: String(value) }, g);
    s("text", { class: "pcard-idx", x: 2.5, y: 3.9, text: String(value) }, g);
    s("text", { class: "pcard-idx rot", x: W - 2.5, y: H - 1.9, text: String(value) }, g);
  }

  /* The layout: cards at their places, the view grown around them plus one free ring. */
  function renderLayout(svg, board, opts) {
    opts = opts || {};
    svg.textContent = "";
    const occupied = Object.assign({}, board, opts.draft || {});
    const free = opts.free === false ? new Set() : freePlaces(Object.assign({}, occupied, opts.pending || {}));
    const all = [...Object.keys(occupied), ...Object.keys(opts.pending || {}), ...free];
    if (!all.length) all.push("0,0");
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    all.forEach((n) => { const [x, y] = parse(n); x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); });
    // at least 5 x 3 places, centred, so that two cards do not fill the whole view
    while (x1 - x0 < 4) { x0 -= 0.5; x1 += 0.5; }
    while (y1 - y0 < 2) { y0 -= 0.5; y1 += 0.5; }
    const pad = 3;
    svg.setAttribute("viewBox", `${x0 * W - pad} ${y0 * H - pad} ${(x1 - x0 + 1) * W + 2 * pad} ${(y1 - y0 + 1) * H + 2 * pad}`);
    const slots = s("g", { class: "slots" }, svg);
    const hints = opts.hints || {};
    free.forEach((n) => {
      const [x, y] = parse(n);
      const known = Object.keys(board).length > 0 && !Object.keys(opts.draft || {}).length;
      const blocked = !!opts.showHints && known && opts.allHints !== undefined && !(n in opts.allHints);
      const g = s("g", { class: "slot" + (blocked ? " blocked" : ""), "data-pos": n,
        transform: `translate(${x * W},${y * H})` }, slots);
      s("rect", { x: 0.9, y: 0.9, width: W - 1.8, height: H - 1.8, rx: 1 }, g);
      if (n in hints) {
        s("text", { class: "slot-max", x: W / 2, y: H / 2 + 1.6, text: "≤" + hints[n] }, g);
        g.setAttribute("data-max", hints[n]);
      } else if (blocked && opts.showHints) {
        s("text", { class: "slot-max", x: W / 2, y: H / 2 + 1.6, text: "✕" }, g);
      }
    });
    const layer = s("g", { class: "cards" }, svg);
    const last = new Set(opts.lastPlaced || []);
    Object.entries(board).forEach(([n, v]) => drawCard(layer, n, v, last.has(n) ? "last" : ""));
    Object.entries(opts.pending || {}).forEach(([n, v]) => drawCard(layer, n, v, "pending"));
    Object.entries(opts.draft || {}).forEach(([n, v]) => drawCard(layer, n, v, "draft"));
    if (opts.selected) {
      const [x, y] = parse(opts.selected);
      s("rect", { class: "selected", x: x * W + 0.3, y: y * H + 0.3, width: W - 0.6, height: H - 0.6, rx: 1.2 }, layer);
    }
  }

  /* The card score sheet: 10 (1), 11 (3), 12 (5), Bonus, Total; no x2 column; super
     bonuses in the total column from the bottom up. */
  function renderCardSheets(container, sheets, opts) {
    opts = opts || {};
    const players = opts.players || Object.keys(sheets);
    const previous = container._values || {};
    const values = {};
    const printed = RULES.printed_bonus || [];
    const lp = RULES.line_points || {};
    container.textContent = "";
    players.forEach((p) => {
      const sheet = sheets[p] || { rows: [], super_bonus: [], total: 0 };
      const winner = (opts.winners || []).includes(p);
      const box = el("div", { class: "sheet paper card-sheet" + (opts.turn === p ? " to-play" : "") +
        (winner ? " winner" : ""), "data-player": p }, container);
      const head = el("div", { class: "sheet-head" }, box);
      el("span", { class: "brand-mini", text: "ZATRE" }, head);
      el("span", { class: "name", text: p }, head);
      if (opts.turn === p) el("span", { class: "to-play-badge", text: _("to play") }, head);
      if (winner) el("span", { class: "winner-badge", text: _("winner") }, head);
      const table = el("table", {}, box);
      const hr = el("tr", {}, el("thead", {}, table));
      [`10 (${lp["10"]})`, `11 (${lp["11"]})`, `12 (${lp["12"]})`, _("Bonus"), _("Total")].forEach((h) => el("th", { scope: "col", text: h }, hr));
      const body = el("tbody", {}, table);
      const sb = {};
      (sheet.super_bonus || []).forEach((b) => { sb[b.row] = (sb[b.row] || 0) + b.points; });
      const n = Math.max(printed.length || 16, sheet.rows.length);
      for (let k = 0; k < n; k++) {
        const r = sheet.rows[k];
        const tr = el("tr", { "data-row": k + 1 }, body);
        const put = (col, text, cls) => {
          const id = `${p}|${k}|${col}`;
          values[id] = text;
          const changed = container._values && previous[id] !== text && text !== "";
          return el("td", { class: (cls || "") + (changed ? " changed" : ""), "data-col": col, text }, tr);
        };
        const v = (c) => (r && r[c] !== null && r[c] !== undefined ? String(r[c]) : "");
        put("10", v("10")); put("11", v("11")); put("12", v("12"));
        const bonus = put("bonus", r && r.bonus ? String(r.bonus) : "", "bonus");
        if (!(r && r.bonus) && k < printed.length) el("span", { class: "printed", text: String(printed[k]) }, bonus);
        const filled = r && (r.total || r["10"] !== null || r["11"] !== null || r["12"] !== null);
        const total = put("total", filled ? String(r.total) : "", "total" + (sb[k + 1] ? " super" : "") +
          (k === n - 1 ? " super-box" : ""));
        if (sb[k + 1]) el("span", { class: "sb", title: _("super bonus"), text: "★+" + sb[k + 1] }, total);
        else if (k === n - 1 && !filled) el("span", { class: "printed", title: _("super bonus boxes start here"), text: "★" }, total);
      }
      const foot = el("tfoot", {}, table);
      const g = el("tr", { class: "grand" }, foot);
      el("td", { colspan: 4, text: _("Grand Total") }, g);
      const id = `${p}|grand`;
      values[id] = String(sheet.total);
      el("td", { class: "total grand-total" + (container._values && previous[id] !== values[id] ? " changed" : ""),
        "data-player": p, text: String(sheet.total) }, g);
    });
    container._values = values;
  }

  function describeTurn(t) {
    if (!t) return _("No card laid yet.");
    const pts = t.points || {};  // points per sum
    const cells = Object.keys(t.placed || {});
    if (!cells.length) return _("{player} showed the hand (or passed).", { player: t.player });
    const total = ["10", "11", "12"].reduce((a, k) => a + (pts[k] || 0), 0) + (t.super_bonus || 0);
    const parts = [];
    ["10", "11", "12"].forEach((k) => { if (pts[k]) parts.push(`${k}: ${pts[k]}`); });
    if (t.super_bonus) parts.push(_("super bonus {n}", { n: t.super_bonus }));
    return _("{player} laid {cards}", { player: t.player, cards: cells.map((c) => _("{value} on {place}", { value: t.placed[c], place: c })).join(" " + _("and") + " ") }) +
      (parts.length ? ": " + _("{parts} ({points} points)", { parts: parts.join(" · "), points: total }) : ": " + _("no line of 10 to 12")) +
      (t.override ? " · " + _("accepted by the operator") : "");
  }

  // ---- the live card table -----------------------------------------------------------------
  function liveView(kind) {
    const post = window.Zatre.post;
    const svg = $("#layout");
    const sheetsBox = $("#sheets");
    const auth = document.body.dataset.auth === "1";
    let state = readJSON("state-data");
    let mode = "enter";
    let draft = {};
    let pick = null;
    const hintsToggle = $("#hints-toggle");
    if (hintsToggle) {
      hintsToggle.checked = localStorage.getItem("zatre-card-hints") !== "0";
      hintsToggle.addEventListener("change", () => {
        localStorage.setItem("zatre-card-hints", hintsToggle.checked ? "1" : "0");
        render();
      });
    }
    const set = (id, text) => { const n = document.getElementById(id); if (n) n.textContent = text; };

    function render() {
      const showHints = !!(hintsToggle && hintsToggle.checked && !state.profi);
      if (svg) {
        const hasDraft = Object.keys(draft).length > 0;
        renderLayout(svg, state.board || {}, {
          lastPlaced: state.last_turn && state.last_turn.round === state.round && !state.first_turn
            ? Object.keys(state.last_turn.placed || {}) : [],
          pending: state.pending ? state.pending.placed : {},
          draft, selected: pick,
          free: !state.finished && ((auth && mode === "enter") || showHints) ? undefined : false,
          hints: showHints && !hasDraft ? state.hints || {} : {},
          allHints: state.hints || {}, showHints,
        });
        svg.classList.toggle("mode-enter", auth && mode === "enter");
        svg.classList.toggle("mode-correct", auth && mode === "correct");
      }
      if (sheetsBox) renderCardSheets(sheetsBox, state.sheets || {}, { players: state.players, turn: state.turn, winners: state.winners });
      const who = $("#who");
      if (who) {
        if (state.finished) who.textContent = state.winners.length ? _("{names} won", { names: state.winners.join(" & ") }) : _("Finished");
        else who.textContent = state.turn ? _("{player} to play", { player: state.turn }) : "—";
        who.classList.toggle("finished", !!state.finished);
      }
      set("who-short", state.turn && !state.finished ? _("{player} to play · round {round} of {rounds}", { player: state.turn, round: state.round, rounds: state.rounds }) : "");
      set("turn-need", state.finished ? _("All rounds are over.") : state.pending ? _("A flagged turn is waiting.")
        : state.first_turn ? _("Round {round}: lay two touching cards anywhere.", { round: state.round }) : _("Lay one card next to the layout."));
      set("turn-number", _("Turn {n}", { n: state.turn_number }));
      set("match-label", _("Card game · match {id}", { id: state.match_id }));
      set("last-turn", describeTurn(state.last_turn));
      set("round", `${state.round} / ${state.rounds}`);
      set("cards-laid", `${state.cards_laid} / ${state.cards_per_round}`);
      const legend = $("#layout-legend");
      if (legend) legend.textContent = state.finished ? _("The match is over.") : state.first_turn
        ? _("New round: the layout starts empty. Tap two touching places.")
        : (showHints ? _("Dashed: free places; the number is the largest card that still fits (✕: none).") : _("Dashed: free places."));
      const hc = $("#hints-card"), pn = $("#profi-note");
      if (hc && pn) { pn.hidden = !state.profi; hc.querySelector(".switch").hidden = !!state.profi; }
      const pt = $("#profi-toggle");
      if (pt) pt.checked = !!state.profi;
      const endRound = $("#end-round");
      if (endRound) endRound.disabled = !!state.finished || state.first_turn || state.round >= state.rounds;
      ["#commit-turn", "#show-hand", "#pass-turn", "#finish-cards"].forEach((sel) => {
        const b = $(sel); if (b) b.disabled = !!state.finished;
      });
      updateDraft();
      renderAlerts();
    }

    function renderAlerts() {
      const box = $("#alerts");
      if (!box) return;
      box.textContent = "";
      (state.alerts || []).forEach((a) => {
        const card = el("div", { class: "alert alert-" + a.kind }, box);
        const title = a.kind === "illegal-turn" ? _("Illegal placement by {player}", a)
          : a.kind === "as-recorded" ? _("Stored by an earlier version: shown as recorded") : _("Camera");
        el("div", { class: "alert-title", text: "⚠ " + title + (a.cells && a.cells.length ? ` (${a.cells.join("; ")})` : "") }, card);
        const ul = el("ul", {}, card);
        (a.reasons || []).forEach((r) => el("li", { text: localize(r) }, ul));
        if (a.kind === "illegal-turn" && auth) {
          const row = el("div", { class: "row" }, card);
          // cards on places that already hold one: nothing to accept, only to take back
          if (!(a.violations || []).some((v) => v.code === "cell-occupied")) {
            const acc = el("button", { class: "btn btn-small", id: "accept", text: _("Accept anyway") }, row);
            acc.addEventListener("click", () => post("/table/accept"));
          }
          const rej = el("button", { class: "btn btn-small btn-danger", id: "reject", text: _("Reject: cards taken back") }, row);
          rej.addEventListener("click", () => post("/table/reject"));
        } else if (a.kind === "illegal-turn") {
          el("div", { class: "muted", text: _("Take the cards back, or an operator can accept the turn.") }, card);
        }
      });
    }

    function updateDraft() {
      const box = $("#draft-cells");
      if (!box) return;
      const names = Object.keys(draft);
      box.textContent = names.length ? _("To score:") + " " + names.map((n) => _("{value} on {place}", { value: draft[n], place: n })).join(", ")
        : (mode === "correct" ? _("Tap a card of this round to change or remove it.") : _("Tap a free place to lay a card."));
    }

    function apply(next) {
      if (!next) return;
      if (next.variant !== "cards") { window.location.reload(); return; }
      if (state && next.boot === state.boot && next.version < state.version) return;
      if (state && (next.match_id !== state.match_id || next.turn_number !== state.turn_number)) {
        // the turn moved on (here or on another screen): a half-entered draft is stale
        draft = Object.fromEntries(Object.entries(draft).filter(([n]) => !(n in (next.board || {}))));
      }
      state = next;
      render();
    }
    window.ZatreLive = { apply, get state() { return state; } };

    const picker = $("#card-picker");
    function openPicker(name) {
      pick = name;
      $("#card-picker-title").textContent = mode === "correct" ? _("Correct the card on {place}", { place: name }) : _("Card on {place}", { place: name });
      $("#card-picker-clear").hidden = mode === "enter" && !(name in draft);
      picker.hidden = false;
      render();
    }
    function closePicker() { pick = null; if (picker) picker.hidden = true; render(); }

    if (svg && auth) {
      svg.addEventListener("click", (ev) => {
        const g = ev.target.closest("[data-pos]");
        if (!g || state.finished) return;
        const name = g.dataset.pos;
        if (mode === "enter") {
          if ((state.board || {})[name] !== undefined) { toast(_("{place} already holds a card: use Correct cards", { place: name }), true); return; }
          openPicker(name);
        } else if ((state.board || {})[name] !== undefined) {
          openPicker(name);
        }
      });
      picker.addEventListener("click", async (ev) => {
        const b = ev.target.closest("button");
        if (!b || !pick) return;
        const v = b.dataset.value, name = pick;
        if (v === "cancel") { closePicker(); return; }
        if (mode === "enter") {
          if (v === "clear") delete draft[name]; else draft[name] = Number(v);
          closePicker();
        } else {
          closePicker();
          await post("/cards/card", { position: name, value: v === "clear" ? null : Number(v) });
        }
      });
      document.addEventListener("keydown", (ev) => {
        if (picker.hidden || !pick) return;
        if (/^[0-6]$/.test(ev.key)) { const b = picker.querySelector(`[data-value="${ev.key}"]`); if (b) b.click(); }
        if (ev.key === "Escape") closePicker();
      });
      document.querySelectorAll("#mode button").forEach((b) => b.addEventListener("click", () => {
        mode = b.dataset.mode;
        document.querySelectorAll("#mode button").forEach((x) => x.classList.toggle("on", x === b));
        if (mode === "correct") draft = {};
        closePicker();
      }));
      const hand = () => { const i = $("#hand"); return i && i.value.trim() ? i.value.trim() : null; };
      const clearHand = () => { const i = $("#hand"); if (i) i.value = ""; };
      $("#commit-turn").addEventListener("click", async () => {
        const n = Object.keys(draft).length;
        if (!n) { toast(_("Tap a free place and pick the card first"), true); return; }
        const r = await post("/cards/turn", { placed: draft, hand: hand() });
        if (r) { draft = {}; clearHand(); render(); }
      });
      $("#clear-draft").addEventListener("click", () => { draft = {}; render(); });
      $("#show-hand").addEventListener("click", async () => { if (await post("/cards/show-hand", { hand: hand() })) clearHand(); });
      $("#pass-turn").addEventListener("click", () => post("/cards/pass"));
      $("#undo").addEventListener("click", () => post("/table/undo"));
      $("#end-round").addEventListener("click", () => post("/cards/end-round"));
      $("#finish-cards").addEventListener("click", () => {
        if (window.confirm(_("End the card game now? The sheets stay as they are."))) post("/cards/finish");
      });
      $("#profi-toggle").addEventListener("change", (ev) => post("/table/profi", { profi: ev.target.checked }));
    }

    render();
    connect(apply);
    const live = $("#live");
    if (live) live.hidden = false;
    void kind;
  }

  // the live state as the board game gets it (app.js: a stream, or polling when refused)
  function connect(apply) {
    window.Zatre.connect(apply);
  }

  // ---- the replay of a stored card match ---------------------------------------------------------
  function replayView() {
    const steps = readJSON("steps-data");
    const svg = $("#layout"), range = $("#step"), sheets = $("#sheets");
    const show = (k) => {
      const st = steps[k];
      range.value = k;
      renderLayout(svg, st.board, { free: false, lastPlaced: st.turn ? Object.keys(st.turn.placed || {}) : [] });
      renderCardSheets(sheets, st.sheets, {});
      $("#step-label").textContent = _("turn {k} of {n}", { k, n: steps.length - 1 }) + " · " + _("round {round}", { round: st.round });
      const box = $("#step-turn");
      box.textContent = "";
      el("div", { text: k ? describeTurn(st.turn) : _("Nothing laid yet.") }, box);
      if (st.turn && st.turn.violations && st.turn.violations.length) {
        const ul = el("ul", { class: "bad" }, box);
        st.turn.violations.forEach((v) => el("li", { text: localize(v.message) }, ul));
      }
    };
    range.addEventListener("input", () => show(Number(range.value)));
    $("#step-prev").addEventListener("click", () => show(Math.max(0, Number(range.value) - 1)));
    $("#step-next").addEventListener("click", () => show(Math.min(steps.length - 1, Number(range.value) + 1)));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") $("#step-prev").click();
      if (e.key === "ArrowRight") $("#step-next").click();
    });
    show(steps.length - 1);
  }

  // ---- setup: the card game is for 2 to 4 players and manual entry only ---------------------------
  function setupView() {
    const game = $("#game"), camera = $("#camera");
    if (!game || !camera) return;
    const inputs = document.querySelectorAll(".player-input");
    const sync = () => {
      const cards = game.value === "cards";
      if (cards) camera.value = "none";
      [...camera.options].forEach((o) => { o.disabled = cards && o.value !== "none"; });
      inputs.forEach((i, k) => {
        if (k >= 4) {
          i.hidden = cards;
          // a cleared name leaves the starter list too (app.js listens for input)
          if (cards && i.value) { i.value = ""; i.dispatchEvent(new Event("input")); }
        }
      });
      const note = $("#game-note");
      if (note) note.hidden = !cards;
      // the zero rule is the card game's; teams are the board game's
      const zero = $("#zero-rule-field"), team = $("#team-game-field"), box = $("#team-game");
      if (zero) zero.hidden = !cards;
      if (team) team.hidden = cards;
      if (box && cards) box.checked = false;
    };
    game.addEventListener("change", sync);
    sync();
  }

  window.ZatreCards = { renderLayout, renderCardSheets, freePlaces };
  const main = $("[data-cards]");
  const mode = main ? main.dataset.cards : null;
  if (mode === "live" || mode === "sheet") liveView(mode);
  else if (mode === "replay") replayView();
  else if (document.body.dataset.page === "setup") setupView();
})();
