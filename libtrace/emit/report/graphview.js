/* graphview.js: the report's graph tab for a graph the page lays out itself
 * (trace-report draws one with Graphviz only when it has at most --max-nodes
 * nodes). Joined into the page before report.js; plain ES2017, no
 * framework. It reads the run's "graph": {"data": ...} (emit/report_graph.c:
 * interned names cut into scopes, per node op, device, time, bytes,
 * executions; the edges, _Send/_Recv pairs contracted) and shows it a view
 * at a time: a view is the direct children of one name scope (ops, and
 * sub-scopes collapsed into one node each) on some devices, one cluster per
 * device, with the edges among them and a stub for the edges to and from
 * outside. Over max_nodes children a view collapses further: a view of
 * more than max_nodes / 4 devices shows each device as one node (and ranges
 * of devices when those are still too many), one of fewer shows ranges of
 * each device's children (by name, the devices sharing max_nodes by their
 * children). Numbered sibling scopes fold as graph-render --fold folds
 * them ("conv2d_1 ... conv2d_10/ (10 folded)"), a click opening the list.
 * On a two-run page the second run is coloured by each node's change in
 * time from the first, or in output memory (the page's graph_diff and its
 * member "memory", as graph-render --diff colours them, --color-by memory
 * for the second). A click on a collapsed node opens it; the breadcrumb goes
 * back up. Layout: layered (cycles broken by a depth-first search,
 * longest-path layers, dummy nodes along long edges, barycentre sweeps for
 * the order, then positions pulled towards their neighbours' mean),
 * each device's cluster laid out apart and the clusters packed in rows.
 *
 * Interface (window.TftraceGraph), for report.js's graph tab:
 *   TftraceGraph.view(data, diff)  a viewer of the graph data (diff: the
 *                            page's graph_diff, or null), or null when the
 *                            data is unusable; a viewer has
 *     .markup()              the current view as SVG markup in the shape of
 *                            Graphviz's (g.node whose first <title> is the
 *                            node's name or the scope's path, g.edge,
 *                            g.cluster); lays it out on the first call
 *     .open(el)              el a g.node of the markup: when it is
 *                            collapsed, makes it the current view and
 *                            returns true (redraw), else false
 *     .go(path)              opens the scope of that path ('' the top) on
 *                            every device; false when there is none
 *     .crumbs(redraw, extra) the breadcrumb, extra (an element, or null)
 *                            and legend element; a click on a crumb goes
 *                            back up and calls redraw()
 *     .colours()             the colourings offered, the first the
 *                            default: 'diff' (the change in time) and
 *                            'memory' (in output memory) with a
 *                            graph_diff, then 'time'
 *     .set(colour, fold)     colours by one of those (another: the
 *                            default), numbered sibling scopes folded or
 *                            not (the page keeps both in its address)
 *     .folds                 folded entries in the current view
 *     .nodes                 nodes of the graph
 * Each layout sets on <html>: data-graph-view (the view's scope path, or
 * its devices or range; "(top)"), data-graph-view-depth (its crumbs),
 * data-graph-view-ops and data-graph-view-collapsed (its nodes of each
 * kind), data-graph-view-folded (its folded entries), data-graph-view-edges,
 * data-graph-view-device (the device of a view of one), data-graph-colour
 * (time; diff: by the change in time; memory: in output memory),
 * data-graph-layout-ms. */
