// ncu-roofline report: draws the charts from the embedded data, makes the
// kernel table sortable and filterable, and links table rows with chart
// points by group number.  Records errors on <body> so headless tests can
// see them.
(function () {
  "use strict";
  var body = document.body;
  // Screens this wide or narrower get the phone layout of the charts.
  var NARROW = 700;
  var errors = [];
  function fail(message) {
    errors.push(String(message));
    body.setAttribute("data-errors", errors.join(" | "));
  }
  window.addEventListener("error", function (e) { fail(e.message || e); });

  function data() {
    var node = document.getElementById("ncu-roofline-data");
    return JSON.parse(node.textContent);
  }

  function themeColour() {
    return getComputedStyle(body).color;
  }

  function drawCharts(payload) {
    var points = 0;
    var launchPoints = 0;
    var drawn = 0;
    var ids = Object.keys(payload.charts || {});
    if (ids.length && typeof Plotly === "undefined") {
      ids.forEach(function (id) {
        var div = document.getElementById(id);
        if (div) {
          div.textContent = "plotly.js could not be loaded (offline?): make the report with " +
            "--plotly-js inline to embed it.";
          div.className += " chart-missing";
        }
      });
      fail("plotly.js did not load");
      return;
    }
    ids.forEach(function (id) {
      var fig = payload.charts[id];
      var div = document.getElementById(id);
      if (!div) { return; }
      var layout = Object.assign({}, fig.layout);
      layout.font = Object.assign({}, layout.font || {}, { color: themeColour() });
      var menu = viewButtons(div, layout);
      Plotly.newPlot(div, fig.data, layout, chartConfig());
      if (menu) { menu.chart = div; }
      linkPoints(div);
      (fig.data || []).forEach(function (trace) {
        var n = (trace.x || []).length;
        var theory = (trace.name || "").indexOf("theory") === 0;
        if (trace.legendgroup === "kernel groups" && !theory) { points += n; }
        if (trace.legendgroup === "launches") { launchPoints += n; }
      });
      drawn += div.querySelectorAll(".scatterlayer .trace .points path.point").length;
    });
    body.setAttribute("data-points", String(points));
    body.setAttribute("data-launch-points", String(launchPoints));
    body.setAttribute("data-drawn-points", String(drawn));
  }

  // The figure's view menu becomes a row of HTML buttons above the chart:
  // they wrap on a narrow screen, where plotly's buttons run off the chart
  // and sit under its modebar.  The top margin then only holds the modebar,
  // off the plot area.
  function viewButtons(div, layout) {
    var menus = layout.updatemenus || [];
    var menu = menus[0];
    if (!menu || menu.type !== "buttons") { return null; }
    delete layout.updatemenus;
    layout.margin = Object.assign({}, layout.margin || {}, { t: 36 });
    var row = document.createElement("div");
    row.className = "views";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", "chart view");
    var buttons = (menu.buttons || []).map(function (b, i) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = b.label;
      button.setAttribute("aria-pressed", i === (menu.active || 0) ? "true" : "false");
      button.addEventListener("click", function () {
        var args = b.args || [];
        Plotly.update(div, args[0] || {}, args[1] || {});
        buttons.forEach(function (other) {
          other.setAttribute("aria-pressed", other === button ? "true" : "false");
        });
      });
      row.appendChild(button);
      return button;
    });
    div.parentNode.insertBefore(row, div);
    return row;
  }

  // Box and lasso selection would fight the row-to-point selection; on a
  // narrow screen the modebar keeps only zoom, pan, reset and the PNG so it
  // fits in the top margin.
  function chartConfig() {
    var remove = ["select2d", "lasso2d"];
    if (window.innerWidth <= NARROW) {
      remove = remove.concat(["zoom2d", "autoScale2d", "hoverClosestCartesian",
        "hoverCompareCartesian", "toggleSpikelines"]);
    }
    return { responsive: true, displaylogo: false, modeBarButtonsToRemove: remove };
  }

  // --- rows and points: a group's number (the table's #) names both -------------

  // rank -> [{div, curve, point}] for every marker of that group (its
  // group marker and, in the memory-level view, its level points).
  var pointsByRank = {};
  var selectedRank = null;

  function ranksOf(trace) {
    var meta = trace.meta;
    return meta && (meta.role === "groups" || meta.role === "levels") ? meta.ranks : null;
  }

  function linkPoints(div) {
    (div.data || []).forEach(function (trace, curve) {
      var ranks = ranksOf(trace);
      if (!ranks) { return; }
      ranks.forEach(function (rank, point) {
        if (rank === null || rank === undefined) { return; }
        (pointsByRank[rank] = pointsByRank[rank] || []).push(
          { div: div, curve: curve, point: point, role: trace.meta.role });
      });
    });
    if (typeof div.on === "function") {
      div.on("plotly_click", function (event) {
        var pt = event && event.points && event.points[0];
        var ranks = pt ? ranksOf(pt.data) : null;
        var rank = ranks ? ranks[pt.pointNumber] : null;
        if (rank === null || rank === undefined) { return; }
        select(rank, true);
        var row = rowOf(rank);
        if (row) { row.scrollIntoView({ block: "center" }); }
      });
    }
  }

  function rowOf(rank) {
    var table = document.getElementById("kernel-table");
    if (!table) { return null; }
    var rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i += 1) {
      if (Number(rows[i].cells[0].textContent) === Number(rank)) { return rows[i]; }
    }
    return null;
  }

  // Dims every other group's marker and shows the group's hover box; the
  // same rank again (or null) clears the selection.
  function select(rank, keep) {
    if (rank === selectedRank && !keep) { rank = null; }
    selectedRank = rank;
    body.setAttribute("data-selected", rank === null ? "" : String(rank));
    var table = document.getElementById("kernel-table");
    if (table) {
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.classList.toggle("selected", rank !== null && Number(r.cells[0].textContent) === Number(rank));
      });
    }
    var mine = rank === null ? [] : (pointsByRank[rank] || []);
    document.querySelectorAll(".chart").forEach(function (div) {
      if (!div.data || typeof Plotly === "undefined") { return; }
      var curves = [];
      var picked = [];
      div.data.forEach(function (trace, curve) {
        if (!ranksOf(trace) || trace.meta.role !== "groups") { return; }
        var hits = mine.filter(function (m) { return m.div === div && m.curve === curve; })
          .map(function (m) { return m.point; });
        curves.push(curve);
        picked.push(rank === null ? null : hits);
      });
      if (curves.length) { Plotly.restyle(div, { selectedpoints: picked }, curves); }
    });
    var first = mine.filter(function (m) { return m.role === "groups"; })[0];
    if (first && Plotly.Fx) {
      Plotly.Fx.hover(first.div, [{ curveNumber: first.curve, pointNumber: first.point }]);
    }
    return first || null;
  }

  function setupRowLinks() {
    var table = document.getElementById("kernel-table");
    if (!table) { return; }
    table.tBodies[0].addEventListener("click", function (e) {
      // Opening a name's details or selecting its text is not a pick.
      if (e.target.closest("details, a, input, select, code")) { return; }
      var row = e.target.closest("tr");
      if (!row) { return; }
      var rank = Number(row.cells[0].textContent);
      var hit = select(rank, false);
      if (hit && selectedRank !== null) {
        var box = hit.div.getBoundingClientRect();
        if (box.bottom < 0 || box.top > window.innerHeight) {
          hit.div.scrollIntoView({ block: "center" });
        }
      }
    });
  }

  function sortKey(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null || v === "") { return null; }
    var n = Number(v);
    return isNaN(n) ? v.toLowerCase() : n;
  }

  function setupTable() {
    var table = document.getElementById("kernel-table");
    if (!table) { return; }
    var tbody = table.tBodies[0];
    var headers = table.tHead.rows[0].cells;
    var filter = document.getElementById("kernel-filter");
    var bound = document.getElementById("bound-filter");
    var count = document.getElementById("row-count");
    function applyFilter() {
      var text = (filter.value || "").toLowerCase();
      var cls = bound.value;
      var shown = 0;
      Array.prototype.forEach.call(tbody.rows, function (row) {
        // The row's text holds the short and the full kernel name.
        var ok = (!text || row.textContent.toLowerCase().indexOf(text) >= 0) &&
          (!cls || row.getAttribute("data-bound") === cls);
        row.style.display = ok ? "" : "none";
        if (ok) { shown += 1; }
      });
      count.textContent = shown + " of " + tbody.rows.length + " kernel groups";
      body.setAttribute("data-rows", String(shown));
    }
    Array.prototype.forEach.call(headers, function (th, index) {
      th.addEventListener("click", function () {
        var descending = !th.classList.contains("desc");
        Array.prototype.forEach.call(headers, function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(descending ? "desc" : "asc");
        var rows = Array.prototype.slice.call(tbody.rows);
        rows.sort(function (a, b) {
          var x = sortKey(a.cells[index]);
          var y = sortKey(b.cells[index]);
          if (x === null && y === null) { return 0; }
          if (x === null) { return 1; }   // missing values last, either way
          if (y === null) { return -1; }
          var c = x < y ? -1 : x > y ? 1 : 0;
          return descending ? -c : c;
        });
        rows.forEach(function (r) { tbody.appendChild(r); });
      });
    });
    if (filter && bound) {
      filter.addEventListener("input", applyFilter);
      bound.addEventListener("change", applyFilter);
      applyFilter();
    } else {
      body.setAttribute("data-rows", String(tbody.rows.length));
    }
  }

  // Narrow screens: the legend goes below the chart (beside it, it covers
  // half the plot on a phone).  Kept apart from the drawing: it only
  // relayouts charts already drawn, and restores their own legend when the
  // window is wide again.
  function placeLegends() {
    if (typeof Plotly === "undefined") { return; }
    var narrow = window.innerWidth <= NARROW;
    Array.prototype.forEach.call(document.querySelectorAll(".chart.js-plotly-plot"), function (div) {
      if (!div.layout) { return; }
      if (div.ncuLegend === undefined) {
        div.ncuLegend = JSON.parse(JSON.stringify(div.layout.legend || {}));
        div.ncuMargin = JSON.parse(JSON.stringify(div.layout.margin || {}));
      }
      if (narrow === div.ncuNarrow) { return; }
      div.ncuNarrow = narrow;
      var legend = narrow
        ? Object.assign({}, div.ncuLegend, { orientation: "h", x: 0, xanchor: "left", y: -0.18, yanchor: "top" })
        : div.ncuLegend;
      Plotly.relayout(div, { legend: legend });
    });
  }
  // The page's width against the window's, on <body>, so headless tests
  // can check that nothing scrolls sideways.
  function recordWidth() {
    body.setAttribute("data-page-width", String(document.documentElement.scrollWidth));
    body.setAttribute("data-view-width", String(window.innerWidth));
  }
  function setupNarrowLegends() {
    placeLegends();
    recordWidth();
    setTimeout(recordWidth, 500);
    var pending = null;
    window.addEventListener("resize", function () {
      if (pending) { clearTimeout(pending); }
      pending = setTimeout(function () { placeLegends(); recordWidth(); }, 150);
    });
  }

  try {
    var payload = data();
    setupTable();
    drawCharts(payload);
    setupRowLinks();
    setupNarrowLegends();
  } catch (e) {
    fail(e && e.message ? e.message : e);
  }
  body.setAttribute("data-ready", "1");
})();
