// The Calibration page's focus meter: polls /api/camera/focus every second.
(function () {
  "use strict";
  var box = document.getElementById("focus-meter");
  if (!box) { return; }
  var bar = document.getElementById("focus-bar");
  var text = document.getElementById("focus-value");
  var best = 0;
  var stopped = false;  // the first answer said there is no frame: no more asking
  var _ = window.Zatre._;  // the page's language (i18n.js)
  function show(data) {
    var f = data.focus;
    best = Math.max(best, f);
    bar.max = Math.max(100, best * 1.1);
    bar.value = f;
    text.textContent = _("{focus} (best so far {best})", {focus: f.toFixed(0), best: best.toFixed(0)}) +
      (data.lens_position != null ? ", " + _("lens {dioptres} dioptres", {dioptres: Number(data.lens_position).toFixed(2)}) : "");
  }
  function poll() {
    fetch(box.dataset.url, {headers: {"Accept": "application/json"}, cache: "no-store"})
      .then(function (r) {
        if (r.status === 503 && !best) { stopped = true; return null; }  // asked once: no camera
        return r.ok ? r.json() : null;
      })
      .then(function (data) {
        if (data) { show(data); } else { text.textContent = stopped ? _("no camera") : _("no camera frame yet"); }
        if (stopped) { var img = document.getElementById("live-view"); if (img) { img.hidden = true; } }
      })
      .catch(function () { text.textContent = _("no answer"); })
      .finally(function () { if (!stopped) { setTimeout(poll, 1000); } });
  }
  poll();
})();