(function () {
  'use strict';

  var SEQ = ['#ffffcc', '#ffeda0', '#fed976', '#feb24c', '#fd8d3c', '#fc4e2a', '#e31a1c', '#bd0026', '#800026'];
  var CHAR_W = 6.6, NODE_H = 34, GAP_X = 18, GAP_Y = 46, LABEL_MAX = 36, WRAP_W = 1800, CLUSTER_PAD = 14;

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function cut(s) { return s.length > LABEL_MAX ? s.slice(0, LABEL_MAX - 1) + '\u2026' : s; }
  /* times and bytes as the rest of the page writes them (format.js) */
  function fmtTime(us) { return TftraceFormat.fmtUs(us); }
  function fmtBytes(b) { return TftraceFormat.fmtBytes(b); }
  function ints(a) { return Array.isArray(a) ? a : []; }
  /* names with their numbers compared as numbers (task:2 before task:10):
   * natKey cuts a name into its runs of digits (as numbers) and others,
   * once; natCmp compares names, keyCmp keys */
  var natCache = Object.create(null);
  function natKey(s) {
    s = String(s);
    var k = natCache[s];
    if (k) return k;
    k = s.match(/\d+|\D+/g) || [];
    for (var i = 0; i < k.length; i++) if (k[i].charCodeAt(0) <= 57 && k[i].charCodeAt(0) >= 48) k[i] = +k[i];
    k.text = s;
    return (natCache[s] = k);
  }
  function keyCmp(x, y) {
    for (var i = 0; i < x.length && i < y.length; i++) {
      var a = x[i], b = y[i];
      if (a === b) continue;
      var p = typeof a === 'number', q = typeof b === 'number';
      if (p && q) return a - b;
      if (p !== q) return p ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return x.length - y.length || (x.text < y.text ? -1 : x.text > y.text ? 1 : 0);
  }
  function natCmp(a, b) { return keyCmp(natKey(a), natKey(b)); }

  function Model(d) {
    var S = ints(d.strings).map(String), nS = S.length;
    function s(k) { return k >= 0 && k < nS ? S[k] : ''; }
    var sc = ints(d.scopes), nd = ints(d.nodes), ed = ints(d.edges), dv = ints(d.devices);
    var nScopes = (sc.length >> 1) + 1, N = nd.length >> 2, i;
    this.limit = d.max_nodes > 0 ? Math.max(8, +d.max_nodes) : 400;
    this.devices = dv.map(function (k) { return s(k) || '(no device)'; });
    this.parent = new Int32Array(nScopes);
    this.depth = new Int32Array(nScopes);
    this.comp = new Array(nScopes);
    this.comp[0] = '';
    for (i = 1; i < nScopes; i++) {
      var p = sc[2 * (i - 1)];
      if (!(p >= 0 && p < i)) throw new Error('graph data: scope ' + i + ' has parent ' + p);
      this.parent[i] = p;
      this.depth[i] = this.depth[p] + 1;
      this.comp[i] = s(sc[2 * (i - 1) + 1]);
    }
    this.nScopes = nScopes;
    this.N = N;
    this.scope = new Int32Array(N); this.leaf = new Array(N); this.op = new Array(N); this.dev = new Int32Array(N);
    var tu = ints(d.time_us), by = ints(d.bytes), ex = ints(d.execs);
    this.time = new Float64Array(N); this.bytes = new Float64Array(N); this.execs = new Float64Array(N);
    for (i = 0; i < N; i++) {
      var sq = nd[4 * i], dq = nd[4 * i + 3];
      this.scope[i] = sq >= 0 && sq < nScopes ? sq : 0;
      this.leaf[i] = s(nd[4 * i + 1]);
      this.op[i] = s(nd[4 * i + 2]);
      this.dev[i] = dq >= 0 && dq < this.devices.length ? dq : 0;
      this.time[i] = +tu[i] || 0; this.bytes[i] = +by[i] || 0; this.execs[i] = +ex[i] || 0;
    }
    var M = Math.floor(ed.length / 3), E = [];
    for (i = 0; i < M; i++) {
      var a = ed[3 * i], b = ed[3 * i + 1];
      if (a >= 0 && a < N && b >= 0 && b < N && a !== b) E.push(a, b, ed[3 * i + 2] | 0);
    }
    this.edges = E;
    this.pathCache = Object.create(null);
  }
  Model.prototype.path = function (sc) {
    if (sc === 0) return '';
    var c = this.pathCache[sc];
    if (c === undefined) {
      var p = this.path(this.parent[sc]);
      c = this.pathCache[sc] = p ? p + '/' + this.comp[sc] : this.comp[sc];
    }
    return c;
  };
  Model.prototype.name = function (n) {
    var p = this.path(this.scope[n]);
    return p ? p + '/' + this.leaf[n] : this.leaf[n];
  };
  Model.prototype.findScope = function (path) {
    if (!path) return 0;
    for (var k = 1; k < this.nScopes; k++) if (this.path(k) === path) return k;
    return -1;
  };

  /* The items of a view: {key, kind ('op', 'scope', 'device', 'range'),
   * label, key text, dev, open (a view) or node}, and per graph node its
   * item (-1 outside). A view: {scope, devs (null: all), only (null, or
   * the base keys it keeps), label}. */
  function itemsOf(m, v, fold) {
    var b = baseItems(m, v), i;
    if (fold && !v.nofold) foldItems(m, v, b);
    var g = groupItems(m, v, b.base);
    var itemOf = new Int32Array(m.N).fill(-1);
    for (i = 0; i < m.N; i++) if (b.baseOf[i] >= 0) itemOf[i] = g.itemOfBase[b.baseOf[i]];
    fillItems(m, g.items, itemOf);
    return { items: g.items, itemOf: itemOf };
  }
  /* The base items of view v: per graph node, its op's item when it lies
   * in v.scope itself, else its device's item of the child scope of
   * v.scope holding it (baseOf: -1 outside the view). */
  function baseItems(m, v) {
    var devOk = null, i;
    if (v.devs) { devOk = new Uint8Array(m.devices.length); v.devs.forEach(function (x) { devOk[x] = 1; }); }
    var vd = m.depth[v.scope], child = new Int32Array(m.nScopes).fill(-2);
    child[v.scope] = 0;
    function childOf(s) { /* the child scope of v.scope at or above s; 0: s is v.scope; -1: outside */
      if (child[s] !== -2) return child[s];
      var chain = [], t = s, q;
      while (child[t] === -2 && m.depth[t] > vd) { chain.push(t); t = m.parent[t]; }
      if (child[t] === -2) child[t] = -1;
      var r = child[t];
      for (q = chain.length - 1; q >= 0; q--) {
        if (r === 0) r = chain[q];
        child[chain[q]] = r;
      }
      return child[s];
    }
    /* base items: an op's key -1 - node, a scope's device * scopes + scope */
    var base = [], byKey = new Map(), baseOf = new Int32Array(m.N).fill(-1);
    for (i = 0; i < m.N; i++) {
      if (devOk && !devOk[m.dev[i]]) continue;
      var c = childOf(m.scope[i]);
      if (c < 0) continue;
      var key = c === 0 ? -1 - i : m.dev[i] * m.nScopes + c;
      if (v.only && !v.only.has(key)) continue;
      var b = c === 0 ? undefined : byKey.get(key);
      if (b === undefined) {
        b = base.length;
        if (c) byKey.set(key, b);
        base.push(c === 0
          ? { key: key, kind: 'op', dev: m.dev[i], node: i, sort: '1' + m.leaf[i] }
          : { key: key, kind: 'scope', dev: m.dev[i], scope: c, sort: '0' + m.comp[c] });
      }
      baseOf[i] = b;
    }
    return { base: base, baseOf: baseOf };
  }
  /* graph-render's family of a scope's last component (graphdot_scope.c,
   * split_number): "tower_3" is tower's 3, "dense" dense's 0 */
  function family(comp) {
    var i = comp.length;
    while (i > 0 && comp.charCodeAt(i - 1) >= 48 && comp.charCodeAt(i - 1) <= 57) i--;
    if (i < comp.length && i >= 2 && comp.charAt(i - 1) === '_' && comp.length - i <= 12)
      return { base: comp.slice(0, i - 1), num: +comp.slice(i) };
    return { base: comp, num: 0 };
  }
  /* Numbered siblings fold as graph-render --fold folds them: in a family
   * (the child scopes of one scope whose last components are one base and
   * a number), every scope above the family's lowest number, across
   * devices, folds into one entry per device, "tower_1 ... tower_7/ (7
   * folded)" (graph-render's words), which opens to the list of them. A view folds only where
   * two or more fold (one alone would not shorten it). b: baseItems'. */
  function foldItems(m, v, b) {
    var low = new Map(), fam = new Map(), s;
    for (s = 1; s < m.nScopes; s++) {
      if (m.parent[s] !== v.scope) continue;
      var f = family(m.comp[s]), l = low.get(f.base);
      if (l === undefined || f.num < l) low.set(f.base, f.num);
    }
    b.base.forEach(function (it, q) {
      if (it.kind !== 'scope') return;
      var f = family(m.comp[it.scope]);
      if (!(f.num > low.get(f.base))) return;
      var k = it.dev + '\n' + f.base, g = fam.get(k);
      if (!g) fam.set(k, g = { base: f.base, dev: it.dev, qs: [], lo: f.num, hi: f.num });
      g.qs.push(q);
      g.lo = Math.min(g.lo, f.num); g.hi = Math.max(g.hi, f.num);
    });
    var into = new Int32Array(b.base.length).fill(-1), out = [], pre = m.path(v.scope);
    fam.forEach(function (g) {
      if (g.qs.length < 2) return;
      var keys = g.qs.map(function (q) { return b.base[q].key; });
      var lab = g.base + '_' + g.lo + ' ... ' + g.base + '_' + g.hi;
      var it = { key: 'f' + g.dev + ':' + g.base, kind: 'fold', dev: g.dev, members: keys, sort: '0' + g.base + '_' + g.lo,
        title: (pre ? pre + '/' : '') + lab + '/ (' + g.qs.length + ' folded)', l1: lab + '/ (' + g.qs.length + ' folded)',
        open: { scope: v.scope, devs: [g.dev], only: new Set(keys), nofold: true, label: (pre ? pre + '/' : '') + lab, short: lab + '/' } };
      g.qs.forEach(function (q) { into[q] = -2 - g.qs[0]; });
      into[g.qs[0]] = -2 - g.qs[0];
      it.at = g.qs[0];
      out.push(it);
    });
    if (!out.length) return;
    var base = [], map = new Int32Array(b.base.length), firstOf = new Map();
    out.forEach(function (it) { firstOf.set(it.at, it); });
    b.base.forEach(function (it, q) {
      if (into[q] === -1) { map[q] = base.length; base.push(it); return; }
      var first = -2 - into[q];
      if (q === first) { map[q] = base.length; base.push(firstOf.get(first)); } else map[q] = map[first];
    });
    for (var i = 0; i < m.N; i++) if (b.baseOf[i] >= 0) b.baseOf[i] = map[b.baseOf[i]];
    b.base = base;
  }
  /* The items drawn: the base items, or above the limit, devices, ranges
   * of devices or ranges of each device's children; itemOfBase maps. */
  function groupItems(m, v, base) {
    var devList = [], seen = Object.create(null);
    base.forEach(function (b) { if (!seen[b.dev]) { seen[b.dev] = 1; devList.push(b.dev); } });
    devList.sort(function (a, b) { return natCmp(m.devices[a], m.devices[b]) || a - b; });
    var g = { items: [], itemOfBase: new Int32Array(base.length) }, L = m.limit;
    if (base.length <= L)
      base.forEach(function (b, q) { g.itemOfBase[q] = q; g.items.push(b); });
    else if (devList.length > L / 4)
      groupByDevices(m, v, devList, base, g);
    else
      devList.forEach(function (dv) { groupByRanges(m, v, dv, base, g); });
    return g;
  }
  /* many devices: each device one node; over the limit, ranges of devices */
  function groupByDevices(m, v, devList, base, g) {
    var per = Math.ceil(devList.length / m.limit), groupOfDev = Object.create(null);
    for (var k = 0; k * per < devList.length; k++) {
      var ds = devList.slice(k * per, (k + 1) * per);
      ds.forEach(function (x) { groupOfDev[x] = g.items.length; });
      var lab = ds.length === 1 ? m.devices[ds[0]] : m.devices[ds[0]] + ' \u2026 ' + m.devices[ds[ds.length - 1]];
      g.items.push({ key: 'd' + ds[0] + (ds.length > 1 ? '-' + ds[ds.length - 1] : ''), kind: ds.length === 1 ? 'device' : 'range',
        dev: -1, devs: ds, title: lab, open: { scope: v.scope, devs: ds, only: null, label: ds.length === 1 ? m.devices[ds[0]] : ds.length + ' devices' } });
    }
    base.forEach(function (b, q) { g.itemOfBase[q] = groupOfDev[b.dev]; });
  }
  /* few devices, too many children: device dv's children in ranges
   * (scopes first, by name), the devices sharing the limit by their
   * children */
  function groupByRanges(m, v, dv, base, g) {
    var ord = [];
    base.forEach(function (b, q) { if (b.dev === dv) ord.push(q); });
    ord.sort(function (a, b) { return natCmp(base[a].sort, base[b].sort) || a - b; });
    var k = Math.max(1, Math.floor(m.limit * ord.length / base.length)), size = Math.ceil(ord.length / k);
    for (var r = 0; r * size < ord.length; r++) {
      var part = ord.slice(r * size, (r + 1) * size);
      if (part.length === 1) { g.itemOfBase[part[0]] = g.items.length; g.items.push(base[part[0]]); continue; }
      var only = new Set();
      part.forEach(function (q) {
        (base[q].members || [base[q].key]).forEach(function (k) { only.add(k); });
        g.itemOfBase[q] = g.items.length;
      });
      var first = base[part[0]].sort.slice(1), last = base[part[part.length - 1]].sort.slice(1);
      g.items.push({ key: 'r' + dv + ':' + r, kind: 'range', dev: dv, title: first + ' \u2026 ' + last + ' (' + part.length + ')',
        open: { scope: v.scope, devs: [dv], only: only, label: first + ' \u2026 ' + last } });
    }
  }
  /* Each item's costs (the sums of its nodes') and texts. */
  function fillItems(m, items, itemOf) {
    items.forEach(function (it) {
      it.time = 0; it.bytes = 0; it.execs = 0; it.nops = 0; it.ops = Object.create(null);
      it.extIn = 0; it.extOut = 0;
      if (it.kind === 'op') {
        it.name = m.name(it.node);
        it.l1 = cut(m.leaf[it.node] || it.name);
        it.l2 = cut(m.op[it.node]);
      } else if (it.kind === 'scope') {
        it.name = m.path(it.scope);
        it.l1 = cut(m.comp[it.scope] + '/');
        it.open = { scope: it.scope, devs: [it.dev], only: null, label: it.name, short: m.comp[it.scope] + '/' };
      } else {
        it.name = it.title;
        it.l1 = it.kind === 'fold' && it.l1.length <= 2 * LABEL_MAX ? it.l1 : cut(it.l1 || it.title); /* its count in sight */
      }
    });
    for (var i = 0; i < m.N; i++) {
      var t = itemOf[i];
      if (t < 0) continue;
      var x = items[t];
      x.time += m.time[i]; x.bytes += m.bytes[i]; x.execs += m.execs[i]; x.nops++;
      x.ops[m.op[i]] = (x.ops[m.op[i]] || 0) + 1;
    }
    items.forEach(function (it) {
      if (it.kind === 'op') return;
      var ops = Object.keys(it.ops).sort(function (a, b) { return it.ops[b] - it.ops[a] || (a < b ? -1 : 1); });
      it.types = ops.slice(0, 3).map(function (o) { return o + ' ' + it.ops[o]; }).join(', ') +
        (ops.length > 3 ? ', +' + (ops.length - 3) + ' types' : '');
      it.l2 = it.nops + (it.nops === 1 ? ' op' : ' ops') + (it.kind === 'device' || it.kind === 'range' ? '' : ': ' + cut(it.types));
      if (it.l2.length > LABEL_MAX) it.l2 = it.l2.slice(0, LABEL_MAX - 1) + '\u2026';
    });
  }

  /* A layered layout of one cluster: items ids, edges [a, b] among them;
   * sets it.x, it.y (centre) and returns {w, h, bends: {key 'a>b': [[x, y], ...]}}. */
  function layered(ids, items, edges) {
    var n = ids.length, loc = Object.create(null), i;
    ids.forEach(function (id, q) { loc[id] = q; });
    var E = [];
    edges.forEach(function (e) { var a = loc[e[0]], b = loc[e[1]]; if (a !== undefined && b !== undefined && a !== b) E.push([a, b, e]); });
    breakCycles(n, E);
    var lp = longestPath(n, E), g = vertices(ids, items, E, lp.layer);
    var V = g.V, L = orderLayers(V, lp.order, n, g.chains);
    placeX(V, L);
    var top = wrapRows(V, L), nl = L.length;
    var minX = Infinity, maxX = -Infinity;
    V.forEach(function (v) { minX = Math.min(minX, v.x - v.w / 2); maxX = Math.max(maxX, v.x + v.w / 2); });
    if (!V.length) { minX = 0; maxX = 0; }
    V.forEach(function (v) { v.x -= minX; });
    for (i = 0; i < n; i++) { items[ids[i]].x = V[i].x; items[ids[i]].y = V[i].y; }
    var bends = Object.create(null);
    g.chains.forEach(function (c) {
      var pts = c.chain.slice(1, -1).map(function (q) { return [V[q].x, V[q].y]; });
      if (c.rev) pts.reverse();
      bends[c.e[0] + '>' + c.e[1]] = pts;
    });
    return { w: maxX - minX, h: nl ? top - GAP_Y : 0, bends: bends };
  }
  /* break cycles: edges back to a node on the depth-first stack are reversed (e.rev) */
  function breakCycles(n, E) {
    var state = new Uint8Array(n), adj = [], i;
    for (i = 0; i < n; i++) adj.push([]);
    E.forEach(function (e, q) { adj[e[0]].push(q); });
    for (var r = 0; r < n; r++) {
      if (state[r]) continue;
      var st = [[r, 0]];
      state[r] = 1;
      while (st.length) {
        var top = st[st.length - 1], u = top[0];
        if (top[1] < adj[u].length) {
          var e = E[adj[u][top[1]++]], w = e[1];
          if (state[w] === 1) e.rev = true;
          else if (!state[w]) { state[w] = 1; st.push([w, 0]); }
        } else { state[u] = 2; st.pop(); }
      }
    }
  }
  /* longest-path layers from the sources, and the topological order */
  function longestPath(n, E) {
    var out = [], inn = [], i;
    for (i = 0; i < n; i++) { out.push([]); inn.push([]); }
    E.forEach(function (e) { var a = e.rev ? e[1] : e[0], b = e.rev ? e[0] : e[1]; out[a].push(b); inn[b].push(a); });
    var layer = new Int32Array(n), indeg = new Int32Array(n), queue = [], order = [];
    for (i = 0; i < n; i++) { indeg[i] = inn[i].length; if (!indeg[i]) queue.push(i); }
    while (queue.length) {
      var x = queue.shift();
      order.push(x);
      out[x].forEach(function (y) { if (layer[x] + 1 > layer[y]) layer[y] = layer[x] + 1; if (--indeg[y] === 0) queue.push(y); });
    }
    return { layer: layer, order: order };
  }
  /* vertices: the items, then dummies along edges over several layers */
  function vertices(ids, items, E, layer) {
    var V = [], i;
    for (i = 0; i < ids.length; i++) {
      var it = items[ids[i]];
      V.push({ w: it.w, layer: layer[i], up: [], down: [], item: it });
    }
    var chains = [], dummies = 0;
    E.forEach(function (e) {
      var a = e.rev ? e[1] : e[0], b = e.rev ? e[0] : e[1];
      var span = layer[b] - layer[a], prev = a, chain = [a];
      if (span > 1 && dummies + span <= 20000) {
        for (var l = layer[a] + 1; l < layer[b]; l++) {
          V.push({ w: 8, layer: l, up: [], down: [], dummy: true });
          var d = V.length - 1;
          V[prev].down.push(d); V[d].up.push(prev);
          chain.push(d); prev = d; dummies++;
        }
      }
      V[prev].down.push(b); V[b].up.push(prev);
      chain.push(b);
      chains.push({ e: e[2], rev: !!e.rev, chain: chain });
    });
    return { V: V, chains: chains };
  }
  /* The layers' rows: first the topological order (dummies after their
   * source), then barycentre sweeps down and up; sets each V's pos. */
  function orderLayers(V, order, n, chains) {
    var nl = 0, i;
    V.forEach(function (v) { if (v.layer + 1 > nl) nl = v.layer + 1; });
    var L = [];
    for (i = 0; i < nl; i++) L.push([]);
    var placed = new Uint8Array(V.length);
    function place(q) { if (!placed[q]) { placed[q] = 1; L[V[q].layer].push(q); } }
    order.forEach(function (q) { place(q); });
    for (i = 0; i < n; i++) place(i);
    chains.forEach(function (c) { c.chain.forEach(place); });
    L.forEach(function (row) { row.forEach(function (q, p) { V[q].pos = p; }); });
    function sweep(down) {
      for (var li = down ? 1 : nl - 2; down ? li < nl : li >= 0; li += down ? 1 : -1) {
        var row = L[li];
        row.forEach(function (q) {
          var nb = down ? V[q].up : V[q].down;
          if (nb.length) {
            var s = 0;
            nb.forEach(function (z) { s += V[z].pos; });
            V[q].bc = s / nb.length;
          } else V[q].bc = V[q].pos;
        });
        row.sort(function (a, b) { return V[a].bc - V[b].bc || V[a].pos - V[b].pos; });
        row.forEach(function (q, p) { V[q].pos = p; });
      }
    }
    for (var k = 0; k < 4; k++) { sweep(true); sweep(false); }
    return L;
  }
  /* x: packed, then pulled towards the mean of the neighbours, order kept */
  function placeX(V, L) {
    var nl = L.length, i, k;
    L.forEach(function (row) {
      var x = 0;
      row.forEach(function (q) { V[q].x = x + V[q].w / 2; x += V[q].w + GAP_X; });
    });
    for (k = 0; k < 6; k++) {
      for (i = 1; i < nl; i++) pullRow(V, L[i], true);
      for (i = nl - 2; i >= 0; i--) pullRow(V, L[i], false);
    }
  }
  function pullRow(V, row, down) {
    var want = row.map(function (q) {
      var nb = (down ? V[q].up : V[q].down), s = 0;
      if (!nb.length) return V[q].x;
      nb.forEach(function (z) { s += V[z].x; });
      return s / nb.length;
    });
    var xs = want.slice();
    for (var p = 1; p < row.length; p++) {
      var min = xs[p - 1] + (V[row[p - 1]].w + V[row[p]].w) / 2 + GAP_X;
      if (xs[p] < min) xs[p] = min;
    }
    for (p = row.length - 2; p >= 0; p--) {
      var max = xs[p + 1] - (V[row[p + 1]].w + V[row[p]].w) / 2 - GAP_X;
      if (xs[p] > max) xs[p] = Math.max(max, want[p] < max ? want[p] : max);
    }
    for (p = 1; p < row.length; p++) { /* the second pass may have pushed left of the first */
      var mn = xs[p - 1] + (V[row[p - 1]].w + V[row[p]].w) / 2 + GAP_X;
      if (xs[p] < mn) xs[p] = mn;
    }
    row.forEach(function (q, p2) { V[q].x = xs[p2]; });
  }
  /* a layer wider than WRAP_W (items with no edge among them all land in
   * the first) wraps into rows; sets y, returns the height */
  function wrapRows(V, L) {
    var top = 0;
    L.forEach(function (row) {
      if (!row.length) return;
      var first = V[row[0]].x - V[row[0]].w / 2, start = first, r = 0;
      row.forEach(function (q) {
        var v = V[q];
        if (v.x + v.w / 2 - start > WRAP_W) { r++; start = v.x - v.w / 2; }
        v.x -= start - first;
        v.y = top + r * (NODE_H + GAP_Y / 2) + NODE_H / 2;
      });
      top += (r + 1) * (NODE_H + GAP_Y / 2) + GAP_Y / 2;
    });
    return top;
  }

  function Viewer(m, diff) {
    this.m = m;
    /* the colourings: by the change in time (diff), in output memory */
    this.diffs = { diff: diffOf(diff), memory: null };
    if (this.diffs.diff) {
      this.diffs.memory = diffOf(diff.memory);
      m.diffOutline = this.diffs.diff.outline;
    }
    this.colour = this.colours()[0];
    this.nodes = m.N;
    this.stack = [{ scope: 0, devs: null, only: null, label: 'graph' }];
    this.cur = null;
    this.fold = true;
  }
  /* the colourings this graph offers, the first its default */
  Viewer.prototype.colours = function () {
    var c = [];
    if (this.diffs.diff) c.push('diff');
    if (this.diffs.memory) c.push('memory');
    return c.concat('time');
  };
  /* colour by one of colours() (another: the default), numbered scopes
   * folded or not; the next markup() lays out again where that changed */
  Viewer.prototype.set = function (colour, fold) {
    if (this.colours().indexOf(colour) < 0) colour = this.colours()[0];
    if (colour === this.colour && !fold === !this.fold) return;
    this.colour = colour;
    this.fold = !!fold;
    this.cur = null;
  };
  Viewer.prototype.layout = function () {
    var began = (typeof performance !== 'undefined' ? performance.now() : Date.now());
    var m = this.m, v = this.stack[this.stack.length - 1], r = itemsOf(m, v, this.fold), i;
    /* a view of one collapsed node opens it (a chain of single scopes) */
    for (i = 0; i < 64 && r.items.length === 1 && r.items[0].open; i++) {
      r.items[0].open.step = stepOf(m, v, r.items[0], r.items);
      this.stack.push(r.items[0].open);
      v = this.stack[this.stack.length - 1];
      r = itemsOf(m, v, this.fold);
    }
    var items = r.items;
    var d = this.diffs[this.colour];
    this.legend = d ? diffItems(m, items, r.itemOf, d) : colourItems(items);
    items.forEach(function (it) { it.w = Math.max(it.l1.length, (it.l2 || '').length, 4) * CHAR_W + 16; });
    var edges = viewEdges(m, items, r.itemOf), pic = clustersOf(m, items, edges);
    var o = pictureOf(m, items, edges, pic);
    this.cur = { items: items, markup: o.markup };
    this.folds = o.nFold;
    var html = document.documentElement;
    html.setAttribute('data-graph-view', this.stack.length > 1 ? v.label : '(top)');
    html.setAttribute('data-graph-view-depth', String(this.stack.length - 1));
    html.setAttribute('data-graph-view-device', v.devs && v.devs.length === 1 ? m.devices[v.devs[0]] : '');
    html.setAttribute('data-graph-view-ops', String(o.nOps));
    html.setAttribute('data-graph-view-collapsed', String(o.nColl));
    html.setAttribute('data-graph-view-folded', String(o.nFold));
    html.setAttribute('data-graph-colour', d ? this.colour : 'time');
    html.setAttribute('data-graph-view-edges', String(edges.length));
    html.setAttribute('data-graph-layout-ms', String(Math.round((typeof performance !== 'undefined' ? performance.now() : Date.now()) - began)));
  };
  /* edges among the items ([a, b, count, kinds]), and stubs (extIn, extOut) */
  function viewEdges(m, items, itemOf) {
    var pair = new Map(), edges = [], nI = items.length;
    for (var i = 0; i < m.edges.length; i += 3) {
      var a = itemOf[m.edges[i]], b = itemOf[m.edges[i + 1]], kind = m.edges[i + 2];
      if (a < 0 && b < 0) continue;
      if (a < 0) { items[b].extIn++; continue; }
      if (b < 0) { items[a].extOut++; continue; }
      if (a === b) continue;
      var key = a * nI + b, e = pair.get(key);
      if (!e) { e = [a, b, 0, 0]; pair.set(key, e); edges.push(e); }
      e[2]++;
      if (kind === 1 || kind === 3) e[3] |= 1; else e[3] |= 2;
      if (kind >= 2) e[3] |= 4;
    }
    return edges;
  }
  /* clusters: per device of the items (device and range items: one
   * cluster of their own), each laid out, then packed in rows */
  function clustersOf(m, items, edges) {
    var byDev = Object.create(null), clusters = [];
    items.forEach(function (it, q) {
      var k = it.dev >= 0 ? 'd' + it.dev : '*';
      var c = byDev[k];
      if (!c) { c = byDev[k] = { dev: it.dev, ids: [] }; clusters.push(c); }
      c.ids.push(q);
    });
    clusters.sort(function (a, b) { return natCmp(a.dev < 0 ? '' : m.devices[a.dev], b.dev < 0 ? '' : m.devices[b.dev]); });
    var bends = Object.create(null), pad = CLUSTER_PAD, head = 22;
    clusters.forEach(function (c) {
      var lay = c.lay = layered(c.ids, items, edges);
      c.w = Math.max(lay.w, c.dev >= 0 ? Math.min(m.devices[c.dev].length, 60) * CHAR_W : 0) + 2 * pad;
      c.h = lay.h + 2 * pad + head;
    });
    var area = 0;
    clusters.forEach(function (c) { area += c.w * c.h; });
    var rowW = Math.max(1200, Math.sqrt(area) * 1.6), x = 0, y = 0, rowH = 0, W = 0;
    clusters.forEach(function (c) {
      if (x > 0 && x + c.w > rowW) { x = 0; y += rowH + 30; rowH = 0; }
      c.x = x; c.y = y;
      x += c.w + 30;
      rowH = Math.max(rowH, c.h);
      W = Math.max(W, c.x + c.w);
      c.ids.forEach(function (q) { items[q].x += c.x + pad; items[q].y += c.y + pad + head; });
      for (var k in c.lay.bends) bends[k] = c.lay.bends[k].map(function (p) { return [p[0] + c.x + pad, p[1] + c.y + pad + head]; });
    });
    return { clusters: clusters, bends: bends, W: W, H: y + rowH };
  }
  /* colours: nine log bins between the least and the most time drawn, as
   * graph-render's; returns the legend (null: no time) */
  function colourItems(items) {
    var lo = Infinity, hi = 0;
    items.forEach(function (it) { if (it.time > 0) { lo = Math.min(lo, it.time); hi = Math.max(hi, it.time); } });
    var span = hi > lo ? Math.log(hi / lo) : 1;
    items.forEach(function (it) {
      if (!(it.time > 0)) { it.fill = '#ffffff'; it.bin = -1; return; }
      var k = hi > lo ? Math.floor(SEQ.length * Math.log(it.time / lo) / span) : SEQ.length - 1;
      it.bin = Math.max(0, Math.min(SEQ.length - 1, k));
      it.fill = SEQ[it.bin];
    });
    return hi > 0 ? { lo: lo, hi: hi, span: span, one: !(hi > lo) } : null;
  }
  /* The two-run page's colouring (its "graph_diff", emit/report_diff.c: per
   * node of the second run its time in A and B in ns, and whether it is
   * new, matched as graph-render --diff matches them): per node its values,
   * once; null when the data is unusable. */
  function diffOf(gd) {
    if (!gd || typeof gd !== 'object' || !gd.nodes || typeof gd.nodes !== 'object' || !Array.isArray(gd.colors) || gd.colors.length !== 9)
      return null;
    var lg = Array.isArray(gd.legend) ? gd.legend : [], at = -1;
    lg.forEach(function (e, q) { if (at < 0 && Array.isArray(e) && /^only in A/.test(String(e[1]))) at = q; });
    return { nodes: gd.nodes, colors: gd.colors.map(String), outline: String(gd.outline_new || '#1b7837'),
      title: String(gd.title || 'change from A to B'), unit: gd.unit === 'bytes' ? 'bytes' : 'ns',
      gone: at < 0 ? [] : lg.slice(at).map(function (e) { return [String(e[0]), String(e[1])]; }) };
  }
  /* per graph node of m: A, B and new, from the diff's nodes by name
   * (once per diff) */
  function diffValues(m, d) {
    if (d.A) return d;
    d.A = new Float64Array(m.N); d.B = new Float64Array(m.N); d.New = new Uint8Array(m.N);
    for (var i = 0; i < m.N; i++) {
      var c = d.nodes[m.name(i)];
      if (!Array.isArray(c)) { d.New[i] = 1; continue; } /* as graph-render: not in B's table, new */
      d.A[i] = +c[0] || 0; d.B[i] = +c[1] || 0; d.New[i] = c[2] ? 1 : 0;
    }
    return d;
  }
  /* graph-render's bin of a change against the view's largest, s
   * (graphdot_color.c, diff_bin): 4 unchanged; 1 to 4 steps away, slower
   * up, for |delta| in (0, s/64], (s/64, s/16], (s/16, s/4], (s/4, s] */
  function diffBin(delta, s) {
    if (delta === 0 || !(s > 0)) return 4;
    var a = Math.abs(delta), k = a > s / 4 ? 4 : a > s / 16 ? 3 : a > s / 64 ? 2 : 1;
    return delta > 0 ? 4 + k : 4 - k;
  }
  /* a change as graph-render writes it ("+1.23 ms", "-4.00MB", "0"), in the page's units */
  function fmtChange(v, unit) {
    if (v === 0) return '0';
    var a = Math.abs(v);
    return (v > 0 ? '+' : '-') + (unit === 'bytes' ? fmtBytes(a) : fmtTime(a / 1000));
  }
  function fmtPctChange(a, b) { if (a === 0) return ''; var p = 100 * (b - a) / a; return ' (' + (p >= 0 ? '+' : '') + p.toFixed(1) + '%)'; }
  /* Each item coloured by the change of its nodes' sum from A to B, at the
   * view's scale (its largest change), as graph-render --diff colours a
   * picture; its second line the change (graph-render's diff_line).
   * Returns the legend. */
  function diffItems(m, items, itemOf, d) {
    var V = diffValues(m, d);
    items.forEach(function (it) { it.dA = 0; it.dB = 0; it.dNew = 0; it.dN = 0; });
    for (var i = 0; i < m.N; i++) {
      var t = itemOf[i];
      if (t < 0) continue;
      var x = items[t];
      x.dN++; x.dB += V.B[i];
      if (V.New[i]) x.dNew++; else x.dA += V.A[i];
    }
    var up = 0, down = 0, nNew = 0, u = d.unit;
    items.forEach(function (it) { var c = it.dB - it.dA; up = Math.max(up, c); down = Math.max(down, -c); nNew += it.dNew; });
    var s = Math.max(up, down);
    items.forEach(function (it) {
      var c = it.dB - it.dA, op = it.kind === 'op';
      it.bin = it.dA === 0 && it.dB === 0 ? -1 : diffBin(c, s);
      it.fill = it.bin < 0 ? '#ffffff' : d.colors[it.bin];
      it.dark = it.bin >= 0 && (it.bin <= 1 || it.bin >= 7);
      if (it.dA === 0 && it.dB === 0 && !it.dNew) return;
      it.l2 = op && it.dNew ? 'new' + (it.dB ? ': ' + fmtChange(it.dB, u) : '')
        : (c === 0 ? 'no change' : fmtChange(c, u)) + (op && c ? fmtPctChange(it.dA, it.dB) : !op && it.dNew ? ', ' + it.dNew + ' new' : '');
      it.diffTip = op && it.dNew ? 'new: only in B; B ' + fmtChange(it.dB, u).replace(/^\+/, '')
        : 'A ' + fmtChange(it.dA, u).replace(/^\+/, '') + ', B ' + fmtChange(it.dB, u).replace(/^\+/, '') + ', B - A ' + fmtChange(c, u) +
          (c ? fmtPctChange(it.dA, it.dB) : '') + (!op && it.dNew ? '; ' + it.dNew + ' of ' + it.dN + ' nodes new (only in B)' : '');
    });
    return { diff: true, s: s, up: up, down: down, nNew: nNew, lines: diffLegend(d, s, up, down, nNew) };
  }
  /* graph-render --diff's legend lines (graphdot_color.c, diff_legend_bins
   * and after), [fill, text, lo, hi] in the unit, for this view */
  function diffLegend(d, s, up, down, nNew) {
    var edge = [0, s / 64, s / 16, s / 4, s], out = [], k, u = d.unit;
    function line(c, lo, hi) { lo = Math.round(lo); hi = Math.round(hi); out.push([c, fmtChange(lo, u) + ' to ' + fmtChange(hi, u), lo, hi]); }
    for (k = 4; k >= 1; k--) if (up > edge[k - 1]) line(d.colors[4 + k], edge[k - 1], Math.min(edge[k], up));
    out.push([d.colors[4], 'no change']);
    for (k = 1; k <= 4; k++) if (down > edge[k - 1]) line(d.colors[4 - k], -Math.min(edge[k], down), -edge[k - 1]);
    out.push(['#ffffff', u === 'bytes' ? 'no output in A nor B' : 'not run in A nor B']);
    if (nNew) out.push(['#ffffff', 'only in B (new): ' + nNew + ' node' + (nNew === 1 ? '' : 's') + ', green dashed outline']);
    return out.concat(d.gone);
  }
  /* The view's SVG markup, and how many ops and collapsed nodes it draws. */
  function pictureOf(m, items, edges, pic) {
    var W = pic.W, H = pic.H, pad = CLUSTER_PAD;
    var o = ['<svg class="tfg" viewBox="-20 -20 ' + (W + 40).toFixed(1) + ' ' + (H + 40).toFixed(1) +
      '" font-family="Helvetica,Arial,sans-serif" font-size="11">',
      '<defs><marker id="tfg-ah" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">' +
      '<path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>'];
    pic.clusters.forEach(function (c) {
      if (c.dev < 0) return;
      o.push('<g class="cluster"><title>' + esc(m.devices[c.dev]) + '</title><rect x="' + c.x.toFixed(1) + '" y="' + c.y.toFixed(1) +
        '" width="' + c.w.toFixed(1) + '" height="' + c.h.toFixed(1) + '" rx="6" fill="#f7f7f7" stroke="#999"/>' +
        '<text x="' + (c.x + pad).toFixed(1) + '" y="' + (c.y + 17).toFixed(1) + '" fill="#444">' + esc(m.devices[c.dev].length > 60 ? m.devices[c.dev].slice(0, 59) + '\u2026' : m.devices[c.dev]) + '</text></g>');
    });
    edges.forEach(function (e) {
      var A = items[e[0]], B = items[e[1]], pts = pic.bends[e[0] + '>' + e[1]] || [];
      var down = B.y >= A.y;
      var p = [[A.x, A.y + (down ? NODE_H / 2 : -NODE_H / 2)]].concat(pts, [[B.x, B.y + (down ? -NODE_H / 2 : NODE_H / 2)]]);
      var d = 'M' + p.map(function (q) { return q[0].toFixed(1) + ',' + q[1].toFixed(1); }).join('L');
      var style = (e[3] & 4 ? ' stroke-width="2"' : '') + (e[3] === 1 || e[3] === 5 ? ' stroke-dasharray="5,3"' : '');
      o.push('<g class="edge"><title>' + esc(A.name + ' \u2192 ' + B.name + (e[2] > 1 ? ' (' + e[2] + ' edges)' : '')) +
        '</title><path d="' + d + '" fill="none" stroke="#555"' + style + ' marker-end="url(#tfg-ah)"/></g>');
    });
    var nOps = 0, nColl = 0, nFold = 0;
    items.forEach(function (it, q) {
      if (it.kind === 'op') nOps++; else nColl++;
      if (it.kind === 'fold') nFold++;
      o.push(nodeMarkup(m, it, q));
    });
    o.push('</svg>');
    return { markup: o.join('\n'), nOps: nOps, nColl: nColl, nFold: nFold };
  }
  /* One item's node: its box, two lines of text, its tooltip and stubs. */
  function nodeMarkup(m, it, q) {
    var x0 = it.x - it.w / 2, y0 = it.y - NODE_H / 2, dark = it.dark !== undefined ? it.dark : it.bin >= SEQ.length - 3;
    var diff = it.dA !== undefined, line = !it.open ? '#777' : '#333';
    var tip = it.name + (it.kind === 'op' ? ' (' + m.op[it.node] + ')' : ': ' + it.nops + ' ops, ' + it.types) +
      (diff && it.diffTip ? '\n' + it.diffTip : '') +
      '\n' + (it.execs ? fmtTime(it.time) + ', ' + fmtBytes(it.bytes) + ', ' + it.execs + ' executions' : 'not run') +
      (it.extIn || it.extOut ? '\n' + it.extIn + ' edges in from outside this view, ' + it.extOut + ' out' : '') +
      (it.open ? '\nclick to open' : '');
    var stroke = diff && it.dNew ? '" stroke="' + esc(m.diffOutline) + '" stroke-width="2" stroke-dasharray="5,3"'
      : '" stroke="' + line + '"' + (it.open ? ' stroke-width="1.6"' : '');
    var s = '<g class="node' + (it.open ? ' collapsed' : '') + '" data-item="' + q + '"' +
      (diff ? ' data-diff="' + it.dA + ' ' + it.dB + ' ' + it.dNew + '" data-device="' + esc(it.dev >= 0 ? m.devices[it.dev] : '') + '"' : '') +
      '><title>' + esc(it.name) + '</title><g><title>' + esc(tip) + '</title>' +
      '<rect x="' + x0.toFixed(1) + '" y="' + y0.toFixed(1) + '" width="' + it.w.toFixed(1) + '" height="' + NODE_H + '" rx="' + (it.open ? 2 : 8) +
      '" fill="' + esc(it.fill) + stroke + '/>' +
      '<text x="' + it.x.toFixed(1) + '" y="' + (it.y - 3).toFixed(1) + '" text-anchor="middle" fill="' + (dark ? '#fff' : '#000') + '"' +
      (it.open ? ' font-weight="bold"' : '') + '>' + esc(it.l1) + '</text>' +
      '<text x="' + it.x.toFixed(1) + '" y="' + (it.y + 11).toFixed(1) + '" text-anchor="middle" font-size="9.5" fill="' + (dark ? '#fff' : '#333') + '">' + esc(it.l2 || '') + '</text>';
    if (it.extIn) s += '<path d="M' + it.x.toFixed(1) + ',' + (y0 - 14).toFixed(1) + 'V' + y0.toFixed(1) + '" stroke="#999" stroke-dasharray="2,2" marker-end="url(#tfg-ah)"/>' +
      '<text x="' + (it.x + 4).toFixed(1) + '" y="' + (y0 - 6).toFixed(1) + '" font-size="9" fill="#777">' + it.extIn + '</text>';
    if (it.extOut) s += '<path d="M' + it.x.toFixed(1) + ',' + (y0 + NODE_H).toFixed(1) + 'v14" stroke="#999" stroke-dasharray="2,2" marker-end="url(#tfg-ah)"/>' +
      '<text x="' + (it.x + 4).toFixed(1) + '" y="' + (y0 + NODE_H + 12).toFixed(1) + '" font-size="9" fill="#777">' + it.extOut + '</text>';
    return s + '</g></g>';
  }
  /* A failed layout leaves the tab empty and counts as a script error
   * (thrown aside), not as the page's failure. */
  Viewer.prototype.markup = function () {
    if (!this.cur) {
      try { this.layout(); } catch (e) {
        this.cur = { items: [], markup: null };
        document.documentElement.setAttribute('data-graph-view', 'error');
        setTimeout(function () { throw e; }, 0);
      }
    }
    return this.cur.markup;
  };
  Viewer.prototype.open = function (el) {
    if (!el || !this.cur || !el.getAttribute) return false;
    var it = this.cur.items[+el.getAttribute('data-item')];
    if (!it || !it.open) return false;
    it.open.step = stepOf(this.m, this.stack[this.stack.length - 1], it, this.cur.items);
    this.stack.push(it.open);
    this.cur = null;
    return true;
  };
  /* The view as the page's address keeps it (#graph=): the steps from the
   * top view, '/' between them, each the node opened, by its <title> less
   * the path of the scope it lies in ("conv1" in tower_0/), '%', '/' and '@'
   * escaped as %25, %2F, %40, then "@DEVICE" (escaped so too) where the
   * view had nodes of that name on several devices. A hand-written
   * "tower_0/conv1" opens those scopes on every device. */
  Viewer.prototype.where = function () {
    this.markup();
    return this.stack.slice(1).map(function (s) { return s.step || ''; }).join('/');
  };
  /* Opens the view of where() w ('' or none: the top), laying nothing
   * out; a step that opens nothing drops the whole address: the top view,
   * and false. */
  Viewer.prototype.go = function (w) {
    var steps = String(w || '').split('/'), stack = [this.stack[0]];
    for (var q = 0; q < steps.length; q++) {
      if (!steps[q]) continue;
      var next = stepTo(this.m, stack[stack.length - 1], steps[q], this.fold);
      if (!next) { stack.length = 1; break; }
      stack.push(next);
    }
    this.stack = stack;
    this.cur = null;
    return stack.length > 1 || !steps.some(Boolean);
  };
  function escStep(s) { return String(s).replace(/[%\/@]/g, encodeURIComponent); }
  function unStep(s) { try { return decodeURIComponent(s); } catch (e) { return s; } }
  /* an item's name less the path of v's scope */
  function relName(m, v, it) {
    var pre = m.path(v.scope);
    return pre && it.name.indexOf(pre + '/') === 0 ? it.name.slice(pre.length + 1) : it.name;
  }
  /* item it of view v (its items: items) as a step of where() */
  function stepOf(m, v, it, items) {
    var name = relName(m, v, it), twins = 0;
    items.forEach(function (x) { if (x.open && relName(m, v, x) === name) twins++; });
    return escStep(name) + (twins > 1 && it.dev >= 0 ? '@' + escStep(m.devices[it.dev]) : '');
  }
  /* The view one step (of where()) opens from view v, or null: the
   * collapsed node of that name (on that device) in v, as laid out with
   * numbered scopes folded or not (fold first); several of one scope on
   * as many devices, and a child scope of v hidden in a range, open on
   * v's devices. */
  function stepTo(m, v, step, fold) {
    var at = step.indexOf('@'), name = unStep(at < 0 ? step : step.slice(0, at)), dev = at < 0 ? null : unStep(step.slice(at + 1));
    for (var k = 0; k < 2; k++) {
      var items = itemsOf(m, v, k ? !fold : fold).items, hit = items.filter(function (it) {
        return it.open && relName(m, v, it) === name && (dev === null || (it.dev >= 0 && m.devices[it.dev] === dev));
      });
      if (hit.length === 1 || (hit.length && hit[0].kind !== 'scope')) { hit[0].open.step = stepOf(m, v, hit[0], items); return hit[0].open; }
      if (hit.length) break;
    }
    var pre = m.path(v.scope), sc = name.indexOf('/') < 0 ? m.findScope(pre ? pre + '/' + name : name) : -1, d = dev === null ? -1 : m.devices.indexOf(dev);
    if (sc <= 0 || m.parent[sc] !== v.scope || (dev !== null && d < 0)) return null;
    return { scope: sc, devs: d >= 0 ? [d] : v.devs, only: null, label: m.path(sc), short: m.comp[sc] + '/', step: escStep(name) + (d >= 0 ? '@' + escStep(dev) : '') };
  }
  Viewer.prototype.crumbs = function (redraw, extra) {
    var self = this, box = document.createElement('span');
    box.className = 'g-crumbs';
    var n = this.stack.length;
    this.stack.forEach(function (s, q) {
      if (n > 6 && q > 0 && q < n - 4) {
        if (q === 1) box.appendChild(document.createTextNode(' \u203a \u2026'));
        return;
      }
      if (q) box.appendChild(document.createTextNode(' \u203a '));
      var b = document.createElement(q === self.stack.length - 1 ? 'span' : 'button');
      b.textContent = s.short || s.label;
      if (q < self.stack.length - 1) {
        b.type = 'button'; b.className = 'btn';
        b.title = 'Back to ' + s.label;
        b.addEventListener('click', function () { self.stack.length = q + 1; self.cur = null; redraw(); });
      }
      box.appendChild(b);
    });
    this.markup();
    if (extra) { box.appendChild(document.createTextNode(' \u00b7')); box.appendChild(extra); }
    var lg = this.legend;
    if (lg && lg.diff) box.appendChild(diffLegendEl(lg, this.diffs[this.colour]));
    else if (lg) {
      var leg = document.createElement('span');
      leg.className = 'g-legend';
      leg.title = 'time, nine steps on a log scale';
      var html = ' \u00b7 time ';
      for (var k = 0; k < SEQ.length; k++) {
        if (lg.one && k !== SEQ.length - 1) continue;
        var a = lg.one ? lg.lo : lg.lo * Math.exp(lg.span * k / SEQ.length), b = lg.lo * Math.exp(lg.span * (k + 1) / SEQ.length);
        html += '<i style="display:inline-block;width:10px;height:10px;border:1px solid #999;background:' + SEQ[k] + '" title="' +
          esc(lg.one ? fmtTime(a) : fmtTime(a) + ' \u2013 ' + fmtTime(b)) + '"></i>';
      }
      leg.innerHTML = html + ' ' + esc(fmtTime(lg.lo)) + ' \u2013 ' + esc(fmtTime(lg.hi));
      box.appendChild(leg);
    }
    return box;
  };

  /* the diverging legend: a swatch per line of graph-render's (its text
   * on hover), the view's largest changes each way, the new nodes */
  function diffLegendEl(lg, d) {
    var leg = document.createElement('span');
    leg.className = 'g-legend';
    leg.title = d.title + ', B - A:\n' + lg.lines.map(function (l) { return l[1]; }).join('\n');
    var h = ' \u00b7 ' + esc(d.unit === 'bytes' ? 'output memory change' : 'time change') + ', B \u2212 A ';
    lg.lines.forEach(function (l) {
      if (l[2] === undefined && l[0] === '#ffffff') return;
      h += '<i style="display:inline-block;width:10px;height:10px;border:1px solid #999;background:' + esc(l[0]) + '" title="' + esc(l[1]) + '"' +
        (l[2] !== undefined ? ' data-lo="' + l[2] + '" data-hi="' + l[3] + '"' : '') + '></i>';
    });
    h += ' ' + esc(fmtChange(Math.round(lg.up), d.unit)) + ' \u2026 ' + esc(fmtChange(-Math.round(lg.down), d.unit));
    if (lg.nNew) h += ' \u00b7 <span style="border:2px dashed ' + esc(d.outline) + ';padding:0 3px">new</span> ' + lg.nNew;
    if (d.gone.length) h += ' \u00b7 <span title="' + esc(d.gone.map(function (l) { return l[1]; }).join('\n')) + '">' + esc(d.gone[0][1].replace(/:.*/, '')) + '</span>';
    leg.innerHTML = h;
    return leg;
  }

  /* #graph-click=NAME (for the tests): once the page is drawn, a click on
   * the graph's node of that name, through the page's own mouse handlers;
   * data-graph-clicked says NAME, or "none" when no node has it */
  window.addEventListener('load', function () {
    var h = /(?:^#|&)graph-click=([^&]*)/.exec(location.hash || ''), html = document.documentElement;
    if (!h) return;
    var want = decodeURIComponent(h[1]), nodes = document.querySelectorAll('#panel-graph g.node');
    for (var i = 0; i < nodes.length; i++) {
      var t = nodes[i].querySelector('title');
      if (t && t.textContent === want) {
        nodes[i].dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true, button: 0, clientX: 5, clientY: 5 }));
        window.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, button: 0, clientX: 5, clientY: 5 }));
        html.setAttribute('data-graph-clicked', want);
        return;
      }
    }
    html.setAttribute('data-graph-clicked', 'none');
  });

  window.TftraceGraph = {
    view: function (data, diff) {
      if (!data || typeof data !== 'object' || !Array.isArray(data.nodes)) return null;
      return new Viewer(new Model(data), diff);
    }
  };
})();
