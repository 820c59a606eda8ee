/* trace-report page script: reads the JSON in #tftrace-data (its format, tftrace-report/1, is in
 * docs/trace-report.md) and draws the timeline, memory curves, tables, graph and run diff of a profiled run.  Plain ES2017, no
 * framework, no network; works from file://.  It is inlined in a script element, so its text
 * never holds a closing script tag nor an HTML comment opener. */
(function () {
  'use strict';

  var html = document.documentElement;
  var errorCount = 0;

  function noteError(msg) {
    errorCount++;
    html.setAttribute('data-errors', String(errorCount));
    var b = document.getElementById('errbadge');
    if (b) {
      b.hidden = false;
      b.textContent = errorCount + (errorCount === 1 ? ' script error' : ' script errors');
      b.title = String(msg);
    }
  }
  window.onerror = function (msg, src, line) {
    noteError(String(msg) + (line ? ' (line ' + line + ')' : ''));
    return false;
  };
  window.addEventListener('unhandledrejection', function (ev) {
    var r = ev && ev.reason;
    noteError('unhandled rejection: ' + (r && r.message ? r.message : String(r)));
  });

  /* ---------- small helpers ---------- */

  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;';
    });
  }
  function clamp(v, a, b) { return v < a ? a : v > b ? b : v; }
  var MU = '\u00b5';

  function sig3(x) {
    var a = Math.abs(x);
    if (a >= 99.95) return x.toFixed(0);
    if (a >= 9.995) return x.toFixed(1);
    return x.toFixed(2);
  }
  function fmtUs(us) {
    if (typeof us !== 'number' || !isFinite(us)) return String(us);
    var a = Math.abs(us);
    if (a === 0) return '0 ' + MU + 's';
    if (a < 0.9995) return sig3(us * 1000) + ' ns';
    if (a < 999.5) return sig3(us) + ' ' + MU + 's';
    if (a < 999500) return sig3(us / 1000) + ' ms';
    return sig3(us / 1e6) + ' s';
  }
  var BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function fmtBytes(b) {
    if (typeof b !== 'number' || !isFinite(b)) return String(b);
    var a = Math.abs(b);
    if (a < 1023.5) return Math.round(b) + ' B';
    var u = -1;
    while (a >= 1023.5 && u < BYTE_UNITS.length - 1) { a /= 1024; b /= 1024; u++; }
    return sig3(b) + ' ' + BYTE_UNITS[u];
  }
  function fmtNum(x) {
    if (typeof x !== 'number' || !isFinite(x)) return String(x);
    if (Number.isInteger(x)) return x.toLocaleString('en-US');
    var a = Math.abs(x);
    return x.toLocaleString('en-US', { maximumFractionDigits: a >= 100 ? 1 : a >= 1 ? 3 : 4 });
  }
  function fmtPct(x) { return (Math.abs(x) >= 99.95 ? x.toFixed(0) : x.toFixed(1)) + '%'; }
  /* A table cell by its column unit. */
  function fmtCell(v, unit) {
    if (v === null || v === undefined) return '\u2014';
    if (typeof v !== 'number') return String(v);
    switch (unit) {
      case 'us': return fmtUs(v);
      case 'ms': return fmtUs(v * 1000);
      case 's': return fmtUs(v * 1e6);
      case 'ns': return fmtUs(v / 1000);
      case 'bytes': case 'B': return fmtBytes(v);
      case '%': return fmtPct(v);
      case 'fraction': return fmtPct(v * 100);
      case '': case undefined: case null: return fmtNum(v);
      default: return fmtNum(v) + ' ' + unit;
    }
  }

  function hashStr(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    h ^= h >>> 13; h = Math.imul(h, 0x5bd1e995); h ^= h >>> 15;
    return h >>> 0;
  }
  /* A stable, calm colour per op string: 24 hues 15 degrees apart, two tones each. */
  function colourOf(s) {
    if (!s) return '#bcc2cc';
    var h = hashStr(s);
    var k = h % 48;
    var hue = ((k % 24) * 105 + 200) % 360;
    var sat = k < 24 ? 58 : 46;
    var light = k < 24 ? 70 : 62;
    return 'hsl(' + hue + ',' + sat + '%,' + light + '%)';
  }

  function DataError(msg) { var e = new Error(msg); e.dataError = true; return e; }

  /* ---------- reading and checking the data ---------- */

  function readData() {
    var node = $('tftrace-data');
    if (!node) throw DataError('the page holds no data (no element #tftrace-data).');
    var d;
    try { d = JSON.parse(node.textContent); } catch (e) {
      throw DataError('the data is not valid JSON: ' + e.message);
    }
    if (!d || typeof d !== 'object' || Array.isArray(d)) throw DataError('the data is not a JSON object.');
    if (typeof d.format !== 'string' || d.format.indexOf('tftrace-report/') !== 0)
      throw DataError('unknown data format ' + JSON.stringify(d.format) + ' (expected "tftrace-report/1").');
    if (!Array.isArray(d.runs) || d.runs.length === 0) throw DataError('the data holds no run.');
    return d;
  }

  function typed(a, what, n, Ctor, optional) {
    if (a === undefined || a === null) {
      if (optional) return new Ctor(n);
      throw DataError(what + ' is missing.');
    }
    if (!Array.isArray(a)) throw DataError(what + ' is not an array.');
    if (a.length !== n) throw DataError(what + ' has ' + a.length + ' values where ' + n + ' were expected.');
    return new Ctor(a);
  }
  function checkIndex(arr, lim, what) {
    for (var i = 0; i < arr.length; i++) {
      var v = arr[i];
      if (!(v >= 0 && v < lim)) throw DataError(what + '[' + i + '] = ' + v + ' is not an index below ' + lim + '.');
    }
  }

  /* Turns one RUN of the data into typed arrays and indexes, once. */
  function prepRun(raw, k) {
    var where = 'run ' + (k + 1);
    if (!raw || typeof raw !== 'object') throw DataError(where + ' is not an object.');
    var run = { raw: raw, index: k, label: typeof raw.label === 'string' && raw.label ? raw.label : 'run ' + (k + 1) };
    where = 'run ' + (k + 1) + ' (' + run.label + ')';
    var strings = raw.strings;
    if (!Array.isArray(strings)) strings = [''];
    if (strings.length === 0) strings = [''];
    run.strings = strings.map(function (s) { return typeof s === 'string' ? s : String(s); });
    var S = run.strings.length;
    var rows = Array.isArray(raw.rows) ? raw.rows : [];
    run.rows = rows.map(function (r) {
      r = r || {};
      return { device: String(r.device || ''), track: String(r.track || ''), kind: String(r.kind || '') };
    });
    var R = run.rows.length;
    var sl = raw.slices || {};
    var N = Array.isArray(sl.row) ? sl.row.length : Array.isArray(sl.start) ? sl.start.length : 0;
    run.n = N;
    run.row = typed(sl.row, where + ': slices.row', N, Int32Array, N === 0);
    run.start = typed(sl.start, where + ': slices.start', N, Float64Array, N === 0);
    run.dur = typed(sl.dur, where + ': slices.dur', N, Float64Array, N === 0);
    run.name = typed(sl.name, where + ': slices.name', N, Int32Array, N === 0);
    run.op = typed(sl.op, where + ': slices.op', N, Int32Array, true);
    run.node = typed(sl.node, where + ': slices.node', N, Int32Array, true);
    run.kind = typed(sl.kind, where + ': slices.kind', N, Uint8Array, true);
    run.bytes = typed(sl.bytes, where + ': slices.bytes', N, Float64Array, true);
    checkIndex(run.row, R, where + ': slices.row');
    checkIndex(run.name, S, where + ': slices.name');
    checkIndex(run.op, S, where + ': slices.op');
    checkIndex(run.node, S, where + ': slices.node');
    var start = run.start, dur = run.dur, row = run.row;
    var end = run.end = new Float64Array(N);
    var tMin = 0, tMax = 0, sorted = true;
    for (var i = 0; i < N; i++) {
      var s = start[i], d = dur[i];
      if (!isFinite(s)) throw DataError(where + ': slices.start[' + i + '] is not a number.');
      if (!(d >= 0) || !isFinite(d)) { d = 0; dur[i] = 0; }
      end[i] = s + d;
      if (s < tMin) tMin = s;
      if (s + d > tMax) tMax = s + d;
      if (i > 0 && (row[i] < row[i - 1] || (row[i] === row[i - 1] && s < start[i - 1]))) sorted = false;
    }
    var du = Number(raw.duration_us);
    if (isFinite(du) && du > tMax) tMax = du;
    if (!(tMax > tMin)) tMax = tMin + 1;
    run.tMin = tMin; run.tMax = tMax;
    run.origin = Number(raw.origin_us) || 0;
    run.duration = isFinite(du) ? du : tMax - tMin;

    /* Slices by row, then start: identity when the data comes sorted (it should). */
    var order = null;
    if (!sorted) {
      order = new Int32Array(N);
      for (i = 0; i < N; i++) order[i] = i;
      order.sort(function (a, b) { return row[a] - row[b] || start[a] - start[b] || a - b; });
    }
    run.order = order;
    var rowLo = run.rowLo = new Int32Array(R + 1);
    for (i = 0; i < N; i++) rowLo[row[i] + 1]++;
    for (i = 0; i < R; i++) rowLo[i + 1] += rowLo[i];
    /* Running maximum of ends along each row, to binary-search the first slice that reaches t. */
    var maxEnd = run.maxEnd = new Float64Array(N);
    for (var r = 0; r < R; r++) {
      var m = -Infinity;
      for (var p = rowLo[r]; p < rowLo[r + 1]; p++) {
        var e = end[order ? order[p] : p];
        if (e > m) m = e;
        maxEnd[p] = m;
      }
    }

    /* Arrows, and who points at whom (CSR). */
    var ar = raw.arrows || {};
    var M = Array.isArray(ar.from) ? ar.from.length : 0;
    var from = typed(ar.from, where + ': arrows.from', M, Int32Array, M === 0);
    var to = typed(ar.to, where + ': arrows.to', M, Int32Array, M === 0);
    var akind = typed(ar.kind, where + ': arrows.kind', M, Uint8Array, true);
    var tensor = typed(ar.tensor, where + ': arrows.tensor', M, Int32Array, true);
    checkIndex(from, N, where + ': arrows.from');
    checkIndex(to, N, where + ': arrows.to');
    checkIndex(tensor, S, where + ': arrows.tensor');
    run.m = M;
    run.aFrom = from; run.aTo = to; run.aKind = akind; run.aTensor = tensor;
    var inLo = run.inLo = new Int32Array(N + 1), outLo = run.outLo = new Int32Array(N + 1);
    for (i = 0; i < M; i++) { inLo[to[i] + 1]++; outLo[from[i] + 1]++; }
    for (i = 0; i < N; i++) { inLo[i + 1] += inLo[i]; outLo[i + 1] += outLo[i]; }
    var inA = run.inA = new Int32Array(M), outA = run.outA = new Int32Array(M);
    var fi = inLo.slice(0, N), fo = outLo.slice(0, N);
    for (i = 0; i < M; i++) { inA[fi[to[i]]++] = i; outA[fo[from[i]]++] = i; }

    /* Time per op, for the colour legend. */
    var opTime = new Float64Array(S), opCount = new Int32Array(S);
    for (i = 0; i < N; i++) { opTime[run.op[i]] += dur[i]; opCount[run.op[i]]++; }
    var ops = [];
    for (i = 1; i < S; i++) if (opCount[i]) ops.push(i);
    ops.sort(function (a, b) { return opTime[b] - opTime[a]; });
    run.topOps = ops.slice(0, 12).map(function (s) { return { s: s, time: opTime[s], count: opCount[s] }; });
    run.opKinds = ops.length;

    run.colours = new Array(S);
    run.lower = null;
    run.memory = Array.isArray(raw.memory) ? raw.memory.filter(function (m) { return m && typeof m === 'object'; }) : [];
    run.tables = raw.tables && typeof raw.tables === 'object' ? raw.tables : {};
    run.critical = raw.critical_path && Array.isArray(raw.critical_path.slices) ? raw.critical_path : null;
    if (run.critical) run.critical = {
      slices: run.critical.slices.filter(function (v) { return v >= 0 && v < N; }),
      length_us: Number(run.critical.length_us) || 0
    };
    run.idle = Array.isArray(raw.idle) ? raw.idle : [];
    run.graph = graphOf(raw, k);
    run.graphSkipped = raw.graph && typeof raw.graph.skipped === 'string' ? raw.graph.skipped : null;
    var gref = raw.graph && typeof raw.graph.run === 'number' && data.runs[raw.graph.run] ? data.runs[raw.graph.run].graph : raw.graph;
    run.graphView = !run.graph && gref && gref.data && window.TftraceGraph ? TftraceGraph.view(gref.data) : null; /* graphview.js */
    run.collapsed = Object.create(null);
    return run;
  }

  /* "graph": {"svg": ...}, or {"run": K}: the same graphs as run K (an earlier one) */
  function graphOf(raw, k) {
    var g = raw.graph;
    if (g && typeof g.svg === 'string') return g.svg;
    if (g && typeof g.run === 'number' && g.run !== k && g.run >= 0 && g.run < data.runs.length) {
      var o = data.runs[g.run];
      if (o && o.graph && typeof o.graph.svg === 'string') return o.graph.svg;
    }
    return null;
  }

  function colour(run, i) {
    var s = run.op[i];
    var c = run.colours[s];
    if (c === undefined) c = run.colours[s] = colourOf(run.strings[s]);
    return c;
  }
  function str(run, s) { return run.strings[s] || ''; }
  function sliceName(run, i) { return str(run, run.name[i]) || str(run, run.node[i]) || str(run, run.op[i]) || '(unnamed)'; }
  var SLICE_KINDS = ['op', 'GPU kernel', 'memcpy', 'other'];
  var ARROW_KINDS = ['data', 'send/recv', 'launch'];
  function rowLabel(r) { return r.track || r.kind || '(main)'; }
  function shortDevice(d) {
    var s = d.replace(/^\/job:[^/]*\/replica:[^/]*\/task:[^/]*/, '').replace(/^\/device:/, '');
    return s || d || '(no device)';
  }

  /* ---------- global state ---------- */

  var data = null;
  var runs = [];
  var run = null;            /* the shown run */
  var activeTab = 'timeline';

  /* ---------- timeline ---------- */

  var ROW_H = 18, HEAD_H = 22, AXIS_H = 26, LABEL_W = 210;
  var tl = {
    canvas: null, ctx: null, scroll: null, spacer: null,
    w: 0, h: 0, dpr: 1,
    t0: 0, t1: 1,
    rowY: null, rowShown: null, heads: [], contentH: 0,
    sel: -1, hover: -1, hl: null, marker: null,
    raf: 0, charW: 6.2, range: null,
    search: { q: '', list: null }
  };

  function layoutRows() {
    var R = run.rows.length;
    var rowY = tl.rowY = new Float64Array(R);
    var shown = tl.rowShown = new Uint8Array(R);
    var heads = tl.heads = [];
    var single = tl.rowSingle = new Uint8Array(R);
    var y = 4, h = null;
    for (var r = 0; r < R; r++) {
      var dev = run.rows[r].device;
      if (!h || dev !== h.device) {
        var n = 1;
        while (r + n < R && run.rows[r + n].device === dev) n++;
        if (n === 1) {
          /* a device with one row (a GPU stream, say) gets no header band of its own */
          h = { device: dev, y: y, hh: 0, first: r, count: 1, collapsed: false, single: true };
          heads.push(h);
          rowY[r] = y + 2; shown[r] = 1; single[r] = 1;
          y += ROW_H + 4;
          continue;
        }
        h = { device: dev, y: y, hh: HEAD_H, first: r, count: 0, collapsed: !!run.collapsed[dev], single: false };
        heads.push(h);
        y += HEAD_H;
      }
      h.count++;
      if (h.collapsed) { rowY[r] = h.y + (HEAD_H - ROW_H) / 2; shown[r] = 0; }
      else { rowY[r] = y; shown[r] = 1; y += ROW_H; }
    }
    tl.contentH = y + 8;
    sizeTimeline();
  }

  function sizeTimeline() {
    var sc = tl.scroll;
    var w = sc.clientWidth, h = sc.clientHeight;
    if (!w && tl.w) { w = tl.w; h = tl.h; }    /* hidden (another tab): keep the last size */
    if (w < 50) w = 50;
    if (h < 60) h = 60;
    var dpr = window.devicePixelRatio || 1;
    if (w !== tl.w || h !== tl.h || dpr !== tl.dpr) {
      tl.w = w; tl.h = h; tl.dpr = dpr;
      tl.canvas.style.width = w + 'px';
      tl.canvas.style.height = h + 'px';
      tl.canvas.width = Math.round(w * dpr);
      tl.canvas.height = Math.round(h * dpr);
    }
    tl.spacer.style.height = Math.max(0, AXIS_H + tl.contentH - h) + 'px';
  }

  function plotW() { return Math.max(10, tl.w - LABEL_W); }
  function tOf(x) { return tl.t0 + (x - LABEL_W) * (tl.t1 - tl.t0) / plotW(); }
  function yOfRow(r) { return AXIS_H + tl.rowY[r] - tl.scroll.scrollTop; }

  function setView(t0, t1) {
    var full = run.tMax - run.tMin;
    var span = t1 - t0;
    if (!(span > 0) || !isFinite(span)) { t0 = run.tMin; t1 = run.tMax; span = t1 - t0; }
    var minSpan = 1e-3, maxSpan = full * 1.5;
    if (span < minSpan) { var c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; span = minSpan; }
    if (span > maxSpan) { c = (t0 + t1) / 2; t0 = c - maxSpan / 2; t1 = c + maxSpan / 2; span = maxSpan; }
    var lo = run.tMin - span * 0.5, hi = run.tMax + span * 0.5;
    if (t0 < lo) { t0 = lo; t1 = lo + span; }
    if (t1 > hi) { t1 = hi; t0 = hi - span; }
    tl.t0 = t0; tl.t1 = t1;
    noteView();
    redraw();
  }
  function noteView() { html.setAttribute('data-view-us', +tl.t0.toFixed(3) + ' ' + +tl.t1.toFixed(3)); }
  function resetView() {
    var pad = (run.tMax - run.tMin) * 0.01;
    setView(run.tMin - pad, run.tMax + pad);
  }
  function zoomAt(x, factor) {
    var t = tOf(clamp(x, LABEL_W, tl.w));
    setView(t - (t - tl.t0) * factor, t + (tl.t1 - t) * factor);
  }
  function panPx(dx) {
    var d = dx * (tl.t1 - tl.t0) / plotW();
    setView(tl.t0 + d, tl.t1 + d);
  }
  function fitRange(a, b) {
    if (b - a < 1) { var c = (a + b) / 2; a = c - 0.5; b = c + 0.5; }
    var m = (b - a) * 0.08;
    setView(a - m, b + m);
  }

  function redraw() {
    if (!tl.raf) tl.raf = requestAnimationFrame(function () { tl.raf = 0; drawTimeline(); });
  }

  /* First position in row r whose slice reaches time t (ends at or after t). */
  function firstReaching(r, t) {
    var a = run.rowLo[r], b = run.rowLo[r + 1], me = run.maxEnd;
    while (a < b) { var m = (a + b) >> 1; if (me[m] < t) a = m + 1; else b = m; }
    return a;
  }
  function firstRowAt(cy) {
    /* last row whose top is <= cy (rowY is non-decreasing) */
    var ry = tl.rowY, a = 0, b = ry.length;
    while (a < b) { var m = (a + b) >> 1; if (ry[m] + ROW_H <= cy) a = m + 1; else b = m; }
    return a;
  }

  function truncText(s, px) {
    var n = Math.floor(px / tl.charW);
    if (n <= 1) return '';
    if (s.length <= n) return s;
    return s.slice(0, n - 1) + '\u2026';
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
  function tickLabel(t, step) {
    var div = 1, unit = MU + 's';
    if (step >= 1e5) { div = 1e6; unit = 's'; }
    else if (step >= 100) { div = 1e3; unit = 'ms'; }
    else if (step < 0.1) { div = 1e-3; unit = 'ns'; }
    var dec = Math.max(0, Math.ceil(-Math.log10(step / div) - 1e-9));
    var v = t / div;
    if (Math.abs(v) < 1e-12) v = 0;
    return v.toFixed(Math.min(dec, 6)) + ' ' + unit;
  }

  function drawTimeline() {
    if (!run) return 0;
    var began = performance.now();
    var ctx = tl.ctx, W = tl.w, H = tl.h, dpr = tl.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, W, H);
    var t0 = tl.t0, t1 = tl.t1, PW = plotW(), k = PW / (t1 - t0);
    var X0 = LABEL_W;
    var scrollTop = tl.scroll.scrollTop;
    var rowY = tl.rowY, shown = tl.rowShown, R = rowY.length;
    var rFirst = firstRowAt(scrollTop - 2);
    var yLimit = scrollTop + H - AXIS_H + 2;

    /* grid */
    var step = niceStep((t1 - t0) / Math.max(1, PW / 110));
    var tick0 = Math.ceil(t0 / step) * step;
    ctx.fillStyle = '#eef0f4';
    /* ticks by count, not by sum: t += step may not move t when t >> step */
    for (var tn = 0, t = tick0; t <= t1 && tn < 400; t = tick0 + ++tn * step) {
      var gx = Math.round(X0 + (t - t0) * k);
      ctx.fillRect(gx, AXIS_H, 1, H - AXIS_H);
    }

    /* run bounds: shade outside [tMin, tMax] */
    ctx.fillStyle = '#f7f8fa';
    var xa = X0 + (run.tMin - t0) * k, xb = X0 + (run.tMax - t0) * k;
    if (xa > X0) ctx.fillRect(X0, AXIS_H, xa - X0, H - AXIS_H);
    if (xb < W) ctx.fillRect(Math.max(X0, xb), AXIS_H, W - Math.max(X0, xb), H - AXIS_H);

    ctx.save();
    ctx.beginPath();
    ctx.rect(X0, AXIS_H, W - X0, H - AXIS_H);
    ctx.clip();

    var order = run.order, start = run.start, end = run.end, rowLo = run.rowLo;
    var hl = tl.hl;
    var rects = 0, q = 0;
    var labels = [];
    ctx.globalAlpha = hl ? 0.28 : 1;
    var lastFill = '';
    /* rows: separators and slices */
    for (var r = rFirst; r < R; r++) {
      var ry = rowY[r];
      if (ry > yLimit) break;
      if (!shown[r]) continue;
      var y = AXIS_H + ry - scrollTop;
      ctx.fillStyle = '#f1f3f6'; lastFill = '';
      ctx.fillRect(X0, y + ROW_H - 1, W - X0, 1);
      var hi = rowLo[r + 1];
      var pX0 = 0, pX1 = 0, pCol = null;
      for (var p = firstReaching(r, t0); p < hi; p++) {
        var i = order ? order[p] : p;
        var s = start[i];
        if (s > t1) break;
        var e = end[i];
        if (e < t0) continue;
        var x0 = X0 + (s - t0) * k, x1 = X0 + (e - t0) * k;
        if (x0 < X0 - 2) x0 = X0 - 2;
        if (x1 > W + 2) x1 = W + 2;
        var col = colour(run, i);
        if (x1 - x0 < 1) {
          if (pCol !== null && x0 <= Math.max(pX1, pX0 + 1) + 0.5) {
            if (x1 > pX1) pX1 = x1;
            continue;
          }
          if (pCol !== null) {
            if (pCol !== lastFill) { ctx.fillStyle = lastFill = pCol; }
            ctx.fillRect(pX0, y + 2, Math.max(1, pX1 - pX0), ROW_H - 4); rects++;
          }
          pX0 = x0; pX1 = x1; pCol = col;
          continue;
        }
        if (pCol !== null) {
          if (pCol !== lastFill) { ctx.fillStyle = lastFill = pCol; }
          ctx.fillRect(pX0, y + 2, Math.max(1, pX1 - pX0), ROW_H - 4); rects++;
          pCol = null;
        }
        if (col !== lastFill) { ctx.fillStyle = lastFill = col; }
        /* a 1 px gap after a wide slice keeps same-coloured neighbours apart */
        ctx.fillRect(x0, y + 2, x1 - x0 >= 4 ? x1 - x0 - 1 : x1 - x0, ROW_H - 4); rects++;
        if (!hl && x1 - x0 > 34) labels.push(i, x0, x1, y);
      }
      if (pCol !== null) {
        if (pCol !== lastFill) { ctx.fillStyle = lastFill = pCol; }
        ctx.fillRect(pX0, y + 2, Math.max(1, pX1 - pX0), ROW_H - 4); rects++;
      }
    }
    ctx.globalAlpha = 1;

    /* highlighted slices, on top, at least 2 px wide; narrow neighbours merged as above */
    if (hl) {
      var list = hl.list, curRow = -1, skipRow = true, hy = 0;
      var qX0 = 0, qX1 = 0, qCol = null;
      ctx.strokeStyle = '#c77700';
      ctx.lineWidth = 1;
      for (q = 0; q <= list.length; q++) {
        i = q < list.length ? list[q] : -1;
        r = i >= 0 ? run.row[i] : -1;
        if (r !== curRow) {
          if (qCol !== null) {
            ctx.fillStyle = qCol;
            ctx.fillRect(qX0, hy + 2, qX1 - qX0, ROW_H - 4);
            ctx.strokeRect(qX0 + 0.5, hy + 2.5, Math.max(1, qX1 - qX0 - 1), ROW_H - 5);
            qCol = null;
          }
          if (i < 0) break;
          curRow = r;
          ry = rowY[r];
          skipRow = !shown[r] || ry + ROW_H < scrollTop || ry > yLimit;
          hy = AXIS_H + ry - scrollTop;
        }
        if (skipRow) continue;
        s = start[i]; e = end[i];
        if (e < t0 || s > t1) continue;
        x0 = Math.max(X0 - 2, X0 + (s - t0) * k); x1 = Math.min(W + 2, X0 + (e - t0) * k);
        col = colour(run, i);
        if (x1 - x0 < 2) {
          var c = (x0 + x1) / 2;
          x0 = c - 1; x1 = c + 1;
          if (qCol !== null && x0 <= qX1 + 0.5) { if (x1 > qX1) qX1 = x1; continue; }
        }
        if (qCol !== null) {
          ctx.fillStyle = qCol;
          ctx.fillRect(qX0, hy + 2, qX1 - qX0, ROW_H - 4);
          ctx.strokeRect(qX0 + 0.5, hy + 2.5, Math.max(1, qX1 - qX0 - 1), ROW_H - 5);
          qCol = null;
        }
        if (x1 - x0 <= 2) { qX0 = x0; qX1 = x1; qCol = col; continue; }
        ctx.fillStyle = col;
        ctx.fillRect(x0, hy + 2, x1 - x0, ROW_H - 4);
        ctx.strokeRect(x0 + 0.5, hy + 2.5, Math.max(1, x1 - x0 - 1), ROW_H - 5);
        if (x1 - x0 > 34) labels.push(i, x0, x1, hy);
      }
    }

    /* names on the wide slices */
    ctx.font = '11px ' + FONT;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#1d2230';
    for (q = 0; q < labels.length; q += 4) {
      i = labels[q];
      var lx0 = Math.max(labels[q + 1], X0), lx1 = Math.min(labels[q + 2], W);
      var txt = truncText(sliceName(run, i), lx1 - lx0 - 8);
      if (txt) ctx.fillText(txt, lx0 + 4, labels[q + 3] + ROW_H / 2 + 0.5);
    }

    /* selection, hover, arrows, critical path links */
    if (hl && hl.path) drawPath(ctx, hl.list0);
    if (tl.sel >= 0) drawSelection(ctx, tl.sel); else noteSelection(-1, 0);
    if (tl.hover >= 0 && tl.hover !== tl.sel) outline(ctx, tl.hover, '#3a4255', 1);
    if (tl.marker !== null) {
      var mx = X0 + (tl.marker - t0) * k;
      ctx.strokeStyle = '#d6336c'; ctx.lineWidth = 1; ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(Math.round(mx) + 0.5, AXIS_H); ctx.lineTo(Math.round(mx) + 0.5, H); ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.restore();

    /* device headers (full width) and row labels */
    ctx.fillStyle = '#fbfbfc';
    ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
    ctx.textBaseline = 'middle';
    for (r = rFirst; r < R; r++) {
      ry = rowY[r];
      if (ry > yLimit) break;
      if (!shown[r]) continue;
      y = AXIS_H + ry - scrollTop;
      ctx.fillStyle = '#eef0f3';
      ctx.fillRect(0, y + ROW_H - 1, LABEL_W, 1);
      var row = run.rows[r];
      if (tl.rowSingle[r]) {
        ctx.fillStyle = '#22283a';
        ctx.font = '600 11.5px ' + FONT;
        ctx.fillText(truncText(shortDevice(row.device) + (row.track ? ' \u00b7 ' + row.track : ''), LABEL_W - 16), 6, y + ROW_H / 2 + 0.5);
      } else {
        ctx.fillStyle = '#4a5163';
        ctx.font = '11.5px ' + FONT;
        ctx.fillText(truncText(rowLabel(row), LABEL_W - 30), 18, y + ROW_H / 2 + 0.5);
      }
    }
    var heads = tl.heads;
    for (var hIx = 0; hIx < heads.length; hIx++) {
      var hd = heads[hIx];
      if (hd.y > yLimit) break;
      if (hd.y + HEAD_H < scrollTop - 2) continue;
      y = AXIS_H + hd.y - scrollTop;
      if (hd.single) {
        ctx.fillStyle = '#dde1e8';
        ctx.fillRect(0, y, W, 1);
        continue;
      }
      ctx.fillStyle = '#f0f2f6';
      ctx.fillRect(0, y, W, HEAD_H);
      ctx.fillStyle = '#dde1e8';
      ctx.fillRect(0, y + HEAD_H - 1, W, 1);
      ctx.fillStyle = '#22283a';
      ctx.font = '600 12px ' + FONT;
      var caret = hd.collapsed ? '\u25b8 ' : '\u25be ';
      var extra = hd.collapsed ? '   (' + hd.count + (hd.count === 1 ? ' row folded)' : ' rows folded)') : '';
      ctx.fillText(caret + (hd.device || '(no device)') + extra, 6, y + HEAD_H / 2 + 0.5);
    }
    ctx.fillStyle = '#dfe2e7';
    ctx.fillRect(LABEL_W - 1, AXIS_H, 1, H - AXIS_H);

    /* time axis */
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, W, AXIS_H);
    ctx.fillStyle = '#dfe2e7';
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    ctx.font = '11px ' + FONT;
    ctx.textBaseline = 'middle';
    for (tn = 0, t = tick0; t <= t1 && tn < 400; t = tick0 + ++tn * step) {
      gx = Math.round(X0 + (t - t0) * k);
      if (gx < X0) continue;
      ctx.fillStyle = '#b5bbc6';
      ctx.fillRect(gx, AXIS_H - 7, 1, 6);
      ctx.fillStyle = '#5b6275';
      ctx.fillText(tickLabel(t, step), gx + 3, AXIS_H / 2 - 1);
    }
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, LABEL_W, AXIS_H - 1);
    ctx.fillStyle = '#687083';
    ctx.font = '11px ' + FONT;
    ctx.fillText('view ' + fmtUs(t1 - t0) + ' of ' + fmtUs(run.tMax - run.tMin), 8, AXIS_H / 2 - 1);
    if (tl.range) {
      var ra = Math.min(tl.range[0], tl.range[1]), rb = Math.max(tl.range[0], tl.range[1]);
      ctx.fillStyle = 'rgba(47,98,214,0.12)';
      ctx.fillRect(ra, 0, rb - ra, H);
      ctx.fillStyle = '#2f62d6';
      ctx.fillRect(Math.round(ra), 0, 1, H);
      ctx.fillRect(Math.round(rb), 0, 1, H);
      var rl = fmtUs((rb - ra) * (t1 - t0) / PW);
      ctx.font = '600 11px ' + FONT;
      ctx.fillText(rl, Math.min(rb + 4, W - ctx.measureText(rl).width - 4), AXIS_H / 2 - 1);
    }
    if (run.n === 0) {
      ctx.fillStyle = '#687083';
      ctx.font = '13px ' + FONT;
      ctx.fillText('This run has no slices.', X0 + 20, AXIS_H + 40);
    }
    html.setAttribute('data-last-draw-ms', (performance.now() - began).toFixed(1));
    return rects;
  }
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

  function sliceBox(i) {
    var r = run.row[i];
    var k = plotW() / (tl.t1 - tl.t0);
    var x0 = LABEL_W + (run.start[i] - tl.t0) * k, x1 = LABEL_W + (run.end[i] - tl.t0) * k;
    if (x1 - x0 < 2) { var c = (x0 + x1) / 2; x0 = c - 1; x1 = c + 1; }
    return { x0: clamp(x0, -1e6, 1e6), x1: clamp(x1, -1e6, 1e6), y: yOfRow(r), shown: tl.rowShown[r] };
  }
  function outline(ctx, i, colourS, width) {
    var b = sliceBox(i);
    var y = b.shown ? b.y + 2 : b.y + (ROW_H - 8) / 2, h = b.shown ? ROW_H - 4 : 8;
    ctx.strokeStyle = colourS; ctx.lineWidth = width; ctx.setLineDash([]);
    ctx.strokeRect(b.x0 - width / 2, y - width / 2, b.x1 - b.x0 + width, h + width);
  }
  var ARROW_STYLE = [
    { c: '#34405e', dash: [] },
    { c: '#d9480f', dash: [6, 4] },
    { c: '#7048e8', dash: [2, 3] }
  ];
  function drawArrow(ctx, a, b, kind) {
    var st = ARROW_STYLE[kind] || ARROW_STYLE[0];
    var x1 = a.x1, y1 = a.y + ROW_H / 2, x2 = b.x0, y2 = b.y + ROW_H / 2;
    var dx = Math.max(24, Math.abs(x2 - x1) * 0.4);
    if (Math.abs(y2 - y1) < 1 && x2 >= x1) dx = (x2 - x1) / 3;
    ctx.strokeStyle = st.c; ctx.fillStyle = st.c;
    ctx.lineWidth = 1.5; ctx.setLineDash(st.dash);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.bezierCurveTo(x1 + dx, y1, x2 - dx, y2, x2 - 1, y2);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath();
    ctx.moveTo(x2, y2); ctx.lineTo(x2 - 7, y2 - 3.5); ctx.lineTo(x2 - 7, y2 + 3.5);
    ctx.closePath(); ctx.fill();
    ctx.beginPath(); ctx.arc(x1, y1, 2, 0, 2 * Math.PI); ctx.fill();
  }
  /* For tests: the selected slice's node and the arrows drawn for it. */
  function noteSelection(i, arrows) {
    if (i < 0) {
      html.removeAttribute('data-selected');
      html.removeAttribute('data-selected-arrows');
      return;
    }
    html.setAttribute('data-selected', str(run, run.node[i]));
    html.setAttribute('data-selected-arrows', String(arrows));
  }
  function drawSelection(ctx, i) {
    var me = sliceBox(i);
    var j, a, n = 0;
    for (j = run.inLo[i]; j < run.inLo[i + 1]; j++, n++) {
      a = run.inA[j];
      outline(ctx, run.aFrom[a], '#6b7385', 1);
      drawArrow(ctx, sliceBox(run.aFrom[a]), me, run.aKind[a]);
    }
    for (j = run.outLo[i]; j < run.outLo[i + 1]; j++, n++) {
      a = run.outA[j];
      outline(ctx, run.aTo[a], '#6b7385', 1);
      drawArrow(ctx, me, sliceBox(run.aTo[a]), run.aKind[a]);
    }
    outline(ctx, i, '#11151f', 2);
    noteSelection(i, n);
  }
  function drawPath(ctx, path) {
    ctx.strokeStyle = '#c77700'; ctx.lineWidth = 1.5; ctx.setLineDash([]);
    for (var q = 1; q < path.length; q++) {
      var a = sliceBox(path[q - 1]), b = sliceBox(path[q]);
      var x1 = a.x1, y1 = a.y + ROW_H / 2, x2 = b.x0, y2 = b.y + ROW_H / 2;
      if (Math.max(x1, x2) < LABEL_W || Math.min(x1, x2) > tl.w) continue;
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    }
  }

  /* What is under (x, y) on the canvas: {head} or {slice} or null. */
  function hitTest(x, y) {
    if (y < AXIS_H) return null;
    var cy = y - AXIS_H + tl.scroll.scrollTop;
    var heads = tl.heads;
    for (var a = 0, b = heads.length; a < b;) {
      var m = (a + b) >> 1;
      if (heads[m].y + heads[m].hh <= cy) a = m + 1; else b = m;
    }
    if (a < heads.length && heads[a].y <= cy && cy < heads[a].y + heads[a].hh) return { head: heads[a] };
    var r = firstRowAt(cy);
    while (r < tl.rowY.length && !tl.rowShown[r] && tl.rowY[r] <= cy) r++;
    if (r >= tl.rowY.length || !tl.rowShown[r] || tl.rowY[r] > cy || cy >= tl.rowY[r] + ROW_H) return null;
    if (x < LABEL_W) return { row: r, label: true };
    var k = plotW() / (tl.t1 - tl.t0);
    var t = tOf(x), tol = 3 / k;
    var best = -1, bestD = Infinity, bestDur = Infinity;
    var order = run.order, hi = run.rowLo[r + 1];
    for (var p = firstReaching(r, t - tol); p < hi; p++) {
      var i = order ? order[p] : p;
      var s = run.start[i];
      if (s > t + tol) break;
      var e = run.end[i];
      if (e < t - tol) continue;
      var d = t < s ? s - t : t > e ? t - e : 0;
      if (d < bestD || (d === bestD && run.dur[i] < bestDur)) { best = i; bestD = d; bestDur = run.dur[i]; }
    }
    return best >= 0 ? { slice: best, row: r } : { row: r };
  }

  /* Brings slice i on screen: unfolds its device, scrolls to its row, zooms when needed. */
  function reveal(i, fit) {
    var r = run.row[i];
    var dev = run.rows[r].device;
    if (run.collapsed[dev]) { delete run.collapsed[dev]; layoutRows(); }
    var sc = tl.scroll, y = tl.rowY[r];
    var vis = sc.clientHeight - AXIS_H;
    if (y < sc.scrollTop + 4 || y + ROW_H > sc.scrollTop + vis - 4) sc.scrollTop = Math.max(0, y - vis / 2);
    var s = run.start[i], e = run.end[i], span = tl.t1 - tl.t0;
    if (fit) {
      var a = s, b = e;
      if (fit === 'arrows') {
        for (var j = run.inLo[i]; j < run.inLo[i + 1]; j++) a = Math.min(a, run.start[run.aFrom[run.inA[j]]]);
        for (j = run.outLo[i]; j < run.outLo[i + 1]; j++) b = Math.max(b, run.end[run.aTo[run.outA[j]]]);
      }
      fitRange(a, b);
    } else if (s < tl.t0 || e > tl.t1) {
      /* off screen: centre it at the present zoom, or show all of it when it is longer */
      if (e - s <= span * 0.9) setView((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
      else fitRange(s, e);
    }
    redraw();
  }

  function select(i, how) {
    tl.sel = i;
    renderDetails();
    if (i >= 0 && how) reveal(i, how === 'arrows' ? 'arrows' : how === 'fit' ? 'fit' : false);
    markGraphNode(i >= 0 ? str(run, run.node[i]) : '');
    redraw();
  }

  function setHighlight(label, indices, opts) {
    if (!indices || !indices.length) { clearHighlight(); return; }
    var N = run.n, set = new Uint8Array(N), list0 = [];
    for (var q = 0; q < indices.length; q++) {
      var i = indices[q];
      if (i >= 0 && i < N && !set[i]) { set[i] = 1; list0.push(i); }
    }
    /* drawn in row/start order so later rows paint over nothing of earlier ones */
    var list = Int32Array.from(list0).sort();
    tl.hl = { label: label, set: set, list: list, list0: list0, path: !!(opts && opts.path), source: opts && opts.source };
    $('tl-chip').hidden = false;
    $('tl-chip-text').textContent = label + ' \u00b7 ' + list0.length + (list0.length === 1 ? ' slice' : ' slices');
    redraw();
    syncCritButton();
  }
  function clearHighlight() {
    tl.hl = null;
    $('tl-chip').hidden = true;
    redraw();
    syncCritButton();
  }
  function showOnTimeline(indices, label, opts) {
    if (!indices.length) return;
    setHighlight(label, indices, opts);
    var a = Infinity, b = -Infinity;
    for (var q = 0; q < indices.length; q++) {
      a = Math.min(a, run.start[indices[q]]); b = Math.max(b, run.end[indices[q]]);
    }
    showTab('timeline');
    var first = indices[0];
    select(first, false);
    reveal(first, false);
    fitRange(a, b);
  }

  /* ---------- details panel ---------- */

  function kv(k, v) { return '<dt>' + esc(k) + '</dt><dd>' + v + '</dd>'; }
  function sliceLink(i) {
    return '<a data-slice="' + i + '">' + esc(sliceName(run, i)) + '</a>';
  }
  function renderDetails() {
    var box = $('details');
    var i = tl.sel;
    if (!run) { box.innerHTML = ''; return; }
    if (i < 0) {
      var h = '<h2>' + esc(run.label) + '</h2><div class="sub">' + esc(fmtUs(run.duration)) + ' \u00b7 ' +
        fmtNum(run.n) + ' slices \u00b7 ' + fmtNum(run.rows.length) + ' rows \u00b7 ' + fmtNum(run.m) + ' arrows</div>' +
        '<p class="hint">Click a slice to see what it is, what it read and who read it; its arrows are drawn on the timeline.</p>';
      if (run.topOps.length) {
        h += '<h3>Ops by time</h3><ul class="links">';
        run.topOps.forEach(function (o) {
          /* the figures float first, so a long name wraps beside them, not under */
          h += '<li><span style="float:right;color:#687083;margin-left:8px">' +
            esc(fmtUs(o.time)) + ' \u00b7 ' + fmtNum(o.count) + '\u00d7</span>' +
            '<span class="swatch" style="background:' + colourOf(run.strings[o.s]) + '"></span>' +
            '<a data-op="' + o.s + '" style="overflow-wrap:anywhere">' + esc(run.strings[o.s]) + '</a></li>';
        });
        if (run.opKinds > run.topOps.length) h += '<li class="hint">and ' + (run.opKinds - run.topOps.length) + ' more op types</li>';
        h += '</ul>';
      }
      box.innerHTML = h;
      return;
    }
    var r = run.rows[run.row[i]];
    var html2 = '<h2>' + esc(sliceName(run, i)) + '</h2><div class="sub"><span class="swatch" style="background:' +
      colour(run, i) + '"></span>' + esc(str(run, run.op[i]) || 'no op') + ' \u00b7 ' + esc(SLICE_KINDS[run.kind[i]] || 'other') + '</div>';
    html2 += '<dl class="kv">' +
      kv('Node', esc(str(run, run.node[i]) || '\u2014')) +
      kv('Op', esc(str(run, run.op[i]) || '\u2014')) +
      kv('Device', esc(r.device || '\u2014')) +
      kv('Track', esc(rowLabel(r)) + (r.kind ? ' <span class="hint">(' + esc(r.kind) + ')</span>' : '')) +
      kv('Start', esc(fmtUs(run.start[i]))) +
      kv('End', esc(fmtUs(run.end[i]))) +
      kv('Duration', '<b>' + esc(fmtUs(run.dur[i])) + '</b>') +
      kv('Bytes', run.bytes[i] ? esc(fmtBytes(run.bytes[i])) + ' <span class="hint">(' + fmtNum(run.bytes[i]) + ')</span>' : '\u2014') +
      '</dl>';
    html2 += linkList('Inputs', run.inLo[i], run.inLo[i + 1], run.inA, run.aFrom);
    html2 += linkList('Consumers', run.outLo[i], run.outLo[i + 1], run.outA, run.aTo);
    html2 += '<p style="margin-top:14px"><a class="lnk" data-fit="' + i + '">Zoom to this slice</a> \u00b7 ' +
      '<a class="lnk" data-fitall="' + i + '">and its arrows</a></p>';
    box.innerHTML = html2;
  }
  function linkList(title, lo, hi, idx, other) {
    var n = hi - lo;
    var h = '<h3>' + title + ' (' + n + ')</h3>';
    if (!n) return h + '<div class="hint">none</div>';
    h += '<ul class="links">';
    var lim = Math.min(hi, lo + 200);
    for (var j = lo; j < lim; j++) {
      var a = idx[j], o = other[a], kind = run.aKind[a];
      var tn = str(run, run.aTensor[a]);
      h += '<li><span class="kind kind-' + (kind < 3 ? kind : 0) + '">' + esc(ARROW_KINDS[kind] || 'arrow') + '</span>' +
        sliceLink(o) + ' <span class="hint">' + esc(fmtUs(run.dur[o])) + '</span>' +
        (tn ? '<span class="t">' + esc(tn) + '</span>' : '') + '</li>';
    }
    if (hi > lim) h += '<li class="hint">and ' + (hi - lim) + ' more</li>';
    return h + '</ul>';
  }

  /* ---------- search ---------- */

  function lowerStrings() {
    if (!run.lower) run.lower = run.strings.map(function (s) { return s.toLowerCase(); });
    return run.lower;
  }
  function runSearch(q) {
    var S = tl.search;
    S.q = q; S.list = null;
    if (!q) {
      $('tl-found').textContent = '';
      if (tl.hl && tl.hl.source === 'search') clearHighlight();
      return;
    }
    var low = lowerStrings(), ql = q.toLowerCase();
    var hit = new Uint8Array(low.length);
    for (var s = 1; s < low.length; s++) if (low[s].indexOf(ql) >= 0) hit[s] = 1;
    var out = [];
    for (var i = 0; i < run.n; i++) if (hit[run.name[i]] || hit[run.node[i]]) out.push(i);
    S.list = out;
    $('tl-found').textContent = out.length ? out.length + ' found' : 'none found';
    if (out.length) setHighlight('\u201c' + q + '\u201d', out, { source: 'search' });
    else if (tl.hl && tl.hl.source === 'search') clearHighlight();
  }
  /* Enter: the match that starts next after the selected slice (or the view's start), in time
   * order across all rows; Shift+Enter: the one before.  Linear in the matches, no sort. */
  function searchStep(dir) {
    var S = tl.search, L = S.list;
    if (!L || !L.length) return;
    var st = run.start, cs, ci;
    if (tl.sel >= 0) { cs = st[tl.sel]; ci = tl.sel; }
    else { cs = dir > 0 ? tl.t0 : tl.t1; ci = dir > 0 ? -1 : run.n; }
    var best = -1, wrap = -1, q, i, s;
    for (q = 0; q < L.length; q++) {
      i = L[q]; s = st[i];
      if (dir > 0) {
        if ((s > cs || (s === cs && i > ci)) && (best < 0 || s < st[best] || (s === st[best] && i < best))) best = i;
        if (wrap < 0 || s < st[wrap] || (s === st[wrap] && i < wrap)) wrap = i;
      } else {
        if ((s < cs || (s === cs && i < ci)) && (best < 0 || s > st[best] || (s === st[best] && i > best))) best = i;
        if (wrap < 0 || s > st[wrap] || (s === st[wrap] && i > wrap)) wrap = i;
      }
    }
    if (best < 0) best = wrap;
    var rank = 1, sb = st[best];
    for (q = 0; q < L.length; q++) { i = L[q]; s = st[i]; if (s < sb || (s === sb && i < best)) rank++; }
    $('tl-found').textContent = rank + ' / ' + L.length;
    select(best, 'reveal');
  }

  /* ---------- timeline events ---------- */

  var mouse = { x: -1, y: -1, inside: false, drag: null };

  function canvasXY(ev) {
    var b = tl.canvas.getBoundingClientRect();
    return { x: ev.clientX - b.left, y: ev.clientY - b.top };
  }
  function showTip(ev, h) {
    var tip = $('tip');
    if (!h) { tip.hidden = true; return; }
    tip.innerHTML = h;
    tip.hidden = false;
    var x = ev.clientX + 14, y = ev.clientY + 16;
    var w = tip.offsetWidth, hh = tip.offsetHeight;
    if (x + w > window.innerWidth - 6) x = ev.clientX - w - 10;
    if (y + hh > window.innerHeight - 6) y = ev.clientY - hh - 10;
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }

  function bindTimeline() {
    var sc = tl.scroll, cv = tl.canvas;
    sc.addEventListener('scroll', redraw);
    sc.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var p = canvasXY(ev);
      var unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? sc.clientHeight : 1;
      var dx = ev.deltaX * unit, dy = ev.deltaY * unit;
      if (ev.shiftKey || p.x < LABEL_W) {
        sc.scrollTop += dy || dx;
        return;
      }
      if (Math.abs(dx) > Math.abs(dy)) { panPx(dx); return; }
      zoomAt(p.x, Math.exp(clamp(dy, -300, 300) * 0.0022));
    }, { passive: false });
    cv.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0) return;
      var p = canvasXY(ev);
      mouse.drag = { x: ev.clientX, y: ev.clientY, t0: tl.t0, t1: tl.t1, top: sc.scrollTop, moved: false, px: p.x, py: p.y,
        range: (ev.shiftKey || p.y < AXIS_H) && p.x >= LABEL_W };
      sc.focus({ preventScroll: true });
      ev.preventDefault();
    });
    window.addEventListener('mousemove', function (ev) {
      var d = mouse.drag;
      if (d) {
        var dx = ev.clientX - d.x, dy = ev.clientY - d.y;
        if (!d.moved && Math.abs(dx) + Math.abs(dy) > 3) { d.moved = true; sc.classList.add('drag'); $('tip').hidden = true; }
        if (d.moved && d.range) {
          /* a drag along the time axis (or with Shift) marks a range to zoom to */
          var b = tl.canvas.getBoundingClientRect();
          tl.range = [d.px, clamp(ev.clientX - b.left, LABEL_W, tl.w)];
          redraw();
        } else if (d.moved) {
          var span = d.t1 - d.t0, sh = -dx * span / plotW();
          setView(d.t0 + sh, d.t1 + sh);
          sc.scrollTop = d.top - dy;
        }
        return;
      }
    });
    window.addEventListener('mouseup', function (ev) {
      var d = mouse.drag;
      if (!d) return;
      mouse.drag = null;
      sc.classList.remove('drag');
      if (d.range && tl.range) {
        var rx = tl.range;
        tl.range = null;
        if (Math.abs(rx[1] - rx[0]) >= 4) setView(tOf(Math.min(rx[0], rx[1])), tOf(Math.max(rx[0], rx[1])));
        else redraw();
        return;
      }
      if (d.moved) return;
      var h = hitTest(d.px, d.py);
      if (h && h.head) {
        var dev = h.head.device;
        if (run.collapsed[dev]) delete run.collapsed[dev]; else run.collapsed[dev] = true;
        layoutRows();
        redraw();
      } else if (h && h.slice !== undefined) {
        select(h.slice, false);
      } else {
        select(-1, false);
      }
    });
    cv.addEventListener('dblclick', function (ev) {
      var p = canvasXY(ev), h = hitTest(p.x, p.y);
      if (h && h.slice !== undefined) { select(h.slice, 'fit'); }
    });
    cv.addEventListener('mousemove', function (ev) {
      var p = canvasXY(ev);
      mouse.x = p.x; mouse.y = p.y; mouse.inside = true;
      if (mouse.drag) return;
      var h = hitTest(p.x, p.y);
      var i = h && h.slice !== undefined ? h.slice : -1;
      if (i !== tl.hover) { tl.hover = i; redraw(); }
      if (i >= 0) {
        showTip(ev, '<b>' + esc(sliceName(run, i)) + '</b><br>' + esc(str(run, run.op[i]) || SLICE_KINDS[run.kind[i]]) +
          ' \u00b7 ' + esc(fmtUs(run.dur[i])) + '<br><span class="m">at ' + esc(fmtUs(run.start[i])) +
          (run.bytes[i] ? ' \u00b7 ' + esc(fmtBytes(run.bytes[i])) : '') +
          ' \u00b7 ' + (run.inLo[i + 1] - run.inLo[i]) + ' in, ' + (run.outLo[i + 1] - run.outLo[i]) + ' out</span>');
        cv.style.cursor = 'pointer';
      } else if (h && h.label) {
        var rw = run.rows[h.row];
        showTip(ev, '<b>' + esc(rw.device || '(no device)') + '</b><br>' + esc(rowLabel(rw)) +
          (rw.kind ? ' <span class="m">(' + esc(rw.kind) + ')</span>' : ''));
        cv.style.cursor = 'default';
      } else if (h && h.head) {
        showTip(ev, '<b>' + esc(h.head.device || '(no device)') + '</b><br><span class="m">' + h.head.count +
          (h.head.count === 1 ? ' row' : ' rows') + ' \u00b7 click to ' + (h.head.collapsed ? 'unfold' : 'fold') + '</span>');
        cv.style.cursor = 'pointer';
      } else {
        showTip(ev, null);
        cv.style.cursor = p.y < AXIS_H && p.x >= LABEL_W ? 'col-resize' : 'default';
      }
    });
    cv.addEventListener('mouseleave', function () {
      mouse.inside = false;
      $('tip').hidden = true;
      if (tl.hover >= 0) { tl.hover = -1; redraw(); }
    });
    document.addEventListener('keydown', function (ev) {
      if (activeTab === 'graph' && ev.key === '0' && graph.svg && !(ev.target && ev.target.tagName === 'INPUT')) {
        graph.vb = graph.home.slice();
        applyVb();
        return;
      }
      if (activeTab !== 'timeline' || !run) return;
      var tg = ev.target && ev.target.tagName;
      if (tg === 'INPUT' || tg === 'SELECT' || tg === 'TEXTAREA') {
        if (ev.key === 'Escape' && ev.target.id === 'tl-search') { ev.target.value = ''; runSearch(''); ev.target.blur(); }
        return;
      }
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var cx = mouse.inside && mouse.x > LABEL_W ? mouse.x : LABEL_W + plotW() / 2;
      var done = true;
      switch (ev.key) {
        case 'w': case 'W': zoomAt(cx, 0.8); break;
        case 's': case 'S': zoomAt(cx, 1.25); break;
        case 'a': case 'A': case 'ArrowLeft': panPx(-plotW() * 0.15); break;
        case 'd': case 'D': case 'ArrowRight': panPx(plotW() * 0.15); break;
        case 'ArrowUp': sc.scrollTop -= ROW_H * 3; break;
        case 'ArrowDown': sc.scrollTop += ROW_H * 3; break;
        case '0': resetView(); break;
        case 'f': case 'F': if (tl.sel >= 0) reveal(tl.sel, 'fit'); break;
        case '/': $('tl-search').focus(); break;
        case 'Escape': tl.marker = null; select(-1, false); clearHighlight(); break;
        default: done = false;
      }
      if (done) ev.preventDefault();
    });
    var timer = 0;
    var search = $('tl-search');
    search.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { runSearch(search.value.trim()); }, 150);
    });
    search.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        clearTimeout(timer);
        if (search.value.trim() !== tl.search.q) runSearch(search.value.trim());
        searchStep(ev.shiftKey ? -1 : 1);
      }
    });
    $('tl-next').addEventListener('click', function () { searchStep(1); });
    $('tl-prev').addEventListener('click', function () { searchStep(-1); });
    $('tl-reset').addEventListener('click', resetView);
    $('tl-chip-x').addEventListener('click', function () {
      if (tl.hl && tl.hl.source === 'search') { search.value = ''; runSearch(''); }
      clearHighlight();
    });
    $('details').addEventListener('click', function (ev) {
      var a = ev.target.closest('a');
      if (!a) return;
      if (a.hasAttribute('data-slice')) select(+a.getAttribute('data-slice'), 'reveal');
      else if (a.hasAttribute('data-fit')) reveal(+a.getAttribute('data-fit'), 'fit');
      else if (a.hasAttribute('data-fitall')) reveal(+a.getAttribute('data-fitall'), 'arrows');
      else if (a.hasAttribute('data-op')) {
        var s = +a.getAttribute('data-op'), out = [];
        for (var i = 0; i < run.n; i++) if (run.op[i] === s) out.push(i);
        setHighlight('op ' + run.strings[s], out, { source: 'op' });
      }
    });
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(function () { if (run) { sizeTimeline(); redraw(); } }).observe(sc);
    }
    window.addEventListener('resize', function () { if (run) { sizeTimeline(); redraw(); drawMemory(); } });
  }

  /* ---------- sortable tables ---------- */

  var NUMERIC_UNITS = { us: 1, ms: 1, s: 1, ns: 1, bytes: 1, B: 1, '%': 1, fraction: 1 };

  /* table: {columns, units, rows}; opts: {limit, onRow(row, tr), filter, title, bars, diff} */
  function makeTable(host, table, opts) {
    opts = opts || {};
    var cols = Array.isArray(table.columns) ? table.columns.map(String) : [];
    var units = Array.isArray(table.units) ? table.units : [];
    var rows = Array.isArray(table.rows) ? table.rows.filter(Array.isArray) : [];
    var numeric = cols.map(function (c, j) {
      if (NUMERIC_UNITS[units[j]]) return true;
      for (var q = 0; q < rows.length && q < 50; q++) {
        var v = rows[q][j];
        if (typeof v === 'number') return true;
        if (typeof v === 'string') return false;
      }
      return j > 0;
    });
    var maxOf = cols.map(function (c, j) {
      var m = 0;
      if (units[j] === '%' || units[j] === 'fraction') rows.forEach(function (r) { if (typeof r[j] === 'number') m = Math.max(m, r[j]); });
      return m;
    });
    var state = { col: -1, desc: false, filter: '', view: rows };
    var limit = opts.limit || 5000;
    host.innerHTML = '';
    var bar = document.createElement('div');
    bar.className = 'tbar';
    if (opts.filter !== false && rows.length > 8) {
      var f = document.createElement('input');
      f.type = 'search'; f.placeholder = 'Filter by name';
      f.addEventListener('input', function () { state.filter = f.value.toLowerCase(); render(); });
      bar.appendChild(f);
    }
    var note = document.createElement('span');
    note.className = 'note';
    bar.appendChild(note);
    host.appendChild(bar);
    var wrap = document.createElement('div');
    wrap.className = 'tw';
    host.appendChild(wrap);
    var shown = 0;

    function cellHtml(v, j) {
      var u = units[j];
      var txt = esc(fmtCell(v, u));
      var cls = numeric[j] ? 'num' : j === 0 ? 'name' : '';
      if (opts.diff && typeof v === 'number' && /delta/.test(cols[j]) && v !== 0) cls += v > 0 ? ' up' : ' down';
      if (opts.diff && typeof v === 'number' && /delta/.test(cols[j]) && v > 0) txt = '+' + txt;
      if (!opts.diff && maxOf[j] > 0 && typeof v === 'number' && v > 0)
        txt += '<span class="bar" style="width:' + Math.max(1, Math.round(40 * v / maxOf[j])) + 'px"></span>';
      var title = v === null || v === undefined ? '' : ' title="' + esc(typeof v === 'number' ? fmtNum(v) + (u ? ' ' + u : '') : String(v)) + '"';
      return '<td class="' + cls + '"' + title + '>' + txt + '</td>';
    }
    function render() {
      var view = rows;
      if (state.filter) {
        var fl = state.filter;
        view = rows.filter(function (r) { return String(r[0]).toLowerCase().indexOf(fl) >= 0; });
      }
      if (state.col >= 0) {
        var j = state.col, sgn = state.desc ? -1 : 1, isNum = numeric[j];
        view = view.map(function (r, q) { return { r: r, q: q }; });
        view.sort(function (a, b) {
          var x = a.r[j], y = b.r[j];
          var xn = x === null || x === undefined, yn = y === null || y === undefined;
          if (xn || yn) return xn === yn ? a.q - b.q : xn ? 1 : -1;
          var c;
          if (isNum && typeof x === 'number' && typeof y === 'number') c = x - y;
          else if (typeof x === 'number' && typeof y !== 'number') c = -1;
          else if (typeof y === 'number' && typeof x !== 'number') c = 1;
          else c = String(x).localeCompare(String(y));
          return c * sgn || a.q - b.q;
        });
        view = view.map(function (o) { return o.r; });
      }
      state.view = view;
      var h = '<table class="t"><thead><tr>';
      cols.forEach(function (c, j) {
        var cls = (numeric[j] ? 'num' : '') + (state.col === j ? (state.desc ? ' desc' : ' asc') : '');
        h += '<th class="' + cls + '" data-col="' + j + '" title="Sort by ' + esc(c) + (units[j] ? ' (' + esc(units[j]) + ')' : '') + '">' + esc(c) + '</th>';
      });
      h += '</tr></thead><tbody>';
      var lim = Math.min(view.length, limit);
      var rc = opts.onRow ? ' class="click"' : '';
      for (var q = 0; q < lim; q++) {
        var r = view[q];
        h += '<tr' + rc + ' data-i="' + q + '">';
        for (var jj = 0; jj < cols.length; jj++) h += cellHtml(r[jj], jj);
        h += '</tr>';
      }
      h += '</tbody></table>';
      wrap.innerHTML = h;
      shown = lim;
      /* "rows_total": the table's rows before trace-report kept the first ones */
      var total = Number(table.rows_total) > rows.length ? Number(table.rows_total) : 0;
      var kept = total ? 'first ' + fmtNum(rows.length) + ' of ' + fmtNum(total) + ' rows' : fmtNum(rows.length) + (rows.length === 1 ? ' row' : ' rows');
      note.textContent = (view.length === rows.length ? kept : fmtNum(view.length) + ' of the ' + kept) +
        (lim < view.length ? ', first ' + fmtNum(lim) + ' shown' : '') +
        (opts.hint ? ' \u00b7 ' + opts.hint : '');
    }
    wrap.addEventListener('click', function (ev) {
      var th = ev.target.closest('th');
      if (th) {
        var j = +th.getAttribute('data-col');
        if (state.col === j) state.desc = !state.desc;
        else { state.col = j; state.desc = numeric[j]; }
        render();
        return;
      }
      var tr = ev.target.closest('tr[data-i]');
      if (tr && opts.onRow) {
        var prev = wrap.querySelector('tr.sel');
        if (prev) prev.classList.remove('sel');
        tr.classList.add('sel');
        opts.onRow(state.view[+tr.getAttribute('data-i')]);
      }
    });
    render();
    return { shown: function () { return shown; } };
  }

  /* ---------- memory ---------- */

  var memCurves = [];

  function buildMemory() {
    var panel = $('panel-memory');
    panel.innerHTML = '';
    memCurves = [];
    var mems = run.memory;
    $('count-memory').textContent = mems.length ? '(' + mems.length + ')' : '';
    if (!mems.length) {
      panel.innerHTML = '<div class="card empty">This run has no memory records (no allocator curve to show).</div>';
      return 0;
    }
    mems.forEach(function (m) {
      var card = document.createElement('div');
      card.className = 'card';
      var peak = Number(m.peak_bytes) || 0, rep = m.reported_peak_bytes;
      var live = Array.isArray(m.live) ? m.live : [];
      var h = '<h2>' + esc(m.allocator || '(allocator)') + '</h2><div class="sub">' + esc(m.device || '') + '</div><div class="stats">' +
        '<div class="stat"><div class="k">Peak (from the trace)</div><div class="v">' + esc(fmtBytes(peak)) +
        ' <small>at ' + esc(fmtUs(Number(m.peak_us) || 0)) + '</small></div></div>';
      if (typeof rep === 'number') {
        var diff = peak ? (rep - peak) / peak * 100 : 0;
        h += '<div class="stat"><div class="k">Peak reported by the allocator</div><div class="v">' + esc(fmtBytes(rep)) +
          ' <small>' + (!peak ? '' : rep === peak ? 'same as the trace'
            : (diff >= 0 ? '+' : '') + diff.toFixed(Math.abs(diff) < 1 ? 2 : 1) + '% vs the trace') + '</small></div></div>';
      }
      h += '<div class="stat"><div class="k">Live at the peak</div><div class="v">' + fmtNum(live.length) +
        ' <small>' + (live.length === 1 ? 'buffer' : 'buffers') + '</small></div></div></div>';
      card.innerHTML = h;
      var cv = document.createElement('canvas');
      cv.className = 'memcv';
      card.appendChild(cv);
      var h3 = document.createElement('h3');
      h3.style.cssText = 'font-size:13px;margin:12px 0 2px';
      h3.textContent = 'Live at the peak';
      card.appendChild(h3);
      var tbox = document.createElement('div');
      card.appendChild(tbox);
      panel.appendChild(card);
      /* allocator events know the ops a block was allocated and freed in, not its readers */
      var blocks = m.from === 'allocator events';
      var tbl = {
        columns: ['tensor', 'bytes', 'held for', 'allocated at', 'freed at',
          blocks ? 'allocated in' : 'producer', blocks ? 'freed in' : 'last consumer'],
        units: ['', 'bytes', 'us', 'us', 'us', '', ''],
        rows: live.map(function (b) {
          var p = b.producer, c = b.last_consumer;
          var row = [String(b.tensor || ''), Number(b.bytes) || 0,
            Number(b.end_us) - Number(b.start_us), Number(b.start_us), Number(b.end_us),
            p >= 0 && p < run.n ? sliceName(run, p) : '\u2014',
            c >= 0 && c < run.n ? sliceName(run, c) : '\u2014'];
          row.buf = b;
          return row;
        })
      };
      makeTable(tbox, tbl, {
        limit: 2000,
        hint: blocks ? 'click a block to see the ops it was allocated and freed in on the timeline'
          : 'click a buffer to see its producer and last consumer on the timeline',
        onRow: function (row) { showBuffer(row.buf); }
      });
      var curve = { m: m, cv: cv };
      memCurves.push(curve);
      bindMemCurve(curve);
    });
    return mems.length;
  }

  function showBuffer(b) {
    var ids = [];
    if (b.producer >= 0 && b.producer < run.n) ids.push(b.producer);
    if (b.last_consumer >= 0 && b.last_consumer < run.n) ids.push(b.last_consumer);
    var a = Number(b.start_us), e = Number(b.end_us);
    showTab('timeline');
    if (ids.length) {
      setHighlight('buffer ' + (b.tensor || ''), ids, { source: 'buffer', path: ids.length === 2 });
      select(ids[0], false);
      reveal(ids[0], false);
      ids.forEach(function (i) { a = Math.min(a, run.start[i]); e = Math.max(e, run.end[i]); });
    }
    if (isFinite(a) && isFinite(e)) fitRange(a, e);
  }

  function memGeom(curve) {
    var cv = curve.cv;
    var w = Math.max(100, cv.clientWidth), h = Math.max(80, cv.clientHeight);
    return { w: w, h: h, l: 70, r: 14, t: 24, b: 22 };
  }
  function drawMemory() {
    if (activeTab !== 'memory') return;
    memCurves.forEach(drawMemCurve);
  }
  function drawMemCurve(curve) {
    var m = curve.m, cv = curve.cv, g = memGeom(curve);
    var dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(g.w * dpr); cv.height = Math.round(g.h * dpr);
    var ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.w, g.h);
    var ts = Array.isArray(m.t) ? m.t : [], bs = Array.isArray(m.bytes) ? m.bytes : [];
    var n = Math.min(ts.length, bs.length);
    var ta = run.tMin, tb = run.tMax;
    for (var q = 0; q < n; q++) { if (ts[q] < ta) ta = ts[q]; if (ts[q] > tb) tb = ts[q]; }
    var peak = Number(m.peak_bytes) || 0, rep = typeof m.reported_peak_bytes === 'number' ? m.reported_peak_bytes : null;
    var ymax = Math.max(peak, rep || 0, 1024);
    for (q = 0; q < n; q++) if (bs[q] > ymax) ymax = bs[q];
    if (m.band && Array.isArray(m.band.high))
      m.band.high.forEach(function (v) { if (Number(v) > ymax) ymax = Number(v); });
    ymax *= 1.1;
    var PW = g.w - g.l - g.r, PH = g.h - g.t - g.b;
    var X = function (t) { return g.l + (t - ta) / (tb - ta || 1) * PW; };
    var Y = function (b) { return g.t + PH - b / ymax * PH; };
    curve.ta = ta; curve.tb = tb; curve.X = X; curve.g = g; curve.n = n;
    /* axes */
    ctx.font = '11px ' + FONT;
    ctx.textBaseline = 'middle';
    var ystep = niceBytesStep(ymax / 4);
    for (var vn = 0, v = 0; v <= ymax && vn < 100; v = ++vn * ystep) {
      var y = Math.round(Y(v)) + 0.5;
      ctx.fillStyle = '#eef0f4'; ctx.fillRect(g.l, y, PW, 1);
      ctx.fillStyle = '#687083'; ctx.textAlign = 'right';
      ctx.fillText(fmtBytes(v), g.l - 6, y);
    }
    ctx.textAlign = 'left';
    var tstep = niceStep((tb - ta) / Math.max(1, PW / 110));
    var tz = Math.ceil(ta / tstep) * tstep;
    for (var tn = 0, t = tz; t <= tb && tn < 400; t = tz + ++tn * tstep) {
      var x = Math.round(X(t)) + 0.5;
      ctx.fillStyle = '#c9ced8'; ctx.fillRect(x, g.t + PH, 1, 4);
      ctx.fillStyle = '#687083'; ctx.fillText(tickLabel(t, tstep), x + 2, g.h - 8);
    }
    /* the band, where it has width: the least and most the allocator can have held */
    var band = m.band && typeof m.band === 'object' ? m.band : null;
    if (band && Array.isArray(band.t) && Array.isArray(band.low) && Array.isArray(band.high)) {
      var bn = Math.min(band.t.length, band.low.length, band.high.length);
      var bx = function (k) { return clamp(X(k + 1 < bn ? band.t[k + 1] : tb), g.l, g.l + PW); };
      ctx.beginPath();
      for (q = 0; q < bn; q++) {
        var x0 = clamp(X(band.t[q]), g.l, g.l + PW), yh = Y(Number(band.high[q]) || 0);
        if (q === 0) ctx.moveTo(x0, yh); else ctx.lineTo(x0, yh);
        ctx.lineTo(bx(q), yh);
      }
      for (q = bn - 1; q >= 0; q--) {
        var yl = Y(Number(band.low[q]) || 0);
        ctx.lineTo(bx(q), yl);
        ctx.lineTo(clamp(X(band.t[q]), g.l, g.l + PW), yl);
      }
      ctx.closePath();
      ctx.fillStyle = 'rgba(120,128,145,0.28)';
      ctx.fill();
    }
    /* step curve, one column per pixel (max inside a column) */
    if (n) {
      var cols = Math.ceil(PW) + 2;
      var cmax = new Float64Array(cols).fill(-1), clast = new Float64Array(cols);
      for (q = 0; q < n; q++) {
        var c = clamp(Math.floor(X(ts[q]) - g.l), 0, cols - 1);
        var bv = Number(bs[q]) || 0;
        if (bv > cmax[c]) cmax[c] = bv;
        clast[c] = bv;
      }
      ctx.beginPath();
      var cur = 0, first = clamp(Math.floor(X(ts[0]) - g.l), 0, cols - 1);
      ctx.moveTo(g.l + first, Y(0));
      for (c = first; c < cols; c++) {
        if (cmax[c] < 0) continue;
        ctx.lineTo(g.l + c, Y(cur));
        ctx.lineTo(g.l + c, Y(cmax[c]));
        ctx.lineTo(g.l + c + 1, Y(cmax[c]));
        ctx.lineTo(g.l + c + 1, Y(clast[c]));
        cur = clast[c];
      }
      var xe = Math.min(g.l + PW, X(tb));
      ctx.lineTo(xe, Y(cur));
      ctx.strokeStyle = '#2f62d6'; ctx.lineWidth = 1.25;
      ctx.stroke();
      ctx.lineTo(xe, Y(0));
      ctx.closePath();
      ctx.fillStyle = 'rgba(47,98,214,0.13)';
      ctx.fill();
    }
    /* the allocator's own peak */
    if (rep !== null) {
      y = Math.round(Y(rep)) + 0.5;
      ctx.strokeStyle = '#8a93a6'; ctx.setLineDash([5, 4]); ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(g.l, y); ctx.lineTo(g.l + PW, y); ctx.stroke(); ctx.setLineDash([]);
      /* at the end away from our peak's label, which sits beside the peak */
      var repLeft = peak > 0 && X(Number(m.peak_us) || 0) > g.l + PW / 2;
      ctx.fillStyle = '#5b6275'; ctx.textAlign = repLeft ? 'left' : 'right';
      ctx.fillText('reported ' + fmtBytes(rep), repLeft ? g.l + 4 : g.l + PW - 4, y - 8);
      ctx.textAlign = 'left';
    }
    /* our peak */
    if (peak > 0) {
      var px = X(Number(m.peak_us) || 0), py = Y(peak);
      ctx.strokeStyle = '#d6336c'; ctx.setLineDash([3, 3]); ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(px, py); ctx.lineTo(px, g.t + PH); ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = '#d6336c';
      ctx.beginPath(); ctx.arc(px, py, 4, 0, 2 * Math.PI); ctx.fill();
      var label = 'peak ' + fmtBytes(peak) + ' at ' + fmtUs(Number(m.peak_us) || 0);
      ctx.font = '600 11px ' + FONT;
      var lw = ctx.measureText(label).width;
      var right = px + 8 + lw > g.l + PW;
      var lx = right ? px - 8 - lw : px + 8, ly = Math.max(8, py - 11);
      ctx.fillStyle = 'rgba(255,255,255,0.85)';
      ctx.fillRect(lx - 3, ly - 7, lw + 6, 14);
      ctx.fillStyle = '#d6336c';
      ctx.fillText(label, lx, ly);
    }
    ctx.fillStyle = '#c9ced8';
    ctx.fillRect(g.l, g.t + PH, PW, 1);
    if (!n) {
      ctx.fillStyle = '#687083';
      ctx.textAlign = 'center';
      ctx.fillText('no allocation recorded', g.l + PW / 2, g.t + PH / 2);
      ctx.textAlign = 'left';
    }
  }
  function niceBytesStep(raw) {
    if (raw <= 1) return 1;
    var p = Math.pow(2, Math.floor(Math.log2(raw)));
    var f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : 4) * p;
  }
  function memAt(m, t) {
    var ts = m.t, a = 0, b = Math.min(ts.length, m.bytes.length);
    while (a < b) { var q = (a + b) >> 1; if (ts[q] <= t) a = q + 1; else b = q; }
    return a > 0 ? Number(m.bytes[a - 1]) || 0 : 0;
  }
  function bindMemCurve(curve) {
    var cv = curve.cv;
    function tAt(ev) {
      var b = cv.getBoundingClientRect(), g = curve.g;
      if (!g) return null;
      var x = ev.clientX - b.left;
      if (x < g.l || x > g.w - g.r) return null;
      return curve.ta + (x - g.l) / (g.w - g.l - g.r) * (curve.tb - curve.ta);
    }
    cv.addEventListener('mousemove', function (ev) {
      var t = tAt(ev);
      if (t === null || !Array.isArray(curve.m.t)) { showTip(ev, null); return; }
      showTip(ev, '<b>' + esc(fmtBytes(memAt(curve.m, t))) + '</b> live<br><span class="m">at ' + esc(fmtUs(t)) + ' \u00b7 click: timeline here</span>');
    });
    cv.addEventListener('mouseleave', function () { $('tip').hidden = true; });
    cv.addEventListener('click', function (ev) {
      var t = tAt(ev);
      if (t === null) return;
      $('tip').hidden = true;
      tl.marker = t;
      showTab('timeline');
      var span = Math.min(tl.t1 - tl.t0, (run.tMax - run.tMin) / 10);
      setView(t - span / 2, t + span / 2);
    });
  }

  /* ---------- tables tab ---------- */

  var opRows = 0;

  function buildTables() {
    var panel = $('panel-tables');
    panel.innerHTML = '';
    var T = run.tables;
    var views = [['op', 'Ops'], ['scope', 'Scopes'], ['kernel', 'Kernels']].filter(function (v) {
      return T[v[0]] && typeof T[v[0]] === 'object' && Array.isArray(T[v[0]].rows);
    });
    var card = document.createElement('div');
    card.className = 'card';
    var head = document.createElement('div');
    head.className = 'tbar';
    head.innerHTML = '<h2 style="margin:0 10px 0 0">Where the time goes</h2>';
    var seg = document.createElement('span');
    seg.className = 'seg';
    head.appendChild(seg);
    card.appendChild(head);
    var boxes = {};
    opRows = 0;
    if (!views.length) {
      var p = document.createElement('div');
      p.className = 'empty';
      p.textContent = 'No summary tables for this run.';
      card.appendChild(p);
    }
    views.forEach(function (v, q) {
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = v[1];
      b.className = q === 0 ? 'on' : '';
      b.addEventListener('click', function () {
        Array.prototype.forEach.call(seg.children, function (x) { x.className = ''; });
        b.className = 'on';
        Object.keys(boxes).forEach(function (k) { boxes[k].hidden = k !== v[0]; });
      });
      seg.appendChild(b);
      var box = document.createElement('div');
      box.hidden = q !== 0;
      card.appendChild(box);
      boxes[v[0]] = box;
      var t = makeTable(box, T[v[0]], {
        limit: 10000,
        hint: 'click a row to show its slices on the timeline',
        onRow: function (row) { tableRowToTimeline(v[0], row); }
      });
      if (v[0] === 'op') opRows = t.shown();
    });
    panel.appendChild(card);

    var two = document.createElement('div');
    two.className = 'row2';
    two.appendChild(buildCritical());
    two.appendChild(buildIdle());
    panel.appendChild(two);
    return opRows;
  }

  function tableRowToTimeline(view, row) {
    var name = String(row[0]);
    var S = run.strings, hit = new Uint8Array(S.length), i, out = [], q;
    if (view === 'op') {
      for (q = 1; q < S.length; q++) if (S[q] === name) hit[q] = 1;
      for (i = 0; i < run.n; i++) if (hit[run.op[i]]) out.push(i);
      if (!out.length) for (i = 0; i < run.n; i++) if (hit[run.name[i]]) out.push(i);
    } else if (view === 'scope') {
      var pre = name + '/';
      for (q = 1; q < S.length; q++) if (S[q] === name || S[q].indexOf(pre) === 0) hit[q] = 1;
      for (i = 0; i < run.n; i++) if (hit[run.node[i]]) out.push(i);
    } else {
      for (q = 1; q < S.length; q++) if (S[q] === name) hit[q] = 1;
      for (i = 0; i < run.n; i++) if (hit[run.name[i]]) out.push(i);
    }
    if (!out.length) return;
    out.sort(function (a, b) { return run.start[a] - run.start[b]; });
    showOnTimeline(out, view + ' ' + name, { source: 'table' });
  }

  var critButton = null;
  function syncCritButton() {
    if (!critButton) return;
    var on = !!(tl.hl && tl.hl.source === 'critical');
    critButton.className = 'btn' + (on ? ' on' : '');
    critButton.textContent = on ? 'Highlighted on the timeline' : 'Highlight on the timeline';
  }
  function buildCritical() {
    var card = document.createElement('div');
    card.className = 'card';
    critButton = null;
    var cp = run.critical;
    if (!cp || !cp.slices.length) {
      card.innerHTML = '<h2>Critical path</h2><div class="empty">No critical path for this run.</div>';
      return card;
    }
    var sum = 0;
    cp.slices.forEach(function (i) { sum += run.dur[i]; });
    card.innerHTML = '<h2>Critical path</h2><div class="sub">' + esc(fmtUs(cp.length_us)) + ' long \u00b7 ' +
      cp.slices.length + ' slices \u00b7 ' + esc(fmtUs(sum)) + ' of it running</div>';
    var b = document.createElement('button');
    b.type = 'button';
    b.addEventListener('click', function () {
      if (tl.hl && tl.hl.source === 'critical') { clearHighlight(); return; }
      showOnTimeline(cp.slices.slice(), 'critical path', { source: 'critical', path: true });
    });
    critButton = b;
    syncCritButton();
    var bar = document.createElement('div');
    bar.className = 'tbar';
    bar.appendChild(b);
    card.appendChild(bar);
    var box = document.createElement('div');
    card.appendChild(box);
    makeTable(box, {
      columns: ['#', 'slice', 'duration', 'start', 'where'],
      units: ['', '', 'us', 'us', ''],
      rows: cp.slices.map(function (i, q) {
        var r = run.rows[run.row[i]];
        var row = [q + 1, sliceName(run, i), run.dur[i], run.start[i], shortDevice(r.device) + ' \u00b7 ' + rowLabel(r)];
        row.slice = i;
        return row;
      })
    }, { filter: false, limit: 5000, onRow: function (row) { showTab('timeline'); select(row.slice, 'reveal'); } });
    return card;
  }
  function buildIdle() {
    var card = document.createElement('div');
    card.className = 'card';
    card.innerHTML = '<h2>Idle time per device</h2>';
    if (!run.idle.length) {
      card.innerHTML += '<div class="empty">No idle figures for this run.</div>';
      return card;
    }
    var box = document.createElement('div');
    card.appendChild(box);
    makeTable(box, {
      columns: ['device', 'busy', 'idle', 'idle fraction'],
      units: ['', 'us', 'us', 'fraction'],
      rows: run.idle.map(function (d) {
        return [String(d.device || ''), Number(d.busy_us), Number(d.idle_us), Number(d.idle_fraction)];
      })
    }, { filter: false });
    return card;
  }

  /* ---------- graph ---------- */

  var graph = { svg: null, vb: null, nodes: null, sel: null, view: null, drag: null };

  function buildGraph() {
    var panel = $('panel-graph');
    panel.innerHTML = '';
    graph = { svg: null, vb: null, nodes: null, sel: null, view: null, drag: null };
    $('count-graph').textContent = '';
    function empty(msg) {
      panel.innerHTML = '<div class="card empty" style="margin:16px 18px">' + esc(msg) + '</div>';
      return 0;
    }
    /* graphview.js lays out when the tab is first shown, not in the first draw */
    if (!run.graph && run.graphView && activeTab !== 'graph') { graph.later = true; return empty('The graph is laid out when this tab is shown.'); }
    var s = run.graph || (run.graphView && run.graphView.markup());
    if (!s) return empty(run.graphSkipped || 'This run has no graph.');
    var at = s.search(/<svg[\s>]/i), endAt = s.lastIndexOf('</svg>');
    var head = at >= 0 ? s.slice(0, at).replace(/<\?xml[\s\S]*?\?>/g, '').replace(/<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/gi, '').replace(/<!-{2}[\s\S]*?-{2}>/g, '') : '';
    if (at < 0 || endAt < at || head.trim() || s.slice(endAt + 6).trim())
      return empty('The graph is not a usable SVG document, so it is not shown.');
    var holder = document.createElement('div');
    holder.innerHTML = s.slice(at, endAt + 6);
    var svg = holder.firstElementChild;
    if (!svg || svg.tagName.toLowerCase() !== 'svg' || holder.children.length !== 1)
      return empty('The graph is not a usable SVG document, so it is not shown.');
    /* It is ours (graph-render), but keep it inert anyway. */
    Array.prototype.forEach.call(svg.querySelectorAll('script,foreignObject,iframe,object,embed,image,use'), function (e) { e.parentNode.removeChild(e); });
    Array.prototype.forEach.call(svg.querySelectorAll('*'), function (e) {
      for (var q = e.attributes.length - 1; q >= 0; q--) {
        var nm = e.attributes[q].name.toLowerCase(), val = e.attributes[q].value;
        if (nm.indexOf('on') === 0 || ((nm === 'href' || nm === 'xlink:href') && val.charAt(0) !== '#')) e.removeAttribute(e.attributes[q].name);
      }
    });
    var vbs = (svg.getAttribute('viewBox') || '').trim().split(/[\s,]+/).map(Number);
    if (vbs.length !== 4 || vbs.some(function (v) { return !isFinite(v); }) || vbs[2] <= 0 || vbs[3] <= 0) {
      var w = parseFloat(svg.getAttribute('width')) || 1000, h = parseFloat(svg.getAttribute('height')) || 800;
      vbs = [0, 0, w, h];
    }
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    graph.svg = svg;
    graph.home = vbs.slice();
    graph.vb = vbs.slice();
    var nodes = svg.querySelectorAll('g.node');
    graph.nodes = Object.create(null);
    Array.prototype.forEach.call(nodes, function (g) {
      var t = g.querySelector('title');
      if (t) graph.nodes[t.textContent] = g;
    });
    $('count-graph').textContent = nodes.length ? '(' + nodes.length + ')' : '';
    var bar = document.createElement('div');
    bar.className = 'g-bar';
    bar.innerHTML = '<span class="note">' + nodes.length + ' nodes \u00b7 click a node to show its slices on the ' +
      'timeline \u00b7 drag to pan \u00b7 wheel to zoom</span><span class="grow"></span><span class="note" id="g-msg"></span>';
    var fit = document.createElement('button');
    fit.type = 'button'; fit.className = 'btn'; fit.textContent = 'Fit';
    fit.addEventListener('click', function () { graph.vb = graph.home.slice(); applyVb(); });
    bar.appendChild(fit);
    var one = document.createElement('button');
    one.type = 'button'; one.className = 'btn'; one.textContent = '100%';
    one.title = 'Actual size, around the middle of the view';
    one.addEventListener('click', function () {
      var vb = graph.vb, w = view.clientWidth || 800, h = view.clientHeight || 600;
      var cx = vb[0] + vb[2] / 2, cy = vb[1] + vb[3] / 2;
      graph.vb = [cx - w / 2, cy - h / 2, w, h];
      applyVb();
    });
    bar.appendChild(one);
    if (run.graphView) bar.insertBefore(run.graphView.crumbs(buildGraph), bar.firstChild);
    var view = document.createElement('div');
    view.className = 'g-view';
    view.appendChild(svg);
    panel.appendChild(bar);
    panel.appendChild(view);
    applyVb();
    bindGraph(view);
    markGraphNode(tl.sel >= 0 ? str(run, run.node[tl.sel]) : '');
    return nodes.length;
  }
  /* Centres the view on node g, at actual size when the view is smaller than that. */
  function seekGraphNode(g) {
    var view = graph.view;
    if (!view || !view.clientWidth) return;
    var b = view.getBoundingClientRect(), r = g.getBoundingClientRect(), m = graphScale(view), vb = graph.vb;
    var cx = vb[0] + ((r.left + r.right) / 2 - b.left - m.ox) / m.s;
    var cy = vb[1] + ((r.top + r.bottom) / 2 - b.top - m.oy) / m.s;
    var w = vb[2], h = vb[3];
    if (m.s < 1) { w = view.clientWidth; h = view.clientHeight; }
    graph.vb = [cx - w / 2, cy - h / 2, w, h];
    applyVb();
  }
  function applyVb() {
    if (graph.svg) graph.svg.setAttribute('viewBox', graph.vb.map(function (v) { return +v.toFixed(3); }).join(' '));
  }
  function graphScale(view) {
    var w = view.clientWidth || 1, h = view.clientHeight || 1, vb = graph.vb;
    var s = Math.min(w / vb[2], h / vb[3]);
    return { s: s, ox: (w - vb[2] * s) / 2, oy: (h - vb[3] * s) / 2 };
  }
  function bindGraph(view) {
    graph.view = view;
    view.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var b = view.getBoundingClientRect(), g = graphScale(view), vb = graph.vb;
      var unit = ev.deltaMode === 1 ? 16 : 1;
      var f = Math.exp(clamp(ev.deltaY * unit, -300, 300) * 0.0022);
      var px = vb[0] + (ev.clientX - b.left - g.ox) / g.s, py = vb[1] + (ev.clientY - b.top - g.oy) / g.s;
      var nw = vb[2] * f, nh = vb[3] * f;
      if (nw > graph.home[2] * 20 || nw < graph.home[2] / 400) return;
      graph.vb = [px - (px - vb[0]) * f, py - (py - vb[1]) * f, nw, nh];
      applyVb();
    }, { passive: false });
    view.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0) return;
      var node = ev.target && ev.target.closest ? ev.target.closest('g.node') : null;
      graph.drag = { x: ev.clientX, y: ev.clientY, vb: graph.vb.slice(), moved: false, node: node };
      ev.preventDefault();
    });
  }
  /* once: drags of the graph follow the mouse out of its view */
  function bindGraphWindow() {
    window.addEventListener('mousemove', function (ev) {
      var d = graph.drag;
      if (!d || !graph.view) return;
      var dx = ev.clientX - d.x, dy = ev.clientY - d.y;
      if (!d.moved && Math.abs(dx) + Math.abs(dy) > 3) { d.moved = true; graph.view.classList.add('drag'); }
      if (!d.moved) return;
      var g = graphScale(graph.view);
      graph.vb = [d.vb[0] - dx / g.s, d.vb[1] - dy / g.s, d.vb[2], d.vb[3]];
      applyVb();
    });
    window.addEventListener('mouseup', function () {
      var d = graph.drag;
      if (!d) return;
      graph.drag = null;
      if (graph.view) graph.view.classList.remove('drag');
      if (d.moved || !d.node) return;
      if (run.graphView && run.graphView.open(d.node)) { buildGraph(); return; }
      var t = d.node.querySelector('title');
      if (t) graphNodeToTimeline(t.textContent);
    });
  }
  function graphNodeToTimeline(name) {
    var S = run.strings, hit = new Uint8Array(S.length), pre = name + '/', out = [];
    for (var q = 1; q < S.length; q++) if (S[q] === name || S[q].indexOf(pre) === 0) hit[q] = 1;
    for (var i = 0; i < run.n; i++) if (hit[run.node[i]]) out.push(i);
    var msg = $('g-msg');
    if (!out.length) {
      if (msg) msg.textContent = '\u201c' + name + '\u201d has no slice in this run';
      markGraphNode(name);
      return;
    }
    if (msg) msg.textContent = '';
    out.sort(function (a, b) { return run.start[a] - run.start[b] || a - b; });
    showOnTimeline(out, 'node ' + name, { source: 'graph' });
    markGraphNode(name);
  }
  function markGraphNode(name) {
    if (!graph.nodes) return;
    var was = graph.sel;
    if (graph.sel) { graph.sel.classList.remove('sel'); graph.sel = null; }
    var n = name;
    while (n) {
      var g = graph.nodes[n];
      if (g) { g.classList.add('sel'); graph.sel = g; graph.seek = g !== was; return; }
      var cut = n.lastIndexOf('/');
      n = cut > 0 ? n.slice(0, cut) : '';
    }
  }

  /* ---------- diff ---------- */

  function buildDiff() {
    var panel = $('panel-diff');
    var d = data.diff;
    var ok = d && typeof d === 'object' && Array.isArray(d.rows) && Array.isArray(d.columns);
    $('tab-diff').hidden = !ok;
    panel.innerHTML = '';
    if (!ok) return;
    var card = document.createElement('div');
    card.className = 'card';
    var lab = function (q) { var r = data.runs[q]; return r && typeof r.label === 'string' && r.label ? r.label : 'run ' + (q + 1); };
    var a = lab(0), b = lab(1);
    card.innerHTML = '<h2>Run diff</h2><div class="sub">A = ' + esc(a) + ' \u00b7 B = ' + esc(b) +
      ' \u00b7 delta = B \u2212 A (red: B is slower or larger)</div>';
    var box = document.createElement('div');
    card.appendChild(box);
    panel.appendChild(card);
    makeTable(box, d, { diff: true, limit: 10000 });
  }

  /* ---------- tabs, runs, hash ---------- */

  function showTab(name) {
    if (name === 'diff' && $('tab-diff').hidden) name = 'timeline';
    if (!$('panel-' + name)) name = 'timeline';
    activeTab = name;
    Array.prototype.forEach.call(document.querySelectorAll('#tabs button'), function (b) {
      b.classList.toggle('on', b.getAttribute('data-tab') === name);
      b.setAttribute('aria-selected', b.getAttribute('data-tab') === name ? 'true' : 'false');
    });
    Array.prototype.forEach.call(document.querySelectorAll('main > .panel'), function (p) {
      p.classList.toggle('on', p.getAttribute('data-panel') === name);
    });
    $('tip').hidden = true;
    if (name === 'timeline' && run) { sizeTimeline(); redraw(); }
    if (name === 'memory') drawMemory();
    if (name === 'graph' && graph.later) html.setAttribute('data-graph-nodes', String(buildGraph()));
    if (name === 'graph' && graph.svg) {
      applyVb();
      if (graph.sel && graph.seek) { graph.seek = false; seekGraphNode(graph.sel); }
    }
  }

  function setRun(k) {
    var first = false;
    if (!runs[k]) { runs[k] = prepRun(data.runs[k], k); first = true; }
    run = runs[k];
    $('run-select').value = String(k);
    $('runinfo').textContent = fmtUs(run.duration) + ' \u00b7 ' + fmtNum(run.n) + ' slices';
    tl.canvas.setAttribute('aria-label', 'Timeline of ' + run.label + ': ' + run.n + ' slices on ' + run.rows.length + ' rows');
    tl.sel = -1; tl.hover = -1; tl.hl = null; tl.marker = null;
    tl.search = { q: '', list: null };
    $('tl-search').value = '';
    $('tl-found').textContent = '';
    $('tl-chip').hidden = true;
    tl.scroll.scrollTop = 0;
    layoutRows();
    var pad = (run.tMax - run.tMin) * 0.01;
    tl.t0 = run.tMin - pad; tl.t1 = run.tMax + pad;
    noteView();
    tl.ctx.font = '11px ' + FONT;
    tl.charW = tl.ctx.measureText('abcdefghijklmnopqrstuvwxyz_/0123456789').width / 38 || 6.2;
    renderDetails();
    /* the first paint is synchronous, so the test hooks below count what is on screen */
    if (tl.raf) { cancelAnimationFrame(tl.raf); tl.raf = 0; }
    var rects = drawTimeline();
    var mem = buildMemory();
    var rowsShown = buildTables();
    var nodes = buildGraph();
    html.setAttribute('data-runs', String(data.runs.length));
    html.setAttribute('data-run', String(k));
    html.setAttribute('data-slices', String(run.n));
    html.setAttribute('data-arrows', String(run.m));
    html.setAttribute('data-drawn-rects', String(rects));
    html.setAttribute('data-memory-curves', String(mem));
    html.setAttribute('data-table-rows', String(rowsShown));
    html.setAttribute('data-graph-nodes', String(nodes));
    if (activeTab === 'memory') drawMemory();
    return first;
  }

  function parseHash() {
    var out = {};
    var h = (location.hash || '').replace(/^#/, '');
    h.split('&').forEach(function (kvs) {
      if (!kvs) return;
      var at = kvs.indexOf('=');
      var key = at < 0 ? kvs : kvs.slice(0, at), val = at < 0 ? '' : kvs.slice(at + 1);
      try { out[decodeURIComponent(key)] = decodeURIComponent(val); } catch (e) { out[key] = val; }
    });
    return out;
  }
  function applyHash() {
    var h = parseHash();
    if (h.run !== undefined) {
      var k = -1;
      data.runs.forEach(function (r, q) { if (r && r.label === h.run) k = q; });
      if (k < 0 && /^\d+$/.test(h.run) && +h.run < data.runs.length) k = +h.run;
      if (k >= 0 && (!run || run.index !== k)) setRun(k);
    }
    if (h.select) {
      var S = run.strings, want = -1, q, i, best = -1;
      for (q = 1; q < S.length; q++) if (S[q] === h.select) { want = q; break; }
      if (want > 0) {
        /* the first slice (lowest index) of that node; else the first one of that name */
        for (i = 0; i < run.n && best < 0; i++) if (run.node[i] === want) best = i;
        for (i = 0; i < run.n && best < 0; i++) if (run.name[i] === want) best = i;
      }
      if (best >= 0) select(best, 'arrows');
    }
    if (h.search) {
      $('tl-search').value = h.search;
      runSearch(h.search);
    }
    if (h.graph !== undefined && run.graphView && run.graphView.go(h.graph)) buildGraph();
    if (h.tab) showTab(h.tab);
  }

  function showFatal(e) {
    html.setAttribute('data-report-state', 'error');
    if (!e || !e.dataError) noteError(e && e.message ? e.message : String(e));
    var f = $('fatal');
    $('tabs').hidden = true;
    $('runpick').hidden = true;
    Array.prototype.forEach.call(document.querySelectorAll('main > .panel'), function (p) { p.classList.remove('on'); p.style.display = 'none'; });
    f.hidden = false;
    f.innerHTML = '<h2>This report cannot be shown</h2>' +
      (e && e.dataError ? 'Its data could not be read: ' : 'The page failed while drawing it: ') +
      '<pre>' + esc(e && e.message ? e.message : String(e)) + '</pre>';
  }

  function init() {
    var began = performance.now();
    tl.canvas = $('tl-canvas');
    tl.ctx = tl.canvas.getContext('2d');
    tl.scroll = $('tl-scroll');
    tl.spacer = $('tl-spacer');
    data = readData();
    runs = new Array(data.runs.length);
    var inputs = Array.isArray(data.inputs) ? data.inputs : [];
    $('inputs').innerHTML = inputs.length
      ? inputs.map(function (s) { return '<code>' + esc(s) + '</code>'; }).join('') +
        (data.generator ? ' <span>\u00b7 ' + esc(data.generator) + '</span>' : '')
      : esc(data.generator || '');
    var sel = $('run-select');
    data.runs.forEach(function (r, q) {
      var o = document.createElement('option');
      o.value = String(q);
      o.textContent = (r && typeof r.label === 'string' && r.label) ? r.label : 'run ' + (q + 1);
      sel.appendChild(o);
    });
    $('runpick').hidden = data.runs.length < 2;
    sel.addEventListener('change', function () {
      try { setRun(+sel.value); if (activeTab === 'timeline') redraw(); } catch (e) { showFatal(e); }
    });
    Array.prototype.forEach.call(document.querySelectorAll('#tabs button'), function (b) {
      b.addEventListener('click', function () { showTab(b.getAttribute('data-tab')); });
    });
    bindTimeline();
    bindGraphWindow();
    buildDiff();
    setRun(0);
    html.setAttribute('data-first-draw-ms', String(Math.round(performance.now() - began)));
    applyHash();
    window.addEventListener('hashchange', function () { try { applyHash(); } catch (e) { noteError(e.message); } });
    html.setAttribute('data-report-state', 'ready');
  }

  try { init(); } catch (e) { showFatal(e); }
})();
