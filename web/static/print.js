/* The printable sheet's Print button (no inline scripts: the pages' CSP forbids them). */
(function () {
  "use strict";
  const b = document.getElementById("print-button");
  if (b) b.addEventListener("click", () => window.print());
})();
