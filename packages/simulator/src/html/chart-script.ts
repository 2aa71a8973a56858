// The page's own script: reads the JSON block (JSON.parse, never eval) and draws the charts with
// the inlined uPlot. Plain ES2017 in a string (no template literals inside): it runs in the browser
// as written, whatever the build does to the TypeScript around it. Names reach the page only
// through uPlot's legend (textContent) and the canvas (fillText): never as HTML.

/**
 * The chart setup script inlined in the report. It expects the global `uPlot`, a
 * `<script type="application/json" id="report-data">` holding {@link ChartData}, and one
 * `<div data-chart="…">` per chart (timeline, failure-rate, slow-call-rate, rejected, failed,
 * window-fill). When every chart is drawn it sets `data-charts` on `<html>` to their count.
 *
 * @example
 * ```ts
 * const page = `<script>${inlineScript(CHART_SCRIPT)}</script>`;
 * ```
 */
export const CHART_SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var x = data.x;
  var configs = data.configurations;
  var SYNC = 'breakwater';
  var charts = [];
  var zooming = false;
  var first = x.length ? x[0] : 0;
  var last = x.length ? x[x.length - 1] + data.bucketSeconds : Math.max(data.durationSeconds, 1);

  function labelOf(c) { return c.rank ? '#' + c.rank + ' ' + c.name : c.name; }
  function pad2(n) { return n < 10 ? '0' + n : String(n); }
  function clock(sec) {
    if (sec == null) return '—';
    var s = Math.round(sec * 10) / 10, h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    var rs = r % 1 === 0 ? pad2(r) : (r < 10 ? '0' : '') + r.toFixed(1);
    return h > 0 ? h + ':' + pad2(m) + ':' + rs : m + ':' + rs;
  }
  function unit(suffix, digits) {
    return function (u, v) { return v == null ? '—' : v.toFixed(digits) + suffix; };
  }
  function constant(v) { return x.map(function () { return v; }); }
  function px(n) { return n * uPlot.pxRatio; }

  // Phase boundaries as dashed lines, their names in the strip above the plot.
  function drawPhases(u) {
    var ctx = u.ctx, b = u.bbox;
    ctx.save();
    ctx.strokeStyle = '#9a9a9a';
    ctx.fillStyle = '#555';
    ctx.lineWidth = px(1);
    ctx.setLineDash([px(4), px(4)]);
    ctx.font = px(11) + 'px system-ui, sans-serif';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    data.phases.forEach(function (p, i) {
      var x0 = Math.max(u.valToPos(p.start, 'x', true), b.left);
      var x1 = Math.min(u.valToPos(p.end, 'x', true), b.left + b.width);
      if (x1 <= x0) return;
      if (i > 0 && x0 > b.left) {
        ctx.beginPath(); ctx.moveTo(Math.round(x0), b.top); ctx.lineTo(Math.round(x0), b.top + b.height); ctx.stroke();
      }
      ctx.save();
      ctx.beginPath(); ctx.rect(x0, b.top - px(18), x1 - x0 - px(4), px(18)); ctx.clip();
      ctx.fillText(p.name, x0 + px(4), b.top - px(3));
      ctx.restore();
    });
    ctx.restore();
  }

  // The state timeline: one lane per configuration, a band per run of one state.
  function drawLanes(u) {
    var ctx = u.ctx, b = u.bbox, n = configs.length, lane = b.height / Math.max(n, 1);
    ctx.save();
    ctx.beginPath(); ctx.rect(b.left, b.top, b.width, b.height); ctx.clip();
    configs.forEach(function (c, ci) {
      var top = b.top + ci * lane + px(3), height = lane - px(6), start = 0;
      for (var i = 1; i <= x.length; i++) {
        if (i < x.length && c.state[i] === c.state[start]) continue;
        var s = c.state[start];
        if (s != null) {
          var x0 = u.valToPos(x[start], 'x', true);
          var x1 = u.valToPos(i < x.length ? x[i] : x[x.length - 1] + data.bucketSeconds, 'x', true);
          ctx.fillStyle = data.stateColors[s];
          ctx.fillRect(x0, top, Math.max(x1 - x0, px(1)), height);
        }
        start = i;
      }
      ctx.font = 'bold ' + px(12) + 'px system-ui, sans-serif';
      ctx.textAlign = 'left';
      ctx.textBaseline = 'middle';
      var name = labelOf(c);
      var w = ctx.measureText(name).width;
      ctx.fillStyle = 'rgba(255,255,255,0.85)';
      ctx.fillRect(b.left + px(4), top + height / 2 - px(9), Math.min(w + px(10), b.width - px(8)), px(18));
      ctx.fillStyle = c.color;
      ctx.fillRect(b.left + px(4), top + height / 2 - px(9), px(3), px(18));
      ctx.fillStyle = '#222';
      ctx.fillText(name, b.left + px(10), top + height / 2, b.width - px(20));
    });
    ctx.restore();
  }

  function syncZoom(u, key) {
    if (key !== 'x' || zooming) return;
    zooming = true;
    charts.forEach(function (o) { if (o !== u) o.setScale('x', { min: u.scales.x.min, max: u.scales.x.max }); });
    zooming = false;
  }

  function xRange(u, min, max) { return min <= first && max >= x[x.length - 1] ? [first, last] : [min, max]; }

  function xAxis() {
    return {
      values: function (u, splits) { return splits.map(clock); },
      incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400],
      space: 60,
    };
  }

  // Rows of the legend to leave out (index 0 is the time): the configurations in grey, and lines
  // drawn per configuration that the caption explains (thresholds, requests).
  function hideLegendRows(u, hidden) {
    var rows = u.root.querySelectorAll('.u-legend .u-series');
    hidden.forEach(function (h, i) { if (h && rows[i + 1]) rows[i + 1].style.display = 'none'; });
  }

  function make(el, opts, columns, hidden) {
    opts.width = el.clientWidth || 900;
    opts.padding = [20, 28, null, null]; // room on the right for the last time label (1:00:00)
    opts.scales = opts.scales || {};
    opts.scales.x = { time: false, range: xRange };
    opts.cursor = opts.cursor || {};
    opts.cursor.sync = { key: SYNC };
    opts.legend = { live: true };
    opts.hooks = opts.hooks || {};
    opts.hooks.draw = (opts.hooks.draw || []).concat([drawPhases]);
    opts.hooks.setScale = [syncZoom];
    opts.series.unshift({ label: 'time', value: function (u, v) { return clock(v); } });
    var u = new uPlot(opts, [x].concat(columns), el);
    if (hidden) hideLegendRows(u, hidden);
    charts.push(u);
    return u;
  }

  // A value with no value on either side (the window reached the minimum for one bucket) has no
  // line to sit on: it is drawn as a dot, and only such values are.
  function isolated(values) {
    var out = [];
    for (var i = 0; i < values.length; i++) {
      if (values[i] != null && values[i - 1] == null && values[i + 1] == null) out.push(i);
    }
    return out;
  }

  function line(label, color, values, extra, hidden) {
    var lone = isolated(values);
    var points = lone.length ? { show: true, size: 5, width: 1, fill: color, filter: lone } : { show: false };
    var s = { label: label, stroke: color, width: 1.5, points: points, spanGaps: false };
    for (var k in extra) s[k] = extra[k];
    return { series: s, values: values, hidden: !!hidden };
  }

  // The configurations in drawing order: the grey ones first (under), then the highlighted, best first.
  var drawOrder = configs.filter(function (c) { return !c.highlighted; }).concat(configs.filter(function (c) { return c.highlighted; }));
  var highlighted = configs.filter(function (c) { return c.highlighted; });

  // One series per configuration for each chart, plus threshold lines and a requests backdrop.
  function linesChart(name, yLabel, range, lines) {
    var el = document.querySelector('[data-chart="' + name + '"]');
    if (!el) return;
    make(el, {
      height: 240,
      series: lines.map(function (l) { return l.series; }),
      scales: { y: { range: range } },
      axes: [xAxis(), { label: yLabel, size: 56 }],
    }, lines.map(function (l) { return l.values; }), lines.map(function (l) { return l.hidden; }));
  }

  function thresholds(key) {
    var values = configs.map(function (c) { return c[key]; });
    var same = values.every(function (v) { return v === values[0]; });
    if (same && configs.length) {
      return [line('threshold ' + values[0] + ' %', '#555', constant(values[0]), { dash: [6, 4], width: 1, value: unit(' %', 0) })];
    }
    // One dashed line per highlighted configuration, in its colour (the caption says so; not in the legend).
    return highlighted.map(function (c) {
      return line('threshold · ' + c.name, c.color, constant(c[key]), { dash: [6, 4], width: 1, value: unit(' %', 0) }, true);
    });
  }

  function requestsBackdrop() {
    if (data.sameRequests && configs.length) {
      return [line('requests', '#b9b9b9', configs[0].requests, { fill: 'rgba(0,0,0,0.06)', value: unit('/s', 1) })];
    }
    return highlighted.map(function (c) {
      return line('requests · ' + c.name, c.color, c.requests, { dash: [2, 3], width: 1, value: unit('/s', 1) }, true);
    });
  }

  function perConfiguration(key, suffix, digits) {
    return drawOrder.map(function (c) {
      return line(labelOf(c), c.color, c[key], c.highlighted ? { value: unit(suffix, digits) } : { value: unit(suffix, digits), width: 1 }, !c.highlighted);
    });
  }

  var laneHeight = configs.length <= 12 ? 44 : Math.max(20, Math.floor(528 / configs.length));
  var timeline = document.querySelector('[data-chart="timeline"]');
  if (timeline) {
    make(timeline, {
      height: Math.max(laneHeight * configs.length, 60) + 50,
      series: configs.map(function (c) {
        return {
          label: labelOf(c), stroke: c.color, scale: 'lane', points: { show: false },
          paths: function () { return null; },
          value: function (u, v) { return v == null ? '—' : data.states[v]; },
        };
      }),
      scales: { lane: { range: [0, Math.max(configs.length, 1)] } },
      // An axis as wide as the other charts' (no ticks, no values), so every chart's time lines up.
      axes: [xAxis(), { scale: 'lane', label: 'state', size: 56, ticks: { show: false }, grid: { show: false }, values: function (u, splits) { return splits.map(function () { return ''; }); } }],
      cursor: { y: false, points: { show: false } },
      hooks: { draw: [drawLanes] },
    }, configs.map(function (c) { return c.state; }), configs.map(function (c) { return !c.highlighted; }));
  }
  var upTo100 = function (u, min, max) { return [0, Math.max(100, max || 0)]; };
  var fromZero = function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; };
  linesChart('failure-rate', 'failure rate %', upTo100, perConfiguration('failureRate', ' %', 1).concat(thresholds('failureRateThreshold')));
  linesChart('slow-call-rate', 'slow calls %', upTo100, perConfiguration('slowCallRate', ' %', 1).concat(thresholds('slowCallRateThreshold')));
  linesChart('rejected', 'per second', fromZero, requestsBackdrop().concat(perConfiguration('rejected', '/s', 1)));
  linesChart('failed', 'per second', fromZero, requestsBackdrop().concat(perConfiguration('failed', '/s', 1)));
  linesChart('window-fill', 'window fill %', upTo100, perConfiguration('windowFill', ' %', 0));

  var resizing = 0;
  window.addEventListener('resize', function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      charts.forEach(function (u) { u.setSize({ width: u.root.parentNode.clientWidth, height: u.height }); });
    }, 100);
  });
  document.documentElement.setAttribute('data-charts', String(charts.length));
})();
`;
