/* semsim explain: switches the direction and the sentence shown, and highlights counterparts.
   All data comes from the explanation document embedded in the page (no network).
   A unit spanning several sentences (a passage root) is drawn in each, so every lookup
   below returns all copies of an element. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("semsim-data").textContent);
  var canvas = document.getElementById("canvas");
  var info = document.getElementById("info");
  var OTHER = { source: "correction", correction: "source" };
  var checked = document.querySelector('input[name="dir"]:checked');
  var dir = checked ? checked.value : Object.keys(D.directions)[0];
  var pinned = null;
  var sections = Array.prototype.slice.call(canvas.querySelectorAll(".sentence"));
  var current = 0;
  var NAMES = {};  // label -> name, from the legend of labels
  Array.prototype.forEach.call(document.querySelectorAll("#labels li"), function (li) {
    if (li.dataset.name) { NAMES[li.dataset.label] = li.dataset.name; }
  });

  function all(sel) { return Array.prototype.slice.call(canvas.querySelectorAll(sel)); }
  function unitEls(side, u) { return all('.unit[data-side="' + side + '"][data-unit="' + u + '"]'); }
  function edgeEls(side, i) { return all('.edge[data-side="' + side + '"][data-edge="' + i + '"]'); }
  function tokenEls(side, t) { return all('.token[data-side="' + side + '"][data-token="' + t + '"]'); }
  function mark(els, cls) { els.forEach(function (el) { el.classList.add(cls); }); }
  function setState(el, states, state) {
    states.forEach(function (s) { el.classList.remove(s); });
    el.classList.add(state);
  }
  function sentenceOf(el) { return +el.closest(".sentence").dataset.sentence; }
  // " (sentence 3)" where the element is drawn, if the page has several and it is in one only
  function where(els) {
    if (sections.length < 2 || !els.length) { return ""; }
    var first = sentenceOf(els[0]);
    return els.every(function (el) { return sentenceOf(el) === first; }) ? " (sentence " + (first + 1) + ")" : "";
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

  // -- sentences ------------------------------------------------------------------------------
  var nav = document.getElementById("sentence-nav");
  var select = document.getElementById("sentence-select");
  var allBox = document.getElementById("all-sentences");

  // Fit each drawing shown to the window: scaled down (never up) until both graphs stand whole
  // below the bar, and to the width down to MIN_WIDE (wider ones scroll sideways); one too tall
  // even at MIN_SCALE scrolls within its box, so that its bottom is always reachable.
  var MIN_SCALE = 0.5, MIN_WIDE = 0.75, SCROLLBAR = 17;
  var bar = document.getElementById("bar");
  function fit() {
    sections.forEach(function (s) {
      var svg = s.querySelector("svg.drawing"), box = svg && svg.parentNode;
      if (!svg || !box.getClientRects().length) { return; }  // hidden: fitted when shown
      var w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
      var room = window.innerHeight - (box.getBoundingClientRect().top + window.scrollY) - 6;
      if (room < window.innerHeight / 2) { room = window.innerHeight - bar.offsetHeight - 6; }  // further down
      var k = Math.min(1, room / h, Math.max(box.clientWidth / w, MIN_WIDE));
      if (w * k > box.clientWidth + 0.5) { k = Math.min(k, (room - SCROLLBAR) / h); }  // its scrollbar takes room
      k = Math.max(MIN_SCALE, k);
      svg.style.width = (w * k) + "px";
      svg.style.height = (h * k) + "px";
      box.style.maxHeight = Math.max(room, 200) + "px";
    });
  }

  // Show sentence k (0-based): alone, or, with "all sentences", scrolled to.
  function goTo(k) {
    if (!nav) { return; }
    current = Math.max(0, Math.min(sections.length - 1, k));
    sections.forEach(function (s, j) { s.classList.toggle("on", j === current); });
    fit();
    select.value = String(current);
    document.getElementById("prev-sentence").disabled = current === 0;
    document.getElementById("next-sentence").disabled = current === sections.length - 1;
    document.getElementById("sentence-count").textContent = "sentence " + (current + 1) + " of " + sections.length;
    if (allBox.checked) { sections[current].scrollIntoView({ block: "start" }); }
  }

  // The sentence menu says how many edges (units) each sentence left unmatched, for the direction shown.
  function countSentences() {
    if (!nav) { return; }
    var counts = sections.map(function () { return 0; });
    document.querySelectorAll('.misses[data-dir="' + dir + '"] .miss').forEach(function (li) {
      counts[+li.dataset.sentence] += 1;
    });
    var kind = nav.dataset.kind;
    Array.prototype.forEach.call(select.options, function (opt, k) {
      var n = counts[k];
      opt.textContent = opt.dataset.label + (n ? " \u2014 " + n + " unmatched " + kind + (n === 1 ? "" : "s") : "");
    });
  }

  function apply() {
    all(".unit").forEach(function (el) {
      var side = el.dataset.side, u = +el.dataset.unit;
      setState(el, ["a", "x", "n"], unitState(side, u));
      el.querySelector(".al").textContent = alignedText(side, u);
    });
    all(".edge").forEach(function (el) { setState(el, ["m", "u", "n"], edgeState(el.dataset.side, +el.dataset.edge)); });
    all(".links").forEach(function (el) { el.classList.toggle("on", el.dataset.dir === dir); });
    document.querySelectorAll(".dir-row, .misses, .why").forEach(function (el) {
      el.classList.toggle("on", el.dataset.dir === dir);
    });
    countSentences();
  }

  function clear() {
    // (the key's own "selected" and "counterpart" samples keep their rings)
    document.querySelectorAll(":not(.legend) > .hl, :not(.legend) > .cp").forEach(function (el) {
      el.classList.remove("hl");
      el.classList.remove("cp");
    });
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
    mark(unitEls(side, u), "hl");
    row.aligned.forEach(function (v) { mark(unitEls(other, v), "cp"); });
    mark(all('.links.on .nlink[data-' + side + '="' + u + '"]'), "hl");
    var text = unitName(side, u) + ": ";
    if (row.aligned.length) {
      text += "aligned with " + row.aligned.map(function (v) {
        var w = weightOf(side, u, v);
        return other + " unit " + v + (w ? " (" + w + ")" : "") + where(unitEls(other, v));
      }).join(", ");
    } else {
      text += "not aligned" + (row.reason ? " \u2014 " + row.reason : "");
    }
    if (D.detail === "legacy" && row.compared) { text += row.matched ? "; matched" : "; unmatched: " + (row.reason || ""); }
    mark(Array.prototype.slice.call(document.querySelectorAll(
      '.misses.on .miss[data-side="' + side + '"][data-unit="' + u + '"]')), "hl");
    info.textContent = text;
  }

  function showEdge(side, i) {
    clear();
    var e = D.graphs[side].edges[i], g = D.graphs[side];
    mark(edgeEls(side, i), "hl");
    var named = e.labels.filter(function (l) { return NAMES[l]; }).map(function (l) { return l + " " + NAMES[l]; });
    var text = side + " edge " + i + ": " + g.units[e.parent].id + " \u2014" + e.labels.join("/") + "\u2192 " +
      g.units[e.child].id + (g.units[e.child].text ? " \u201c" + short(g.units[e.child].text) + "\u201d" : "") +
      (named.length ? " (" + named.join(", ") + ")" : "") + (e.remote ? " (remote)" : "");
    var d = D.directions[dir];
    if (!d.edges) {
      text += " \u2014 " + (D.note || "");
    } else {
      var row = d.edges[side][i];
      if (row.matched) {
        text += " \u2014 matched by " + OTHER[side] + " edge(s) " + row.matches.map(function (j) {
          return j + where(edgeEls(OTHER[side], j));
        }).join(", ");
        row.matches.forEach(function (j) { mark(edgeEls(OTHER[side], j), "cp"); });
      } else {
        text += " \u2014 " + (row.compared ? "unmatched: " : "") + row.reason;
      }
    }
    mark(Array.prototype.slice.call(document.querySelectorAll(
      '.misses.on .miss[data-side="' + side + '"][data-edge="' + i + '"]')), "hl");
    info.textContent = text;
  }

  function showToken(side, t) {
    clear();
    mark(tokenEls(side, t), "hl");
    var k = side === "source" ? 0 : 1, partners = [];
    D.token_alignment.forEach(function (p) { if (p[k] === t) { partners.push(p[1 - k]); } });
    partners.forEach(function (v) { mark(tokenEls(OTHER[side], v), "cp"); });
    mark(all('.talign[data-' + side + '="' + t + '"]'), "hl");
    var tok = D.graphs[side].tokens[t].text;
    info.textContent = side + " token " + t + " \u201c" + tok + "\u201d: " + (partners.length
      ? "aligned with \u201c" + D.graphs[OTHER[side]].tokens[partners[0]].text + "\u201d" +
        where(tokenEls(OTHER[side], partners[0])) + ((D.moved_tokens || []).some(function (p) {
          return p[k] === t; }) ? " (moved: the pair crosses other pairs)" : "")
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

  canvas.addEventListener("mouseover", function (ev) { if (!pinned) { var f = target(ev); if (f) { f(); } } });
  canvas.addEventListener("mouseout", function (ev) {
    if (!pinned && !(ev.relatedTarget && ev.relatedTarget.closest && ev.relatedTarget.closest(".unit, .edge, .token"))) {
      clear();
    }
  });
  canvas.addEventListener("click", function (ev) {
    var f = target(ev);
    if (!f) { pinned = null; clear(); return; }
    pinned = f;
    f();
  });
  canvas.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === " ") { var f = target(ev); if (f) { pinned = f; f(); ev.preventDefault(); } }
  });

  // An item of the unmatched list: its sentence is shown, the edge (unit) pinned and scrolled to.
  function openMiss(li) {
    var side = li.dataset.side, k = +li.dataset.sentence;
    goTo(k);
    var isEdge = li.dataset.edge !== undefined;
    var n = +(isEdge ? li.dataset.edge : li.dataset.unit);
    pinned = isEdge ? function () { showEdge(side, n); } : function () { showUnit(side, n); };
    pinned();
    li.classList.add("hl");
    var els = (isEdge ? edgeEls(side, n) : unitEls(side, n)).filter(function (el) { return sentenceOf(el) === k; });
    if (els.length) { els[0].scrollIntoView({ block: "center", inline: "center" }); }
  }
  // A count of the summary: its misses marked in their list, the first scrolled to.
  var why = document.getElementById("why");
  why.addEventListener("click", function (ev) {
    var b = ev.target.closest(".to-list");
    if (!b) { return; }
    document.querySelectorAll(".miss.flash").forEach(function (li) { li.classList.remove("flash"); });
    var items = Array.prototype.slice.call(document.querySelectorAll(
      "#" + b.dataset.list + ' .miss[data-cause="' + b.dataset.cause + '"]'));
    mark(items, "flash");
    if (items.length) { items[0].scrollIntoView({ block: "start" }); }
  });
  var list = document.getElementById("unmatched");
  list.addEventListener("click", function (ev) { var li = ev.target.closest(".miss"); if (li) { openMiss(li); } });
  list.addEventListener("keydown", function (ev) {
    var li = ev.target.closest(".miss");
    if (li && (ev.key === "Enter" || ev.key === " ")) { openMiss(li); ev.preventDefault(); }
  });

  if (nav) {
    document.getElementById("prev-sentence").addEventListener("click", function () { goTo(current - 1); });
    document.getElementById("next-sentence").addEventListener("click", function () { goTo(current + 1); });
    select.addEventListener("change", function () { goTo(+select.value); });
    allBox.addEventListener("change", function () {
      canvas.classList.toggle("single", !allBox.checked);
      goTo(current);
    });
  }
  window.addEventListener("resize", fit);
  Array.prototype.forEach.call(document.querySelectorAll('input[name="dir"]'), function (el) {
    el.addEventListener("change", function () { dir = el.value; apply(); if (pinned) { pinned(); } });
  });
  document.getElementById("show-links").addEventListener("change", function (ev) {
    document.body.classList.toggle("show-links", ev.target.checked);
  });
  apply();
  fit();
}());
