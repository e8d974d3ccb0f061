"""The stylesheet and script of explorer.html and the compare page (docs/explorer.md).

Hand-written, no library: the page reads its instances from the JSON block `explorer-data` and
builds every element with createElement/textContent (data is never parsed as HTML). The list is
virtualised (only the rows in view exist), facet counts are recomputed on every filter change in
one pass over the instances, and the URL hash `#case=ID` opens an instance.
"""

EXPLORER_CSS = r"""
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",
"Noto Sans CJK JP","Noto Sans CJK KR","PingFang SC","Hiragino Sans","Microsoft YaHei","Noto Sans Arabic",
"Noto Sans Thai","Noto Sans Devanagari",sans-serif;color:#1d2330;background:#fff;height:100vh;display:flex;
flex-direction:column}
header{padding:8px 16px;border-bottom:1px solid #dde;background:#f7f8fb;max-height:45vh;overflow:auto}
.legend{font-size:12px;color:#556;margin:2px 0}
header h1{font-size:18px;margin:0 0 2px}
.meta{font-size:12px;color:#556;display:grid;grid-template-columns:max-content 1fr;gap:0 8px}
.meta .v{overflow-wrap:break-word}
#app{flex:1;display:grid;grid-template-columns:250px minmax(260px,340px) 1fr;min-height:0}
#side{border-right:1px solid #dde;overflow:auto;padding:8px 10px}
#side input[type=search],#side select{width:100%;margin:2px 0 6px;padding:4px 6px;font:inherit}
#count{font-weight:600;margin:4px 0 8px}
.facet{margin:0 0 8px}.facet summary{font-weight:600;cursor:pointer;font-size:13px}
.facet label{display:flex;gap:6px;align-items:baseline;font-size:12px;padding:1px 0;cursor:pointer}
.facet label .fv{flex:1;overflow-wrap:break-word}.facet label .fc{color:#667;font-variant-numeric:tabular-nums}
.facet label.zero{color:#aab}
.facet button,#clear{font:inherit;font-size:12px;border:1px solid #ccd;background:#fff;border-radius:3px;
padding:1px 6px;cursor:pointer}
#list{overflow:auto;position:relative;border-right:1px solid #dde}
#spacer{position:relative}
.row{position:absolute;left:0;right:0;height:46px;padding:4px 10px;border-bottom:1px solid #eef;cursor:pointer;
overflow:hidden}
.row:hover{background:#f3f6fc}.row.sel{background:#e3ebfa}
.row .id{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:nowrap;overflow:hidden;
text-overflow:ellipsis}
.row .sum{font-size:12px;color:#445;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.empty{padding:16px;color:#667}
#detail{overflow:auto;padding:10px 18px 40px}
#detail h2{font-size:16px;margin:4px 0 6px;font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:break-word}
#detail h3{font-size:14px;margin:14px 0 4px}
.chips{display:flex;flex-wrap:wrap;gap:4px;margin:4px 0}
.chip{font-size:11px;background:#eef1f7;border-radius:10px;padding:1px 8px}
.panes{display:grid;gap:16px}
.pane{min-width:0}
.text{white-space:pre-wrap;overflow-wrap:anywhere;word-break:normal;background:#f7f8fb;border:1px solid #e3e6ee;
border-radius:4px;padding:6px 8px;margin:2px 0 8px;max-height:480px;overflow:auto;font-size:14px;line-height:1.55}
.text.ws{font-family:ui-monospace,Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;font-size:13px}
.wsmark{color:#b0b8c8}mark{background:#ffe58a;color:inherit;padding:0}
details.fold>summary{cursor:pointer;color:#335;font-size:13px;margin:4px 0}
table.checks{border-collapse:collapse;width:100%;font-size:13px;margin:2px 0 8px}
table.checks td:nth-child(1){overflow-wrap:break-word}table.checks td:nth-child(2),table.checks td:nth-child(3){white-space:nowrap}
table.checks td.expl{white-space:normal;color:#333}
table.checks td,table.checks th{border:1px solid #e0e3ea;padding:3px 6px;text-align:left;vertical-align:top}
table.checks th{background:#f4f5f8}
td.ok{color:#1d5e2a;font-weight:600}td.bad{color:#a01c1c;font-weight:600}td.na{color:#667}
td.expl{overflow-wrap:anywhere}
.missing{background:#fdf0d8;color:#7a4b00;padding:2px 8px;border-radius:3px;display:inline-block}
.link{font-size:12px}
.nums{font-size:12px;color:#334}
svg{max-width:100%;height:auto}
"""

