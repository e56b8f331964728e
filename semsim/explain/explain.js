/* semsim explain: switches the direction shown and highlights counterparts.
   All data comes from the explanation document embedded in the page (no network). */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("semsim-data").textContent);
  var svg = document.getElementById("semsim-svg");
  var info = document.getElementById("info");
  var OTHER = { source: "correction", correction: "source" };
  var checked = document.querySelector('input[name="dir"]:checked');
  var dir = checked ? checked.value : Object.keys(D.directions)[0];
  var pinned = null;

  function all(sel) { return Array.prototype.slice.call(svg.querySelectorAll(sel)); }
  function unitEl(side, u) { return svg.querySelector('.unit[data-side="' + side + '"][data-unit="' + u + '"]'); }
  function edgeEl(side, i) { return svg.querySelector('.edge[data-side="' + side + '"][data-edge="' + i + '"]'); }
  function tokenEl(side, t) { return svg.querySelector('.token[data-side="' + side + '"][data-token="' + t + '"]'); }
  function setState(el, states, state) {
    states.forEach(function (s) { el.classList.remove(s); });
    el.classList.add(state);
  }

  // The same rules as render.py's unit_state / edge_state / aligned_text.
  function unitState(side, u) {
    var row = D.directions[dir].units[side][u];
    if (D.detail === "legacy") { return !row.compared ? "n" : row.matched ? "a" : "x"; }
    if (!D.graphs[side].units[u]["yield"].length) { return "n"; }
    return row.aligned.length ? "a" : "x";
  }
  function edgeState(side, i) {
    var d = D.directions[dir];
    if (!d.edges) { return "n"; }
    var row = d.edges[side][i];
    return !row.compared ? "n" : row.matched ? "m" : "u";
  }
  function alignedText(side, u) {
    var d = D.directions[dir];
    if (d.from !== side && d.from !== "both") { return ""; }
    var a = d.units[side][u].aligned;
    return a.length ? "\u2192" + a.join(",") : "";
  }

  function apply() {
    all(".unit").forEach(function (el) {
      var side = el.dataset.side, u = +el.dataset.unit;
      setState(el, ["a", "x", "n"], unitState(side, u));
      el.querySelector(".al").textContent = alignedText(side, u);
    });
    all(".edge").forEach(function (el) { setState(el, ["m", "u", "n"], edgeState(el.dataset.side, +el.dataset.edge)); });
    all(".links").forEach(function (el) { el.classList.toggle("on", el.dataset.dir === dir); });
    Array.prototype.forEach.call(document.querySelectorAll(".dir-row"), function (el) {
      el.classList.toggle("on", el.dataset.dir === dir);
    });
  }

  function clear() {
    all(".hl, .cp").forEach(function (el) { el.classList.remove("hl"); el.classList.remove("cp"); });
  }

  function unitName(side, u) {
    var unit = D.graphs[side].units[u];
    return side + " unit " + u + " (" + unit.id + (unit.label ? " " + unit.label : "") + ")" +
      (unit.text ? " \u201c" + short(unit.text) + "\u201d" : "");
  }
  function short(text) { return text.length > 100 ? text.slice(0, 99) + "\u2026" : text; }
  function weightOf(side, u, v) {
    var pairs = D.directions[dir].unit_alignment;
    for (var k = 0; k < pairs.length; k++) {
      var p = pairs[k];
      if ((side === "source" && p.source === u && p.correction === v) ||
          (side === "correction" && p.correction === u && p.source === v)) {
        return p.w !== undefined ? "w=" + p.w.toFixed(3) : "similarity " + p.similarity.toFixed(3);
      }
    }
    return "";
  }

  function showUnit(side, u) {
    clear();
    var row = D.directions[dir].units[side][u];
    var other = OTHER[side];
    unitEl(side, u).classList.add("hl");
    row.aligned.forEach(function (v) { var el = unitEl(other, v); if (el) { el.classList.add("cp"); } });
    all('.links.on .nlink[data-' + side + '="' + u + '"]').forEach(function (el) { el.classList.add("hl"); });
    var text = unitName(side, u) + ": ";
    if (row.aligned.length) {
      text += "aligned with " + row.aligned.map(function (v) {
        var w = weightOf(side, u, v);
        return other + " unit " + v + (w ? " (" + w + ")" : "");
      }).join(", ");
    } else {
      text += "not aligned" + (row.reason ? " \u2014 " + row.reason : "");
    }
    if (D.detail === "legacy" && row.compared) { text += row.matched ? "; matched" : "; unmatched: " + (row.reason || ""); }
    info.textContent = text;
  }

  function showEdge(side, i) {
    clear();
    var e = D.graphs[side].edges[i], g = D.graphs[side];
    edgeEl(side, i).classList.add("hl");
    var text = side + " edge " + i + ": " + g.units[e.parent].id + " \u2014" + e.labels.join("/") + "\u2192 " +
      g.units[e.child].id + (g.units[e.child].text ? " \u201c" + short(g.units[e.child].text) + "\u201d" : "") +
      (e.remote ? " (remote)" : "");
    var d = D.directions[dir];
    if (!d.edges) {
      text += " \u2014 " + (D.note || "");
    } else {
      var row = d.edges[side][i];
      if (row.matched) {
        text += " \u2014 matched by " + OTHER[side] + " edge(s) " + row.matches.join(", ");
        row.matches.forEach(function (j) { var el = edgeEl(OTHER[side], j); if (el) { el.classList.add("cp"); } });
      } else {
        text += " \u2014 " + (row.compared ? "unmatched: " : "") + row.reason;
      }
    }
    info.textContent = text;
  }

  function showToken(side, t) {
    clear();
    tokenEl(side, t).classList.add("hl");
    var k = side === "source" ? 0 : 1, partners = [];
    D.token_alignment.forEach(function (p) { if (p[k] === t) { partners.push(p[1 - k]); } });
    partners.forEach(function (v) { tokenEl(OTHER[side], v).classList.add("cp"); });
    all('.talign[data-' + side + '="' + t + '"]').forEach(function (el) { el.classList.add("hl"); });
    var tok = D.graphs[side].tokens[t].text;
    info.textContent = side + " token " + t + " \u201c" + tok + "\u201d: " + (partners.length
      ? "aligned with \u201c" + D.graphs[OTHER[side]].tokens[partners[0]].text + "\u201d"
      : "not aligned" + (D.graphs[side].tokens[t].punct ? " (punctuation is not aligned)" : ""));
  }

  function target(ev) {
    var el = ev.target.closest(".unit, .edge, .token");
    if (!el) { return null; }
    var side = el.dataset.side;
    if (el.classList.contains("unit")) { return function () { showUnit(side, +el.dataset.unit); }; }
    if (el.classList.contains("edge")) { return function () { showEdge(side, +el.dataset.edge); }; }
    return function () { showToken(side, +el.dataset.token); };
  }

  svg.addEventListener("mouseover", function (ev) { if (!pinned) { var f = target(ev); if (f) { f(); } } });
  svg.addEventListener("mouseout", function (ev) {
    if (!pinned && !(ev.relatedTarget && ev.relatedTarget.closest && ev.relatedTarget.closest(".unit, .edge, .token"))) {
      clear();
    }
  });
  svg.addEventListener("click", function (ev) {
    var f = target(ev);
    if (!f) { pinned = null; clear(); return; }
    pinned = f;
    f();
  });
  svg.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === " ") { var f = target(ev); if (f) { pinned = f; f(); ev.preventDefault(); } }
  });
  Array.prototype.forEach.call(document.querySelectorAll('input[name="dir"]'), function (el) {
    el.addEventListener("change", function () { dir = el.value; apply(); if (pinned) { pinned(); } });
  });
  document.getElementById("show-links").addEventListener("change", function (ev) {
    document.body.classList.toggle("show-links", ev.target.checked);
  });
  apply();
}());
