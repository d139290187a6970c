// qpslab charts: values under the pointer, drag to zoom the x axis,
// double-click to reset. Charts are SVG drawn by qpslab (report/chart.rs):
// series live in a 0-1000 box inside <g class="plot">; the data range is on
// the <svg> element's data attributes. Charts with the same data-group
// (a run's panels, on one time axis) share the crosshair and the zoom.
// The HTML legend under a chart highlights a series on hover and hides or
// shows it on click.
(function () {
  "use strict";
  var L = 64, T = 30, W = 1000, H = 250, R = 20, B = 40, PW = W - L - R, PH = H - T - B;
  var zooms = {}, hidden = {}, groups = {};
  function fmt(v) {
    var a = Math.abs(v);
    if (Number.isInteger(v) && a < 1e4) return String(v);
    if (a >= 1e9) return (v / 1e9).toFixed(2) + "G";
    if (a >= 1e6) return (v / 1e6).toFixed(2) + "M";
    if (a >= 1e4) return (v / 1e3).toFixed(1) + "k";
    if (a >= 100) return v.toFixed(0);
    return v.toFixed(a >= 1 ? 2 : 3);
  }
  function ticks(lo, hi, n) {
    if (!(hi > lo)) return [lo];
    var raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (s) { return s >= raw; });
    var out = [];
    for (var x = Math.ceil(lo / step) * step; x <= hi + step * 1e-9; x += step) out.push(Math.abs(x) < step * 1e-9 ? 0 : x);
    return out;
  }
  function el(tag, text) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(name, attrs) {
    var e = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function setup(svg) {
    var d = svg.dataset, x0 = +d.x0, x1 = +d.x1, y0 = +d.y0, y1 = +d.y1, log2 = d.log2 === "true";
    // "spectrum": x is log10(1/(1-p)) (p a percentile), y is log10(ms).
    var spectrum = d.scale === "spectrum";
    function pctOf(v) { return +(100 * (1 - Math.pow(10, -v))).toPrecision(6); }
    var plot = svg.querySelector("g.plot"), xt = svg.querySelector("g.xticks");
    var series = Array.prototype.map.call(svg.querySelectorAll("polyline"), function (p) {
      var pts = p.getAttribute("points").trim().split(/\s+/).filter(Boolean).map(function (s) {
        var v = s.split(","); return [+v[0], +v[1]];
      });
      return { el: p, name: p.dataset.name, color: p.getAttribute("stroke"), pts: pts };
    });
    var key = svg.getAttribute("aria-label") || "", group = d.group || null;
    var zkey = group ? "group:" + group : key;
    var za = zooms[zkey] ? zooms[zkey][0] : 0, zb = zooms[zkey] ? zooms[zkey][1] : 1000, drag = null;
    var rule = svgEl("line", { y1: T, y2: T + PH, stroke: "#555", "stroke-dasharray": "3 3", visibility: "hidden" });
    var band = svgEl("rect", { y: T, height: PH, fill: "rgba(30,120,200,0.15)", visibility: "hidden" });
    svg.appendChild(rule); svg.appendChild(band);
    var tip = document.createElement("div"); tip.className = "tip"; document.body.appendChild(tip);
    function dataX(nx) { var v = x0 + nx / 1000 * (x1 - x0); return log2 ? Math.pow(2, v) : spectrum ? pctOf(v) : v; }
    function toLocal(ev) {
      var p = svg.createSVGPoint(); p.x = ev.clientX; p.y = ev.clientY;
      return p.matrixTransform(svg.getScreenCTM().inverse());
    }
    function nxAt(px) { return za + (px - L) / PW * (zb - za); }
    function pxAt(nx) { return L + (nx - za) / (zb - za) * PW; }
    function redraw() {
      plot.setAttribute("transform", "translate(" + L + " " + (T + PH) + ") scale(" + PW / (zb - za) + " " + (-PH / 1000) + ") translate(" + (-za) + " 0)");
      while (xt.firstChild) xt.removeChild(xt.firstChild);
      var lo = x0 + za / 1000 * (x1 - x0), hi = x0 + zb / 1000 * (x1 - x0);
      var ts = log2 || spectrum ? [] : ticks(lo, hi, 8);
      if (log2 || spectrum) for (var e = Math.ceil(lo); e <= Math.floor(hi); e++) ts.push(e);
      ts.forEach(function (t) {
        var px = L + (t - lo) / (hi - lo) * PW;
        xt.appendChild(svgEl("line", { x1: px, x2: px, y1: T, y2: T + PH, stroke: "#f0f0f0" }));
        var tx = svgEl("text", { x: px, y: T + PH + 15, "font-size": 11, "text-anchor": "middle", "font-family": "sans-serif" });
        tx.textContent = log2 ? fmt(Math.round(Math.pow(2, t))) : spectrum ? "" + pctOf(t) : fmt(t);
        xt.appendChild(tx);
      });
      var wu = svg.querySelector("rect.warmup");
      if (wu) {
        var end = Math.max(L, Math.min(L + PW, pxAt((0 - x0) / (x1 - x0) * 1000)));
        wu.setAttribute("width", Math.max(0, end - L));
        var lbl = wu.nextElementSibling; if (lbl) { lbl.setAttribute("x", (L + end) / 2); lbl.setAttribute("visibility", end - L > 40 ? "visible" : "hidden"); }
      }
    }
    function yOf(v) { return spectrum ? Math.pow(10, v) : v; }
    function values(nx) {
      var rows = [];
      series.forEach(function (s) {
        if (s.el.classList.contains("off")) return;
        var best = null;
        s.pts.forEach(function (q) { if (best === null || Math.abs(q[0] - nx) < Math.abs(best[0] - nx)) best = q; });
        if (best) rows.push({ color: s.color, name: s.name, value: fmt(yOf(y0 + best[1] / 1000 * (y1 - y0))) });
      });
      return rows;
    }
    var me = {
      show: function (nx) {
        var px = pxAt(nx);
        if (px < L || px > L + PW) { me.hide(); return; }
        rule.setAttribute("x1", px); rule.setAttribute("x2", px); rule.setAttribute("visibility", "visible");
      },
      hide: function () { rule.setAttribute("visibility", "hidden"); },
      zoom: function (a, b) { za = a; zb = b; redraw(); }
    };
    var peers = group ? (groups[group] = groups[group] || []) : [me];
    if (group) peers.push(me);
    svg.addEventListener("mousemove", function (ev) {
      var p = toLocal(ev);
      if (p.x < L || p.x > L + PW) { peers.forEach(function (o) { o.hide(); }); tip.style.display = "none"; return; }
      if (drag !== null) {
        band.setAttribute("x", Math.min(drag, p.x)); band.setAttribute("width", Math.abs(p.x - drag));
        band.setAttribute("visibility", "visible");
      }
      var nx = nxAt(p.x);
      peers.forEach(function (o) { o.show(nx); });
      // Built as nodes: series names are text, never markup. Colours
      // through the CSSOM: the UI's policy refuses style attributes.
      tip.replaceChildren(el("i", (svg.dataset.xlabel || "x").split(" (")[0] + " " + fmt(dataX(nx))));
      values(nx).forEach(function (v) {
        var swatch = el("span", "\u25A0");
        swatch.style.color = v.color;
        tip.append(el("br"), swatch, " " + v.name + ": ", el("b", v.value));
      });
      tip.style.display = "block"; tip.style.left = (ev.pageX + 14) + "px"; tip.style.top = (ev.pageY + 10) + "px";
    });
    svg.addEventListener("mouseleave", function () { peers.forEach(function (o) { o.hide(); }); tip.style.display = "none"; drag = null; band.setAttribute("visibility", "hidden"); });
    svg.addEventListener("mousedown", function (ev) { drag = toLocal(ev).x; ev.preventDefault(); });
    svg.addEventListener("mouseup", function (ev) {
      var px = toLocal(ev).x;
      if (drag !== null && Math.abs(px - drag) > 5) {
        var a = nxAt(Math.max(L, Math.min(drag, px))), b = nxAt(Math.min(L + PW, Math.max(drag, px)));
        zooms[zkey] = [a, b];
        peers.forEach(function (o) { o.zoom(a, b); });
      }
      drag = null; band.setAttribute("visibility", "hidden");
    });
    svg.addEventListener("dblclick", function () { delete zooms[zkey]; peers.forEach(function (o) { o.zoom(0, 1000); }); });
    // The legend: hover highlights a series, click hides or shows it.
    var legend = svg.parentNode && svg.parentNode.querySelector("ul.legend");
    var off = hidden[key] = hidden[key] || {};
    function mark(i, cls, on) {
      Array.prototype.forEach.call(svg.querySelectorAll('[data-i="' + i + '"]'), function (e) { e.classList.toggle(cls, on); });
    }
    if (legend) Array.prototype.forEach.call(legend.querySelectorAll("li"), function (li) {
      var i = li.dataset.i;
      if (off[i]) { li.classList.add("off"); mark(i, "off", true); }
      li.addEventListener("mouseenter", function () { svg.classList.add("focus"); mark(i, "hi", true); });
      li.addEventListener("mouseleave", function () { svg.classList.remove("focus"); mark(i, "hi", false); });
      li.addEventListener("click", function () {
        off[i] = !off[i]; li.classList.toggle("off", off[i]); mark(i, "off", off[i]);
      });
    });
    redraw();
  }
  // A running run's page refreshes every second in place: the new page's
  // main part replaces the old, and each chart keeps its zoom and hidden
  // series.
  function refresh() {
    fetch(location.href, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var main = doc.querySelector("main");
      if (!main) return;
      Array.prototype.forEach.call(document.querySelectorAll(".tip"), function (t) { t.remove(); });
      document.querySelector("main").replaceWith(main);
      document.body.dataset.live = doc.body.dataset.live;
      init();
    }).catch(function () { setTimeout(refresh, 1000); });
  }
  function init() {
    groups = {};
    Array.prototype.forEach.call(document.querySelectorAll("svg.chart"), setup);
    if (document.body.dataset.live === "1") setTimeout(refresh, 1000);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
