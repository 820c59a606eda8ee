var Graph = (function () {

  /* ---------- graph ---------- */

  var graph = { svg: null, vb: null, nodes: null, sel: null, view: null, drag: null };
  /* The graph's view state, which the page's address keeps (graph-colour,
   * graph-fold): the colouring ('diff': the change in time, 'memory': in
   * output memory, both on a two-run page's second run only; 'time'; '':
   * the run's first, as offered()) and whether numbered sibling scopes
   * fold in the views graphview.js lays out. */
  var mode = { colour: '', fold: true };
  var COLOURS = ['diff', 'memory', 'time'], COLOUR_NAMES = ['change in time', 'change in memory', 'time'];

  function buildGraph() {
    var panel = $('panel-graph');
    panel.innerHTML = '';
    graph = { svg: null, vb: null, nodes: null, sel: null, view: null, drag: null };
    $('count-graph').textContent = '';
    function empty(msg) {
      panel.innerHTML = '<div class="card empty" style="margin:16px 18px">' + esc(msg) + '</div>';
      return 0;
    }
    if (run.graphView) run.graphView.set(mode.colour, mode.fold);
    /* graphview.js lays out when the tab is first shown, not in the first draw */
    if (!run.graph && run.graphView && activeTab !== 'graph') { graph.later = true; return empty('The graph is laid out when this tab is shown.'); }
    var s = run.graph || (run.graphView && run.graphView.markup());
    if (!s) return empty(run.graphSkipped || 'This run has no graph.');
    var svg = graphSvg(s);
    if (!svg) return empty('The graph is not a usable SVG document, so it is not shown.');
    var vbs = (svg.getAttribute('viewBox') || '').trim().split(/[\s,]+/).map(Number);
    if (vbs.length !== 4 || vbs.some(function (v) { return !isFinite(v); }) || vbs[2] <= 0 || vbs[3] <= 0) {
      var w = parseFloat(svg.getAttribute('width')) || 1000, h = parseFloat(svg.getAttribute('height')) || 800;
      vbs = [0, 0, w, h];
    }
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    var gd = run.graphView ? null : svgDiff(), colour = colourNow(gd);
    if (gd && colour !== 'time') colourSvgDiff(svg, colour === 'memory' ? gd.memory : gd);
    if (gd) html.setAttribute('data-graph-colour', colour);
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
    var sw = switches(gd, colour);
    if (run.graphView) bar.insertBefore(run.graphView.crumbs(placeChanged, sw), bar.firstChild);
    else if (gd) bar.insertBefore(svgDiffBar(colour === 'memory' ? gd.memory : colour === 'diff' ? gd : null, sw), bar.firstChild);
    var view = document.createElement('div');
    view.className = 'g-view';
    view.appendChild(svg);
    panel.appendChild(bar);
    panel.appendChild(view);
    applyVb();
    bindGraph(view);
    var sel = Timeline.selected();
    markGraphNode(sel >= 0 ? str(run, run.node[sel]) : '');
    if (!run.graphView && activeTab === 'graph') frameNow();
    return nodes.length;
  }
  /* The two-run page's colouring of the second run's Graphviz picture
   * (data.graph_diff: graph-render --diff's fills, change texts and legend,
   * keyed by the SVG's node titles; its "memory" the same by output
   * memory, dropped when unusable), or null. */
  function svgDiff() {
    var gd = data.graph_diff;
    if (run.index !== 1 || data.runs.length !== 2 || !diffShape(gd)) return null;
    if (gd.memory !== undefined && !diffShape(gd.memory)) delete gd.memory;
    return gd;
  }
  function diffShape(gd) {
    return !!gd && typeof gd === 'object' && !!gd.vertices && typeof gd.vertices === 'object' && Array.isArray(gd.colors) && gd.colors.length === 9;
  }
  /* the colourings the run's graph offers (its first the default), and
   * the one drawn: the mode's where offered */
  function offered(gd) {
    if (run.graphView) return run.graphView.colours();
    return gd ? (gd.memory ? ['diff', 'memory', 'time'] : ['diff', 'time']) : ['time'];
  }
  function colourNow(gd) {
    var c = offered(gd);
    return c.indexOf(mode.colour) >= 0 ? mode.colour : c[0];
  }
  /* The view's switches, or null: numbered scopes folded or not (views
   * with some folded, or unfolded), the colouring where there is a choice.
   * Each keeps its state in the page's address. */
  function switches(gd, colour) {
    var box = document.createElement('span'), v = run.graphView, c = offered(gd);
    box.className = 'g-switch';
    if (v && (v.folds || !mode.fold)) {
      var b = document.createElement('button');
      b.type = 'button'; b.className = 'btn'; b.textContent = mode.fold ? 'Unfold' : 'Fold';
      b.title = mode.fold ? 'Show numbered sibling scopes (layer_1 ... layer_9) one by one' : 'Fold numbered sibling scopes into one entry, as graph-render --fold';
      b.addEventListener('click', function () { mode.fold = !mode.fold; keepInAddress([['graph-fold', mode.fold ? '1' : '0']].concat(here()), false); buildGraph(); });
      box.appendChild(document.createTextNode(' '));
      box.appendChild(b);
    }
    if (c.length > 1) {
      var sel = document.createElement('select');
      sel.className = 'btn'; sel.id = 'g-colour';
      sel.title = 'Colour the nodes by time, or by their change from A to B in time or in output memory (graph-render --diff, --color-by memory)';
      c.forEach(function (k) {
        var o = document.createElement('option');
        o.value = k; o.textContent = COLOUR_NAMES[COLOURS.indexOf(k)];
        sel.appendChild(o);
      });
      sel.value = colour;
      sel.addEventListener('change', function () { mode.colour = sel.value; keepInAddress([['graph-colour', sel.value]].concat(here()), false); buildGraph(); });
      box.appendChild(document.createTextNode(' Colour: '));
      box.appendChild(sel);
    }
    return box.firstChild ? box : null;
  }
  /* Writes the pairs [key, val] (val null: the key dropped) into the
   * page's address without a hashchange (which would apply its other keys
   * again), so that a reload or a shared link shows the same view: as a
   * new entry of the history (push: the places a reader opens, so that
   * Back goes back to the last one) or in the current one's place (a
   * colouring or folding of the same place). '/', ':' and '@' are kept as
   * they are (an address's fragment may hold them) so that paths read as
   * paths. */
  function keepInAddress(pairs, push) {
    var want = new Map(pairs), seen = Object.create(null), out = [];
    function put(k, v) { if (v !== null) out.push(k + '=' + encodeURIComponent(v).replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%40/g, '@')); }
    (location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var k = kv.split('=')[0];
      try { k = decodeURIComponent(k); } catch (e) { /* kept as written */ }
      if (!want.has(k)) out.push(kv);
      else if (!seen[k]) { seen[k] = 1; put(k, want.get(k)); }
    });
    want.forEach(function (v, k) { if (!seen[k]) put(k, v); });
    var h = '#' + out.join('&');
    if (h === '#' + (location.hash || '').replace(/^#/, '')) return;
    try {
      if (push) history.pushState(null, '', h.length > 1 ? h : location.pathname + location.search);
      else history.replaceState(history.state, '', h.length > 1 ? h : location.pathname + location.search);
    } catch (e) { /* an address that cannot change */ }
    Tabs.noteAddress();
  }
  /* what every write of the graph's view adds: the tab, and on a page of
   * several runs the run where the address names another */
  function here() {
    var p = [['tab', 'graph']];
    if (data.runs.length > 1 && Tabs.runOf(Tabs.parseHash().run) !== run.index) p.push(['run', String(run.index)]);
    return p;
  }
  /* a view graphview.js lays out opened or closed (a click on a collapsed
   * node or on a crumb): drawn, and kept in the address as #graph= (the
   * view's where(); none at the top) in a new history entry */
  function placeChanged() {
    buildGraph();
    if (run.graphView) keepInAddress([['graph', run.graphView.where() || null]].concat(here()), true);
  }
  /* A Graphviz picture's #graph=PATH (where()'s steps joined into a path,
   * devices left out): its view framed around the node of that name, or
   * the nodes under PATH/ (a scope), when the tab is shown; a path naming
   * none shows the whole picture. data-graph-framed: the nodes framed. */
  var framePath = null;
  function frame(w) {
    framePath = w ? String(w).split('/').map(function (s) {
      s = s.replace(/@.*$/, '');
      try { return decodeURIComponent(s); } catch (e) { return s; }
    }).join('/') : null;
  }
  function frameNow() {
    var view = graph.view, p = framePath, n = 0, box = null;
    if (p === null || !view || !view.clientWidth || !graph.nodes) return;
    var b = view.getBoundingClientRect(), m = graphScale(view), vb = graph.vb;
    for (var name in graph.nodes) {
      if (name !== p && name.indexOf(p + '/') !== 0) continue;
      var r = graph.nodes[name].getBoundingClientRect();
      var x0 = vb[0] + (r.left - b.left - m.ox) / m.s, y0 = vb[1] + (r.top - b.top - m.oy) / m.s;
      var x1 = x0 + r.width / m.s, y1 = y0 + r.height / m.s;
      box = box ? [Math.min(box[0], x0), Math.min(box[1], y0), Math.max(box[2], x1), Math.max(box[3], y1)] : [x0, y0, x1, y1];
      n++;
    }
    html.setAttribute('data-graph-framed', String(n));
    graph.framed = true;
    if (graph.nodes[p]) { markGraphNode(p); graph.seek = false; seekGraphNode(graph.nodes[p]); return; }
    if (!box) return;
    /* with a margin, and no closer than actual size */
    var w = Math.max(box[2] - box[0] + 60, view.clientWidth), h = Math.max(box[3] - box[1] + 60, view.clientHeight);
    graph.vb = [(box[0] + box[2] - w) / 2, (box[1] + box[3] - h) / 2, w, h];
    applyVb();
  }
  /* The address's graph-colour and graph-fold (undefined: not given);
   * true when the mode changed. */
  function applyMode(colour, fold) {
    var was = mode.colour + ' ' + mode.fold;
    if (colour === '' || COLOURS.indexOf(colour) >= 0) mode.colour = colour;
    if (fold === '0' || fold === '1') mode.fold = fold === '1';
    return mode.colour + ' ' + mode.fold !== was;
  }
  /* Each node's shapes filled as graph-render --diff fills it (white where
   * it has no fill), its text white on the darkest fills, a dashed outline
   * where it holds new nodes; its change and values shown on hover. */
  function colourSvgDiff(svg, gd) {
    var dark = Object.create(null);
    [0, 1, 7, 8].forEach(function (k) { dark[gd.colors[k]] = 1; });
    Array.prototype.forEach.call(svg.querySelectorAll('g.node'), function (g) {
      var t = g.querySelector('title'), v = t ? gd.vertices[t.textContent] : null;
      if (!Array.isArray(v)) return;
      Array.prototype.forEach.call(g.querySelectorAll('polygon,path,ellipse'), function (e) {
        if (e.getAttribute('fill') === 'none') return;
        e.setAttribute('fill', v[0] || '#ffffff');
        if (v[3] > 0) { e.setAttribute('stroke', gd.outline_new); e.setAttribute('stroke-width', '2'); e.setAttribute('stroke-dasharray', '5,3'); }
      });
      Array.prototype.forEach.call(g.querySelectorAll('text'), function (e) { e.setAttribute('fill', dark[v[0]] ? '#ffffff' : '#000000'); });
      g.setAttribute('data-diff', String(v[1]));
      g.setAttribute('data-diff-tip', String(v[2]));
    });
    svg.addEventListener('mouseover', function (ev) {
      var g = ev.target && ev.target.closest ? ev.target.closest('g.node[data-diff]') : null, t = g && g.querySelector('title');
      showTip(ev, g ? '<b>' + esc(t ? t.textContent : '') + '</b><br>' + esc(g.getAttribute('data-diff') || 'not run in A nor B') + '<br>' + esc(g.getAttribute('data-diff-tip')) : null);
    });
    svg.addEventListener('mouseleave', function (ev) { showTip(ev, null); });
  }
  /* the switches, and graph-render's legend of gd (null: none) */
  function svgDiffBar(gd, sw) {
    var box = document.createElement('span');
    box.className = 'g-crumbs';
    if (sw) box.appendChild(sw);
    if (!gd || !Array.isArray(gd.legend)) return box;
    var leg = document.createElement('span'), h = ' \u00b7 ' + esc(gd.legend_title || 'change') + ' ';
    leg.className = 'g-legend';
    leg.title = gd.title + ':\n' + gd.legend.map(function (l) { return String(l[1]); }).join('\n');
    gd.legend.forEach(function (l) {
      if (l[0] !== '#ffffff') h += '<i style="display:inline-block;width:10px;height:10px;border:1px solid #999;background:' + esc(l[0]) + '" title="' + esc(l[1]) + '"></i>';
    });
    var bins = gd.legend.filter(function (l) { return / to /.test(l[1]); });
    if (bins.length) h += ' ' + esc(String(bins[0][1]).split(' to ')[1]) + ' \u2026 ' + esc(String(bins[bins.length - 1][1]).split(' to ')[0]);
    leg.innerHTML = h;
    box.appendChild(leg);
    return box;
  }
  /* The SVG element of document s, made inert; null when s is not one SVG document. */
  function graphSvg(s) {
    var at = s.search(/<svg[\s>]/i), endAt = s.lastIndexOf('</svg>');
    var head = at >= 0 ? s.slice(0, at).replace(/<\?xml[\s\S]*?\?>/g, '').replace(/<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/gi, '').replace(/<!-{2}[\s\S]*?-{2}>/g, '') : '';
    if (at < 0 || endAt < at || head.trim() || s.slice(endAt + 6).trim()) return null;
    var holder = document.createElement('div');
    holder.innerHTML = s.slice(at, endAt + 6);
    var svg = holder.firstElementChild;
    if (!svg || svg.tagName.toLowerCase() !== 'svg' || holder.children.length !== 1) return null;
    /* It is ours (graph-render), but keep it inert anyway. */
    Array.prototype.forEach.call(svg.querySelectorAll('script,foreignObject,iframe,object,embed,image,use'), function (e) { e.parentNode.removeChild(e); });
    Array.prototype.forEach.call(svg.querySelectorAll('*'), function (e) {
      for (var q = e.attributes.length - 1; q >= 0; q--) {
        var nm = e.attributes[q].name.toLowerCase(), val = e.attributes[q].value;
        if (nm.indexOf('on') === 0 || ((nm === 'href' || nm === 'xlink:href') && val.charAt(0) !== '#')) e.removeAttribute(e.attributes[q].name);
      }
    });
    return svg;
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
      if (run.graphView && run.graphView.open(d.node)) { placeChanged(); return; }
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
    Timeline.showOnTimeline(out, 'node ' + name, { source: 'graph' });
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


  /* the 0 key on the graph tab: the whole graph; false when no graph is shown */
  function resetZoom() {
    if (!graph.svg) return false;
    graph.vb = graph.home.slice();
    applyVb();
    return true;
  }
  /* the graph tab is shown: its view, centred on the selected node when that changed */
  function onShow() {
    if (graph.later) html.setAttribute('data-graph-nodes', String(buildGraph()));
    if (!graph.svg) return;
    applyVb();
    if (!run.graphView && !graph.framed) { graph.framed = true; frameNow(); }
    if (graph.sel && graph.seek) { graph.seek = false; seekGraphNode(graph.sel); }
  }

  return {
    buildGraph: buildGraph, bindGraphWindow: bindGraphWindow, markGraphNode: markGraphNode,
    resetZoom: resetZoom, onShow: onShow, applyMode: applyMode, frame: frame
  };
})();
