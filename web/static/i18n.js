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
  function fill(text, args) {
    return args ? text.replace(/\{(\w+)\}/g, function (m, k) { return k in args ? String(args[k]) : m; }) : text;
  }
  var Zatre = window.Zatre || (window.Zatre = {});
  Zatre.i18n = { messages: words, templates: data.templates || [] };
  Zatre.fill = fill;
  Zatre._ = function (text, args) { return fill(words[text] || text, args); };
})();
