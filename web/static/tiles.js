// The Calibration page's "learn this table's own tiles" (server/tile_learning.py):
// the suggested layout, the photos' readings on board diagrams, tap-to-correct, the fit
// (polled while it runs) and its before-and-after report.
(function () {
  "use strict";
  const root = document.getElementById("tiles-learning");
  if (!root) return;
  const $ = (s) => root.querySelector(s);
  const token = document.querySelector('meta[name="csrf-token"]').content;
  let state = null;
  const truth = {};        // photo id -> {cell: 0..6 or null (uncertain, not decided)}
  const corrected = {};    // photo id -> Set of cells the operator set
  let picking = null;      // [photo id, cell]
  const _ = window.Zatre._;  // the page's language (i18n.js)

  function say(text, bad) {
    const m = $("#tiles-message");
    m.textContent = text || "";
    m.classList.toggle("error", !!bad);
  }

  async function call(url, options) {
    let resp, data;
    try {
      resp = await fetch(url, { credentials: "same-origin", ...options,
        headers: { "Accept": "application/json", "X-CSRF-Token": token, ...(options.headers || {}) } });
      data = await resp.json().catch(() => ({}));
    } catch (e) {
      say(_("The table server cannot be reached."), true);
      return null;
    }
    if (!resp.ok) { say(data.error || _("Error {code}", { code: resp.status }), true); return null; }
    say(data.message);
    if (data.tiles) show(data.tiles);
    return data;
  }

  function board(values, opts) {
    const grid = document.createElement("div");
    grid.className = "tile-board";
    const light = new Set(state.light);
    for (const cell of state.cells) {
      const b = document.createElement(opts.tap ? "button" : "div");
      if (opts.tap) b.type = "button";
      b.className = "tile-cell" + (light.has(cell) ? " light" : "");
      b.dataset.cell = cell;
      // A..O left to right, 1..15 top to bottom: the board's cut corners stay blank
      b.style.gridColumn = String(cell.charCodeAt(0) - 64);
      b.style.gridRow = cell.slice(1);
      const v = values(cell);
      const name = document.createElement("small");
      name.textContent = cell;
      const val = document.createElement("b");
      val.textContent = v === null ? "?" : v ? String(v) : "";
      if (v === null) b.classList.add("uncertain");
      else if (v) b.classList.add("tile");
      if (opts.marked && opts.marked.has(cell)) b.classList.add("corrected");
      b.append(name, val);
      if (opts.tap) b.addEventListener("click", () => pick(opts.tap, cell, b));
      grid.append(b);
    }
    return grid;
  }

  function pick(id, cell, el) {
    picking = [id, cell];
    const p = $("#tiles-picker");
    $("#tiles-picker-cell").textContent = _("Photo {id}, {cell}:", { id, cell }) + " ";
    p.hidden = false;
    el.after(p);
    p.style.position = "absolute";
  }

  $("#tiles-picker").addEventListener("click", (ev) => {
    const v = ev.target.dataset && ev.target.dataset.value;
    if (v === undefined || !picking) return;
    const [id, cell] = picking;
    truth[id][cell] = Number(v);
    corrected[id].add(cell);
    picking = null;
    $("#tiles-picker").hidden = true;
    root.append($("#tiles-picker"));
    drawPhotos();
  });

  function drawLayout() {
    const layout = state.layouts[Number($("#tiles-layout-pick").value)] || {};
    const grid = board((c) => layout[c] || 0, {});
    grid.id = "tiles-layout";
    $("#tiles-layout").replaceWith(grid);
  }

  function drawPhotos() {
    const box = $("#tiles-photos");
    root.append($("#tiles-picker"));
    box.replaceChildren();
    for (const p of state.photos) {
      if (!truth[p.id]) {
        truth[p.id] = {};
        corrected[p.id] = new Set();
        const doubt = new Set(p.uncertain);
        for (const c of state.cells) truth[p.id][c] = doubt.has(c) ? null : (p.cells[c] || 0);
      }
      const t = truth[p.id];
      const open = Object.values(t).filter((v) => v === null).length;
      const sec = document.createElement("div");
      sec.className = "tiles-photo";
      sec.dataset.photo = p.id;
      const h = document.createElement("h3");
      h.textContent = _("Photo {id}: read {tiles} tiles, {uncertain} uncertain; {corrected} corrected, {open} still uncertain (left out of learning)",
        { id: p.id, tiles: Object.keys(p.cells).length, uncertain: p.uncertain.length, corrected: corrected[p.id].size, open });
      const use = document.createElement("select");
      use.className = "tiles-use-layout";
      const none = _("the tiles are the suggested layout…");
      use.innerHTML = '<option value="">' + none + "</option>" +
        state.layouts.map((l, i) => `<option value="${i}">` + _("of photo {n}", { n: i + 1 }) + "</option>").join("");
      use.addEventListener("change", () => {
        if (use.value === "") return;
        const layout = state.layouts[Number(use.value)];
        for (const c of state.cells) {
          const v = layout[c] || 0;
          if (t[c] !== v) { t[c] = v; corrected[p.id].add(c); }
        }
        drawPhotos();
      });
      sec.append(h, use, board((c) => t[c], { tap: p.id, marked: corrected[p.id] }));
      box.append(sec);
    }
  }

  function drawReport() {
    const box = $("#tiles-report");
    box.replaceChildren();
    const job = state.job || {};
    const report = (job.state === "done" && job.report) || (state.stored && state.stored.report);
    const learn = $("#tiles-learn");
    if (learn) learn.disabled = job.state === "running";
    root.classList.toggle("busy", job.state === "running");
    if (job.state === "running" || job.state === "error") say(job.message, job.state === "error");
    const head = document.createElement("p");
    head.id = "tiles-in-use";
    head.textContent = state.stored && state.stored.adapted
      ? _("The live reader uses this table's own tiles.") : _("The live reader uses the base model.");
    box.append(head);
    if (!report) return;
    const t = document.createElement("table");
    t.id = "tiles-before-after";
    t.innerHTML = "<thead><tr><th>" + _("cells of the photos") + "</th><th>" + _("before") + "</th><th>" +
      _("after") + "</th></tr></thead>";
    const rowName = { wrong: _("wrong"), uncertain: _("uncertain") };
    const body = document.createElement("tbody");
    for (const k of ["wrong", "uncertain"]) {
      const tr = document.createElement("tr");
      tr.innerHTML = `<th>${rowName[k]}</th><td id="tiles-before-${k}">${report.before[k]}</td><td id="tiles-after-${k}">${report.after[k]}</td>`;
      body.append(tr);
    }
    t.append(body);
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = _("{photos} photo(s), {tiles} tiles, {seconds} s", { photos: report.photos, tiles: report.tiles, seconds: report.seconds }) + "; " +
      (report.adapted ? _("adapted (the held-back check read better).") : _("not adapted: {reason}", { reason: report.note || "" }));
    box.append(t, note);
  }

  function show(s) {
    state = s;
    $("#tiles-corrections").textContent = String(s.corrections);
    drawPhotos();
    drawReport();
  }

  async function poll() {
    const resp = await fetch(root.dataset.state, { credentials: "same-origin" }).catch(() => null);
    if (!resp || !resp.ok) return;
    show(await resp.json());
    if (state.job.state === "running") setTimeout(poll, 500);
    else if (state.job.message) say(state.job.message, state.job.state === "error");
  }

  const upload = $("#tiles-upload");
  if (upload) upload.addEventListener("change", async () => {
    if (!upload.files.length) return;
    const form = new FormData();
    form.append("photo", upload.files[0]);
    say(_("Reading the photo…"));
    await call("/calibration/tiles/photo", { method: "POST", body: form });
    upload.value = "";
  });
  const cam = $("#tiles-from-camera");
  if (cam) cam.addEventListener("click", () => { say(_("Reading the camera's frame…")); call("/calibration/tiles/photo", { method: "POST" }); });
  const clear = $("#tiles-clear");
  if (clear) clear.addEventListener("click", () => {
    for (const k of Object.keys(truth)) { delete truth[k]; delete corrected[k]; }
    call("/calibration/tiles/clear", { method: "POST" });
  });
  const base = $("#tiles-base");
  if (base) base.addEventListener("click", () => call("/calibration/tiles/base", { method: "POST" }));
  const learn = $("#tiles-learn");
  if (learn) learn.addEventListener("click", async () => {
    const body = { truth: {} };
    for (const p of state.photos) {
      const t = truth[p.id], cells = {}, ignore = [];
      for (const c of state.cells) {
        if (t[c] === null) ignore.push(c);
        else if (t[c]) cells[c] = t[c];
      }
      body.truth[p.id] = { cells, ignore };
    }
    const data = await call("/calibration/tiles/learn", { method: "POST",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (data) poll();
  });
  const fromCorrections = $("#tiles-learn-corrections");
  if (fromCorrections) fromCorrections.addEventListener("click", async () => {
    if (await call("/calibration/tiles/learn-corrections", { method: "POST" })) poll();
  });
  const clearCorrections = $("#tiles-clear-corrections");
  if (clearCorrections) clearCorrections.addEventListener("click", () =>
    call("/calibration/tiles/corrections/clear", { method: "POST" }));
  $("#tiles-layout-pick").addEventListener("change", drawLayout);

  fetch(root.dataset.state, { credentials: "same-origin" }).then((r) => r.json()).then((s) => {
    show(s);
    drawLayout();
    if (s.job.state === "running") poll();
  });
})();
