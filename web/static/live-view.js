// The Calibration page's focus meter: polls /api/camera/focus every second.
(function () {
  "use strict";
  var box = document.getElementById("focus-meter");
  if (!box) { return; }
  var bar = document.getElementById("focus-bar");
  var text = document.getElementById("focus-value");
  var best = 0;
  var _ = window.Zatre._;  // the page's language (i18n.js)
  function show(data) {
    var f = data.focus;
    best = Math.max(best, f);
    bar.max = Math.max(100, best * 1.1);
    bar.value = f;
    text.textContent = _("{focus} (best so far {best})", {focus: f.toFixed(0), best: best.toFixed(0)}) +
      (data.lens_position != null ? ", " + _("lens {dioptres} dioptres", {dioptres: Number(data.lens_position).toFixed(2)}) : "");
  }
  // a table without a camera gets no meter at all (the page says so); a camera that
  // has no frame yet (starting, or stopped) is asked less and less often, up to every
  // 30 s, instead of a refused request every second
  var wait = 1000;
  function poll() {
    fetch(box.dataset.url, {headers: {"Accept": "application/json"}, cache: "no-store"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (data) { wait = 1000; show(data); } else { wait = Math.min(wait * 2, 30000); text.textContent = _("no camera frame yet"); }
      })
      .catch(function () { wait = Math.min(wait * 2, 30000); text.textContent = _("no answer"); })
      .finally(function () { setTimeout(poll, wait); });
  }
  poll();
})();
