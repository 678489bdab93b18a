/* The page's language (server/i18n.py), for every page script: Zatre._(text, args) is
   text translated with the words in #i18n-data, its {name} placeholders filled from
   args; Zatre.fill(text, args) fills them without translating. Loaded right after
   #i18n-data in base.html, before any page script, so each script starts with
   `const _ = Zatre._;` and pybabel (babel-js.cfg, keyword _) finds its _("...") words. */
(function () {
  "use strict";
  var node = document.getElementById("i18n-data");
  var data = (node ? JSON.parse(node.textContent) : null) || {};
  var words = data.messages || {};
  // numbers in the page's locale ("4,907" in German for 4.907, "1.250" for 1250)
  var numbers = window.Intl ? new Intl.NumberFormat(data.lang || "en", { maximumFractionDigits: 3 }) : null;
  function num(v) { return typeof v === "number" && numbers ? numbers.format(v) : String(v); }
  function fill(text, args) {
    return args ? text.replace(/\{(\w+)\}/g, function (m, k) { return k in args ? num(args[k]) : m; }) : text;
  }
  var Zatre = window.Zatre || (window.Zatre = {});
  Zatre.i18n = { messages: words, templates: data.templates || [] };
  Zatre.fill = fill;
  Zatre.num = num;
  Zatre._ = function (text, args) { return fill(words[text] || text, args); };
})();
