#include "sim/report/page_assets.h"

namespace ferry::sim::report {

// The timeline's script (see page_assets.h). Plain ES5-style JavaScript, no library.
std::string_view page_script() {
  return R"js(
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('timeline-data').textContent);
  var host = document.getElementById('timeline');
  var LABEL = 180, PAD = 34, AXIS = 22, LANE = 48, MARK_LANE = 30, ROW = 15;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, String(attrs[k])); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function text(parent, x, y, cls, s) {
    var t = el('text', { x: x, y: y, 'class': cls }, parent);
    t.textContent = s;
    return t;
  }
  function tip(parent, s) { el('title', {}, parent).textContent = s; }
  function seconds(ms) { return (ms / 1000).toFixed(ms % 1000 === 0 ? 0 : (ms % 100 === 0 ? 1 : 2)) + ' s'; }
  function slug(s) { return String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-'); }

  var width = Math.max(900, host.clientWidth || 1200);
  var plot = width - LABEL - PAD;
  var span = Math.max(data.spanMs, 1);
  function x(ms) { return LABEL + ms / span * plot; }

  // Window labels go in rows above the axis, each row holding labels that do not overlap.
  var rowEnds = [], rowOf = [];
  data.windows.forEach(function (w, i) {
    var left = x(w.from), right = left + 6.2 * w.text.length + 8, r = 0;
    while (r < rowEnds.length && rowEnds[r] > left) { r++; }
    rowEnds[r] = right;
    rowOf[i] = r;
  });
  var top = rowEnds.length * ROW + 6 + AXIS;
  var ys = [], y = top;
  data.lanes.forEach(function (lane) { ys.push(y); y += lane.series.length ? LANE : MARK_LANE; });
  var height = y + 6;

  var svg = el('svg', { id: 'timeline-svg', 'class': 'timeline', width: width, height: height,
                        viewBox: '0 0 ' + width + ' ' + height }, null);
  var back = el('g', { 'class': 'backs' }, svg);
  data.lanes.forEach(function (lane, i) {
    el('rect', { 'class': 'lane-bg' + (i % 2 ? ' odd' : ''), x: 0, y: ys[i], width: width, height: (i + 1 < ys.length ? ys[i + 1] : y) - ys[i] }, back);
  });

  // The time axis: a tick at every step that keeps about a dozen of them.
  var steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  var step = steps[steps.length - 1];
  for (var s = 0; s < steps.length; s++) { if (span / 1000 / steps[s] <= 14) { step = steps[s]; break; } }
  var axis = el('g', { 'class': 'axis' }, svg);
  for (var t = 0; t <= span; t += step * 1000) {
    el('line', { x1: x(t), x2: x(t), y1: top - 4, y2: y }, axis);
    text(axis, x(t) + 2, top - 8, 'tick', seconds(t));
  }
  text(axis, 6, top - 8, 'axis-name', host.getAttribute('data-clock') || 'virtual time');

  var wins = el('g', { 'class': 'windows' }, svg);
  data.windows.forEach(function (w, i) {
    var g = el('g', { 'class': 'window' }, wins);
    el('rect', { x: x(w.from), y: rowOf[i] * ROW + 2, width: Math.max(2, x(w.to) - x(w.from)), height: y - rowOf[i] * ROW - 2 }, g);
    text(g, x(w.from) + 3, rowOf[i] * ROW + 13, 'window-text', w.text);
    tip(g, w.text + ' (' + seconds(w.from) + ' to ' + seconds(w.to) + ')');
  });

  var lanes = el('g', { 'class': 'lanes' }, svg);
  var colWidth = Math.max(1, data.columnMs / span * plot - (data.columnMs / span * plot > 3 ? 0.5 : 0));
  data.lanes.forEach(function (lane, i) {
    var g = el('g', { 'class': 'lane lane-' + slug(lane.kind), 'data-kind': lane.kind, 'data-name': lane.name,
                      transform: 'translate(0,' + ys[i] + ')' }, lanes);
    var h = lane.series.length ? LANE : MARK_LANE;
    text(g, 8, 17, 'lane-name', lane.name);
    if (lane.note) { text(g, 8, 32, 'lane-note', lane.note); }
    var most = 1;
    lane.cols.forEach(function (c) {
      var sum = 0;
      for (var k = 1; k < c.length; k++) { sum += c[k]; }
      if (sum > most) { most = sum; }
    });
    var room = h - 10;
    lane.cols.forEach(function (c) {
      var col = el('g', { 'class': 'col' }, g);
      var left = x(c[0] * data.columnMs), base = h - 3, parts = [];
      for (var k = 1; k < c.length; k++) {
        if (!c[k]) { continue; }
        var hh = Math.max(1.5, c[k] / most * room);
        el('rect', { 'class': 's-' + slug(lane.series[k - 1]), x: left, y: base - hh, width: colWidth, height: hh }, col);
        base -= hh;
        parts.push(c[k] + ' ' + lane.series[k - 1]);
        if (lane.kind === 'broker' && k >= 3) { el('rect', { 'class': 'lost-flag', x: left, y: 1, width: Math.max(colWidth, 3), height: 3 }, col); }
      }
      tip(col, lane.name + ' ' + seconds(c[0] * data.columnMs) + ' to ' + seconds((c[0] + 1) * data.columnMs) + ': ' + parts.join(', '));
    });
    lane.marks.forEach(function (m) {
      var mg = el('g', { 'class': 'mark mark-' + slug(m[1]) }, g);
      el('line', { x1: x(m[0]), x2: x(m[0]), y1: 2, y2: h - 2 }, mg);
      el('path', { d: 'M' + (x(m[0]) - 4) + ' 2 L' + (x(m[0]) + 4) + ' 2 L' + x(m[0]) + ' 8 Z' }, mg);
      tip(mg, seconds(m[0]) + ' ' + m[1] + ': ' + m[2]);
    });
    if (lane.marksDropped) { text(g, width - PAD - 160, 12, 'lane-note', '+' + lane.marksDropped + ' marks not shown'); }
  });
  host.appendChild(svg);

  var dropped = [];
  if (data.lanesDropped) { dropped.push(data.lanesDropped + ' lanes'); }
  if (data.windowsDropped) { dropped.push(data.windowsDropped + ' fault windows'); }
  if (dropped.length) {
    var p = document.createElement('p');
    p.className = 'dropped';
    p.textContent = 'Not shown (the page is bounded): ' + dropped.join(', ') + '.';
    host.parentNode.insertBefore(p, host.nextSibling);
  }
})();
)js";
}

}  // namespace ferry::sim::report
