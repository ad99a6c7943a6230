// The run form's series: the traffic page's picker (traffic/picker.js) writes each chosen series'
// name as a line of the "series" box (collector/studies/runseries.py reads names and ids alike);
// a click on a chosen series takes its line out. A static file: pages run under a CSP.
(function () {
  "use strict";
  var box = document.getElementById("run-series");
  var root = document.getElementById("run-picker");
  if (!box || !root || !window.cellarPicker) { return; }
  var byId = {};                 // id -> name, of the series picked here

  function lines() { return box.value.split("\n").map(function (l) { return l.trim(); }).filter(Boolean); }

  function isSelected(id) { return !!byId[id] && lines().indexOf(byId[id]) >= 0; }

  var picker = window.cellarPicker.mount({
    search: root.querySelector("input[type=search]"), results: root.querySelector(".results"),
    tree: root.querySelector(".tree"), isSelected: isSelected,
    toggle: function (s) {
      var rest = lines().filter(function (l) { return l !== s.label; });
      if (!isSelected(s.id)) { rest.push(s.label); byId[s.id] = s.label; }
      box.value = rest.join("\n");
      picker.refresh();
    }
  });
  box.addEventListener("input", function () { picker.refresh(); });
}());
