var Data = (function () {

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
    prepSlices(run, raw.slices || {}, where, S, R);
    prepOrder(run, prepTimes(run, raw, where));
    prepArrows(run, raw.arrows || {}, where, S);
    prepOps(run, S);
    run.colours = new Array(S);
    run.lower = null;
    run.memory = Array.isArray(raw.memory) ? raw.memory.filter(function (m) { return m && typeof m === 'object'; }) : [];
    run.tables = raw.tables && typeof raw.tables === 'object' ? raw.tables : {};
    run.critical = raw.critical_path && Array.isArray(raw.critical_path.slices) ? raw.critical_path : null;
    if (run.critical) run.critical = {
      slices: run.critical.slices.filter(function (v) { return v >= 0 && v < run.n; }),
      length_us: Number(run.critical.length_us) || 0
    };
    run.idle = Array.isArray(raw.idle) ? raw.idle : [];
    run.graph = graphOf(raw, k);
    run.graphSkipped = raw.graph && typeof raw.graph.skipped === 'string' ? raw.graph.skipped : null;
    var gref = raw.graph && typeof raw.graph.run === 'number' && data.runs[raw.graph.run] ? data.runs[raw.graph.run].graph : raw.graph;
    /* the second run of two: coloured by its change from the first (data.graph_diff) */
    var gdiff = k === 1 && data.runs.length === 2 ? data.graph_diff : null;
    run.graphView = !run.graph && gref && gref.data && window.TftraceGraph ? TftraceGraph.view(gref.data, gdiff) : null; /* graphview.js */
    run.collapsed = Object.create(null);
    return run;
  }

  /* The slices' arrays (slices.*), checked: lengths, and indexes into the strings and rows. */
  function prepSlices(run, sl, where, S, R) {
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
  }

  /* Each slice's end, the run's time bounds (tMin, tMax), origin and duration; whether the
   * slices come sorted by row, then start. */
  function prepTimes(run, raw, where) {
    var N = run.n;
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
    return sorted;
  }

  /* The slices by row, then start (run.order, null: as they come), where each row's begin
   * (rowLo), and the running maximum of their ends (maxEnd). */
  function prepOrder(run, sorted) {
    var N = run.n, R = run.rows.length, start = run.start, row = run.row, end = run.end, i;
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
  }

  /* The arrows, checked, and who points at whom. */
  function prepArrows(run, ar, where, S) {
    var N = run.n, i;
    /* Arrows, and who points at whom (CSR). */
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
  }

  /* The ops by time, for the details panel's legend. */
  function prepOps(run, S) {
    var N = run.n, dur = run.dur, i;
    /* Time per op, for the colour legend. */
    var opTime = new Float64Array(S), opCount = new Int32Array(S);
    for (i = 0; i < N; i++) { opTime[run.op[i]] += dur[i]; opCount[run.op[i]]++; }
    var ops = [];
    for (i = 1; i < S; i++) if (opCount[i]) ops.push(i);
    ops.sort(function (a, b) { return opTime[b] - opTime[a]; });
    run.topOps = ops.slice(0, 12).map(function (s) { return { s: s, time: opTime[s], count: opCount[s] }; });
    run.opKinds = ops.length;
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

  return { readData: readData, prepRun: prepRun };
})();
