/* A wide table's hint (templates/_scroll_table.html): shown while the table is wider
   than its room, so a phone's reader knows more columns lie to the right. */
(function () {
  "use strict";
  function mark() {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      var box = wrap.querySelector(".table-scroll");
      if (box) wrap.classList.toggle("overflowing", box.scrollWidth > box.clientWidth + 1);
    });
  }
  window.addEventListener("resize", mark);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
})();
