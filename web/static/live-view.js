// The Calibration page's focus meter: polls /api/camera/focus every second.
(function () {
  "use strict";
  var box = document.getElementById("focus-meter");
  if (!box) { return; }
  var bar = document.getElementById("focus-bar");
  var text = document.getElementById("focus-value");
  var best = 0;
  function show(data) {
    var f = data.focus;
    best = Math.max(best, f);
    bar.max = Math.max(100, best * 1.1);
    bar.value = f;
    text.textContent = f.toFixed(0) + " (best so far " + best.toFixed(0) + ")" +
      (data.lens_position != null ? ", lens " + Number(data.lens_position).toFixed(2) + " dioptres" : "");
  }
  function poll() {
    fetch(box.dataset.url, {headers: {"Accept": "application/json"}, cache: "no-store"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) { show(data); } else { text.textContent = "no camera frame yet"; } })
      .catch(function () { text.textContent = "no answer"; })
      .finally(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