EXPLORER_JS = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("explorer-data").textContent);
  var ITEMS = DATA.items, ROW = 46, MAXVALUES = 12;
  var MAXMARKS = 5000;  // marks per text (search hits, whitespace): a hostile text stays cheap to show
  var MAXCHARS = 100000;  // characters of a text drawn before a "show all" button
  // Every dictionary keyed by the data's names and values is a Map: a plain object would answer
  // "constructor" or "toString" from its prototype and drop "__proto__".
  var state = {sel: new Map(), q: "", sort: "", order: [], current: -1, showAll: new Map(), ws: null};
  function own(object, key) { return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined; }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function values(item, facet) {
    var v = own(item.f, facet);
    if (v === undefined || v === null) return [];
    return Array.isArray(v) ? v.map(String) : [String(v)];
  }

  // ---- facets: every value of every facet, in first-seen order, most frequent first
  var FACETS = [], VALUES = new Map();
  function tally(counts, item, facet) {
    var seen = counts.get(facet);
    values(item, facet).forEach(function (v) { seen.set(v, (seen.get(v) || 0) + 1); });
  }
  ITEMS.forEach(function (item) {
    Object.keys(item.f).forEach(function (facet) {
      if (!VALUES.has(facet)) { VALUES.set(facet, new Map()); FACETS.push(facet); }
      tally(VALUES, item, facet);
    });
  });
  var VALUE_ORDER = new Map();
  FACETS.forEach(function (facet) {
    var seen = VALUES.get(facet);
    VALUE_ORDER.set(facet, Array.from(seen.keys()).sort(function (a, b) {
      return seen.get(b) - seen.get(a) || (a < b ? -1 : a > b ? 1 : 0);
    }));
  });

  function haystack(item) {
    if (item._h === undefined) {
      var parts = [item.id, item.s];
      item.t.forEach(function (t) { parts.push(t[1]); });
      item.p.forEach(function (p) {
        if (p.pr) parts.push(p.pr);
        p.c.forEach(function (c) { parts.push(c[0] + " " + c[2] + " " + c[4]); });
        p.j.forEach(function (j) { parts.push(j[1]); });
      });
      item._h = parts.join("\n").toLowerCase();
    }
    return item._h;
  }
  function matchesFacet(item, facet) {
    var chosen = state.sel.get(facet);
    if (!chosen || !chosen.size) return true;
    var vs = values(item, facet);
    for (var i = 0; i < vs.length; i++) if (chosen.has(vs[i])) return true;
    return false;
  }

  // ---- one pass: the visible instances and, per facet, the counts under every other filter
  function apply() {
    var active = FACETS.filter(function (f) { return state.sel.has(f) && state.sel.get(f).size; });
    var q = state.q.toLowerCase(), counts = new Map(), shown = [];
    FACETS.forEach(function (f) { counts.set(f, new Map()); });
    function add(item, facet) { tally(counts, item, facet); }
    for (var i = 0; i < ITEMS.length; i++) {
      var item = ITEMS[i];
      if (q && haystack(item).indexOf(q) < 0) continue;
      var failing = null, nfail = 0;
      for (var k = 0; k < active.length && nfail < 2; k++) {
        if (!matchesFacet(item, active[k])) { failing = active[k]; nfail++; }
      }
      if (nfail === 0) { shown.push(i); FACETS.forEach(function (f) { add(item, f); }); }
      else if (nfail === 1) add(item, failing);
    }
    sortShown(shown);
    state.order = shown;
    renderFacets(counts);
    document.getElementById("count").textContent = shown.length + " of " + ITEMS.length + " instances";
    var list = document.getElementById("list");
    document.getElementById("spacer").style.height = (shown.length * ROW) + "px";
    list.scrollTop = Math.min(list.scrollTop, Math.max(0, shown.length * ROW - list.clientHeight));
    renderRows(true);
  }
  function sortShown(shown) {
    var key = state.sort;
    if (!key) return;
    var desc = key.charAt(0) === "-", name = key.replace(/^[-+]/, "");
    if (name === "case_id") {
      shown.sort(function (a, b) { var x = ITEMS[a].id, y = ITEMS[b].id; return (x < y ? -1 : x > y ? 1 : a - b) * (desc ? -1 : 1); });
      return;
    }
    shown.sort(function (a, b) {
      var x = own(ITEMS[a].n, name), y = own(ITEMS[b].n, name);
      var xm = (x === null || x === undefined), ym = (y === null || y === undefined);
      if (xm || ym) return xm === ym ? a - b : (xm ? 1 : -1);
      return ((x - y) * (desc ? -1 : 1)) || a - b;
    });
  }

  // ---- the facet sidebar
  function renderFacets(counts) {
    var box = document.getElementById("facets");
    box.textContent = "";
    FACETS.forEach(function (facet) {
      var group = el("details", "facet");
      group.open = true;
      group.appendChild(el("summary", null, facet));
      var order = VALUE_ORDER.get(facet), chosen = state.sel.get(facet) || new Set();
      var limit = state.showAll.get(facet) ? order.length : MAXVALUES;
      order.forEach(function (v, index) {
        if (index >= limit && !chosen.has(v)) return;
        var label = el("label"), box2 = el("input"), n = counts.get(facet).get(v) || 0;
        box2.type = "checkbox"; box2.checked = chosen.has(v);
        box2.addEventListener("change", function () {
          if (!state.sel.has(facet)) state.sel.set(facet, new Set());
          var set = state.sel.get(facet);
          if (box2.checked) set.add(v); else set.delete(v);
          apply();
        });
        if (!n) label.className = "zero";
        label.appendChild(box2);
        label.appendChild(el("span", "fv", v));
        label.appendChild(el("span", "fc", n));
        group.appendChild(label);
      });
      if (order.length > MAXVALUES) {
        var more = el("button", null, state.showAll.get(facet) ? "fewer" : "all " + order.length + " values");
        more.addEventListener("click", function () { state.showAll.set(facet, !state.showAll.get(facet)); apply(); });
        group.appendChild(more);
      }
      box.appendChild(group);
    });
  }

  // ---- the virtualised list: only the rows in view exist
  var rendered = {first: -1, last: -1};
  function renderRows(force) {
    var list = document.getElementById("list"), spacer = document.getElementById("spacer");
    var first = Math.max(0, Math.floor(list.scrollTop / ROW) - 10);
    var last = Math.min(state.order.length, first + Math.ceil((list.clientHeight || 800) / ROW) + 20);
    if (!force && first === rendered.first && last === rendered.last) return;
    rendered = {first: first, last: last};
    spacer.textContent = "";
    if (!state.order.length) { spacer.appendChild(el("div", "empty", "No instance matches these filters.")); return; }
    for (var k = first; k < last; k++) {
      var index = state.order[k], item = ITEMS[index];
      var row = el("div", "row" + (index === state.current ? " sel" : ""));
      row.style.top = (k * ROW) + "px";
      row.setAttribute("data-index", String(index));
      row.appendChild(el("div", "id", item.id));
      row.appendChild(el("div", "sum", item.s));
      spacer.appendChild(row);
    }
  }

  // ---- one instance
  function visibleWhitespace(text) {
    var frag = document.createDocumentFragment(), re = /( |\t|\n|\u3000|\u00a0)/g, last = 0, m;
    var marks = {" ": "\u00b7", "\t": "\u2192\t", "\n": "\u21b5\n", "\u3000": "\u25a1", "\u00a0": "\u2423"};
    var marked = 0;
    while (marked++ < MAXMARKS && (m = re.exec(text)) !== null) {
      if (m.index > last) frag.appendChild(document.createTextNode(text.slice(last, m.index)));
      frag.appendChild(el("span", "wsmark", marks[m[0]]));
      last = m.index + 1;
    }
    if (last < text.length) frag.appendChild(document.createTextNode(text.slice(last)));
    return frag;
  }
  function highlighted(text) {
    // the search's matches as <mark> elements around text nodes (never HTML); skipped where
    // lower-casing changes the length, since the offsets would no longer line up
    var q = state.q.toLowerCase(), lower = text.toLowerCase();
    if (!q || lower.length !== text.length || lower.indexOf(q) < 0) return document.createTextNode(text);
    var frag = document.createDocumentFragment(), at = 0, found, marked = 0;
    while (marked++ < MAXMARKS && (found = lower.indexOf(q, at)) >= 0) {
      if (found > at) frag.appendChild(document.createTextNode(text.slice(at, found)));
      frag.appendChild(el("mark", null, text.slice(found, found + q.length)));
      at = found + q.length;
    }
    if (at < text.length) frag.appendChild(document.createTextNode(text.slice(at)));
    return frag;
  }
  function textBlock(text, lang, ws, name, whole) {
    var block = el("div", "text" + (ws ? " ws" : ""));
    block.setAttribute("dir", "auto");
    if (lang) block.setAttribute("lang", lang);
    if (name) block.setAttribute("data-text", name);
    var shown = (whole || text.length <= MAXCHARS) ? text : text.slice(0, MAXCHARS);
    block.appendChild(ws ? visibleWhitespace(shown) : highlighted(shown));
    if (shown.length === text.length) return block;
    var wrap = el("div"), more = el("button", "link", "show the other " + (text.length - MAXCHARS) +
                                     " characters (of " + text.length + ")");
    more.addEventListener("click", function () { wrap.replaceWith(textBlock(text, lang, ws, name, true)); });
    wrap.appendChild(block);
    wrap.appendChild(more);
    return wrap;
  }
  function checksTable(checks, stacked) {
    // stacked (several runs side by side): the reason goes on its own line under its check
    var table = el("table", "checks"), head = el("tr");
    (stacked ? ["check", "kind", "verdict"] : ["check", "kind", "verdict", "why"]).forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    table.appendChild(head);
    checks.forEach(function (c) {
      var tr = el("tr"), why = el("td", "expl", c[4]);
      tr.setAttribute("data-check", c[0]);
      tr.appendChild(el("td", null, c[0]));
      tr.appendChild(el("td", null, c[1]));
      tr.appendChild(el("td", c[3] === 1 ? "ok" : c[3] === 0 ? "bad" : "na", c[2]));
      table.appendChild(tr);
      if (!stacked) { tr.appendChild(why); return; }
      if (!c[4]) return;
      var second = el("tr");
      second.setAttribute("data-check-why", c[0]);
      why.setAttribute("colspan", "3");
      second.appendChild(why);
      table.appendChild(second);
    });
    return table;
  }
  function renderPane(p, stacked) {
    var box = el("div", "pane");
    if (p.h) box.appendChild(el("h3", null, p.h));
    if (p.st === "missing") box.appendChild(el("div", "missing", "missing prediction: scores 0 everywhere"));
    if (p.c.length) box.appendChild(checksTable(p.c, stacked));
    var title = el("h3", null, "prediction");
    box.appendChild(title);
    if (p.pr === null || p.pr === undefined) {
      box.appendChild(el("div", "na", p.st === "missing" ? "(none)" : "(not recorded in this file)"));
    } else {
      box.appendChild(textBlock(p.pr, p.pl, state.ws, "prediction"));
    }
    if (p.j.length) {
      box.appendChild(el("h3", null, "Judge"));
      p.j.forEach(function (j) {
        var d = el("details", "fold"); d.open = true;
        d.appendChild(el("summary", null, j[0]));
        d.appendChild(textBlock(j[1], "", false, "judge"));
        box.appendChild(d);
      });
    }
    if (p.d.length) {
      box.appendChild(el("h3", null, "diagnostics (no effect on scores)"));
      box.appendChild(el("div", null, p.d.join(", ")));
    }
    return box;
  }
  function openItem(index, scroll, keepWhitespace) {
    var item = ITEMS[index], box = document.getElementById("detail");
    if (!keepWhitespace || state.current !== index) {
      state.ws = item.p.some(function (p) { return p.ws; });  // on where layout is what failed
    }
    state.current = index;
    box.textContent = "";
    var h = el("h2", null, item.id);
    box.appendChild(h);
    var link = el("a", "link", "link to this instance");
    link.setAttribute("href", "#case=" + encodeURIComponent(item.id));
    box.appendChild(link);
    var toggle = el("label", "link"), cb = el("input");
    cb.type = "checkbox"; cb.checked = state.ws; cb.id = "show-ws";
    toggle.appendChild(document.createTextNode("   "));
    toggle.appendChild(cb); toggle.appendChild(document.createTextNode(" show whitespace"));
    cb.addEventListener("change", function () { state.ws = cb.checked; openItem(index, false, true); });
    box.appendChild(toggle);
    var chips = el("div", "chips");
    Object.keys(item.f).forEach(function (f) {
      values(item, f).forEach(function (v) { chips.appendChild(el("span", "chip", f + ": " + v)); });
    });
    box.appendChild(chips);
    var nums = Object.keys(item.n).filter(function (k) { return item.n[k] !== null && item.n[k] !== undefined; });
    if (nums.length) box.appendChild(el("div", "nums", nums.map(function (k) { return k + " " + item.n[k]; }).join(" \u00b7 ")));
    var panes = el("div", "panes");
    panes.style.gridTemplateColumns = "repeat(" + item.p.length + ", minmax(0, 1fr))";  // a column per run
    item.p.forEach(function (p) { panes.appendChild(renderPane(p, item.p.length > 1)); });
    box.appendChild(panes);
    item.t.forEach(function (t) {
      if (t[2]) {
        var d = el("details", "fold");
        d.appendChild(el("summary", null, t[0] + " (" + t[1].length + " characters)"));
        d.appendChild(textBlock(t[1], t[3], state.ws, t[0]));
        box.appendChild(d);
        return;
      }
      box.appendChild(el("h3", null, t[0]));
      box.appendChild(textBlock(t[1], t[3], state.ws, t[0]));
    });
    if (!keepWhitespace) box.scrollTop = 0;
    var position = state.order.indexOf(index), list = document.getElementById("list");
    if (scroll && position >= 0) list.scrollTop = Math.max(0, position * ROW - list.clientHeight / 2);
    renderRows(true);
  }
  function openFromHash() {
    var m = /^#case=(.*)$/.exec(location.hash);
    if (!m) return;
    var id;
    try { id = decodeURIComponent(m[1]); } catch (e) { return; }
    for (var i = 0; i < ITEMS.length; i++) if (ITEMS[i].id === id) { openItem(i, true); return; }
    document.getElementById("detail").textContent = "";
    document.getElementById("detail").appendChild(el("div", "empty", "No instance " + id + " in this run."));
  }

  // ---- the page's frame
  function build() {
    var header = el("header");
    header.appendChild(el("h1", null, DATA.title));
    var meta = el("div", "meta");
    DATA.meta.forEach(function (pair) { meta.appendChild(el("span", null, pair[0])); meta.appendChild(el("span", "v", pair[1])); });
    header.appendChild(meta);
    var prelude = document.getElementById("prelude");  // server-rendered, escaped (a chart)
    if (prelude) header.appendChild(prelude);
    document.body.appendChild(header);
    var app = el("div"); app.id = "app";
    var side = el("div"); side.id = "side";
    var search = el("input"); search.type = "search"; search.id = "search";
    search.placeholder = "search ids, texts, reasons";
    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        state.q = search.value;
        apply();
        if (state.current >= 0) openItem(state.current, false, true);
      }, 120);
    });
    side.appendChild(search);
    var sort = el("select"); sort.id = "sort";
    var options = [["", "data order"], ["+case_id", "case_id"]];
    DATA.numbers.forEach(function (n) { options.push(["+" + n, n + " \u2191"]); options.push(["-" + n, n + " \u2193"]); });
    options.forEach(function (o) { var opt = el("option", null, o[1]); opt.value = o[0]; sort.appendChild(opt); });
    sort.addEventListener("change", function () { state.sort = sort.value; apply(); });
    side.appendChild(sort);
    side.appendChild(el("div", null)).id = "count";
    var clear = el("button", null, "clear filters"); clear.id = "clear";
    clear.addEventListener("click", function () { state.sel = new Map(); state.q = ""; search.value = ""; apply(); });
    side.appendChild(clear);
    var facets = el("div"); facets.id = "facets";
    side.appendChild(facets);
    var list = el("div"); list.id = "list";
    var spacer = el("div"); spacer.id = "spacer";
    list.appendChild(spacer);
    list.addEventListener("scroll", function () { window.requestAnimationFrame(function () { renderRows(false); }); });
    spacer.addEventListener("click", function (event) {
      var row = event.target.closest(".row");
      if (!row) return;
      var index = Number(row.getAttribute("data-index"));
      history.replaceState(null, "", "#case=" + encodeURIComponent(ITEMS[index].id));
      openItem(index, false);
    });
    var detail = el("div"); detail.id = "detail";
    detail.appendChild(el("div", "empty", "Choose an instance on the left."));
    app.appendChild(side); app.appendChild(list); app.appendChild(detail);
    document.body.appendChild(app);
    window.addEventListener("hashchange", openFromHash);
    document.addEventListener("keydown", function (event) {  // j / k or the arrows: next / previous shown
      var tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea" || !state.order.length) return;
      var step = (event.key === "j" || event.key === "ArrowDown") ? 1 : (event.key === "k" || event.key === "ArrowUp") ? -1 : 0;
      if (!step) return;
      event.preventDefault();
      var position = state.order.indexOf(state.current);
      position = position < 0 ? 0 : Math.max(0, Math.min(state.order.length - 1, position + step));
      var index = state.order[position];
      history.replaceState(null, "", "#case=" + encodeURIComponent(ITEMS[index].id));
      openItem(index, true);
    });
    window.addEventListener("resize", function () { renderRows(true); });
    apply();
    openFromHash();
    document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));  // for the bench script
    document.body.setAttribute("data-ready", "1");
  }
  build();
})();
"""
