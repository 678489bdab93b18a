/* The coach switch on the table page: after each turn, one line with the best move of
   the hand (off in Profi mode and in tournament matches). Reads /api/coach whenever the
   live state changes; the operator switches it with POST /table/coach. */
(function () {
  "use strict";
  const anchor = document.getElementById("hints-card");
  if (!anchor) return;
  const operator = document.body.dataset.auth === "1";
  const card = document.createElement("div");
  card.className = "card coach-card";
  card.id = "coach-card";
  const label = document.createElement("label");
  label.className = "switch";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = "coach-toggle";
  box.setAttribute("role", "switch");
  box.disabled = !operator;
  const slider = document.createElement("span");
  slider.className = "slider";
  slider.setAttribute("aria-hidden", "true");
  const text = document.createElement("span");
  const _ = window.Zatre._;
  const localize = (window.Zatre && window.Zatre.localize) || ((t) => t);
  text.textContent = _("Coach: after each turn, the best move of the hand");
  label.append(box, slider, text);
  const line = document.createElement("div");
  line.id = "coach-line";
  line.className = "coach-line";
  card.append(label, line);
  anchor.after(card);

  let seen = null;
  async function refresh() {
    let data;
    try {
      const resp = await fetch("/api/coach", { headers: { Accept: "application/json" } });
      data = await resp.json();
    } catch (e) { return; }
    show(data);
  }
  function show(data) {
    box.checked = !!data.on && data.available;
    box.disabled = !operator || !data.available;
    line.textContent = !data.available ? localize(data.reason)
      : (data.on ? (localize(data.line) || (data.turn ? _("Nothing certain to say about the last turn.") : _("No turn yet."))) : "");
    line.classList.toggle("muted", !data.available || !data.line);
  }
  box.addEventListener("change", async () => {
    const data = await window.Zatre.post("/table/coach", { on: box.checked });
    if (data && data.coach) show(data.coach); else refresh();
  });
  setInterval(() => {
    const live = window.ZatreLive && window.ZatreLive.state;
    const version = live ? `${live.match_id}:${live.version}:${live.profi}` : null;
    if (version !== seen) { seen = version; refresh(); }
  }, 1000);
  refresh();
})();
