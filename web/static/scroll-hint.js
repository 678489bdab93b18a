/* A wide table's hint (templates/_scroll_table.html): shown while the table is wider
   than its room, so a phone's reader knows more columns lie to the right; its region
   is a tab stop only then. */
(function () {
  "use strict";
  function mark() {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      var box = wrap.querySelector(".table-scroll");
      if (!box) return;
      var over = box.scrollWidth > box.clientWidth + 1;
      wrap.classList.toggle("overflowing", over);
      // a tab stop only where there is something to scroll to (the page comes with one)
      if (over) box.setAttribute("tabindex", "0"); else box.removeAttribute("tabindex");
    });
  }
  window.addEventListener("resize", mark);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
})();
