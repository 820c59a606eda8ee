var Tabs = (function () {

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
    if (name === 'timeline' && run) { Timeline.sizeTimeline(); Timeline.redraw(); }
    if (name === 'memory') Memory.drawMemory();
    if (name === 'graph') Graph.onShow();
  }

  function setRun(k) {
    var first = false;
    if (!runs[k]) { runs[k] = Data.prepRun(data.runs[k], k); first = true; }
    run = runs[k];
    $('run-select').value = String(k);
    $('runinfo').textContent = fmtUs(run.duration) + ' \u00b7 ' + fmtNum(run.n) + ' slices';
    Timeline.resetRun();
    Search.resetSearch();
    Details.renderDetails();
    /* the first paint is synchronous, so the test hooks below count what is on screen */
    var rects = Timeline.firstDraw();
    var mem = Memory.buildMemory();
    var rowsShown = Tables.buildTables();
    var nodes = Graph.buildGraph();
    html.setAttribute('data-runs', String(data.runs.length));
    html.setAttribute('data-run', String(k));
    html.setAttribute('data-slices', String(run.n));
    html.setAttribute('data-arrows', String(run.m));
    html.setAttribute('data-drawn-rects', String(rects));
    html.setAttribute('data-memory-curves', String(mem));
    html.setAttribute('data-table-rows', String(rowsShown));
    html.setAttribute('data-graph-nodes', String(nodes));
    if (activeTab === 'memory') Memory.drawMemory();
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
  /* the run an address's run= names (its label, else its index), or -1 */
  function runOf(v) {
    var k = -1;
    if (v === undefined) return k;
    data.runs.forEach(function (r, q) { if (r && r.label === v) k = q; });
    if (k < 0 && /^\d+$/.test(v) && +v < data.runs.length) k = +v;
    return k;
  }
  /* the address the page shows: the last applied or written (noteAddress,
   * after the page writes it), and its run */
  var last = null, lastRun = -1;
  function noteAddress() { last = parseHash(); lastRun = run ? run.index : -1; }
  /* Applies the page's address: all of it on load or where the run
   * changed, else (a hashchange: Back, Forward, an address edited) the
   * keys that changed since it was last applied or written; a graph key
   * dropped is its default (the top view, the first colouring, folded). */
  function applyHash() {
    var h = parseHash(), was = last || {}, all = !last || !run || lastRun !== run.index;
    function changed(k) { return all || h[k] !== was[k]; }
    /* the graph's colouring and folding first, so a run drawn here has them */
    var redraw = (changed('graph-colour') || changed('graph-fold')) && Graph.applyMode(h['graph-colour'] || '', h['graph-fold'] || '1');
    if (h.run !== undefined && changed('run')) {
      var k = runOf(h.run);
      if (k >= 0 && (!run || run.index !== k)) { setRun(k); redraw = false; all = true; }
    }
    if (h.select && changed('select')) {
      var S = run.strings, want = -1, q, i, best = -1;
      for (q = 1; q < S.length; q++) if (S[q] === h.select) { want = q; break; }
      if (want > 0) {
        /* the first slice (lowest index) of that node; else the first one of that name */
        for (i = 0; i < run.n && best < 0; i++) if (run.node[i] === want) best = i;
        for (i = 0; i < run.n && best < 0; i++) if (run.name[i] === want) best = i;
      }
      if (best >= 0) Timeline.select(best, 'arrows');
    }
    if (h.search && changed('search')) {
      $('tl-search').value = h.search;
      Search.runSearch(h.search);
    }
    /* #graph=: the view graphview.js opens (a view naming nothing: the
     * top), or the part of Graphviz's picture framed */
    var moved = changed('graph') && (h.graph !== undefined || (last && was.graph !== undefined));
    if (moved) {
      if (run.graphView) run.graphView.go(h.graph);
      else Graph.frame(h.graph);
      redraw = true;
    }
    if (redraw) Graph.buildGraph();
    /* Back to another place of the graph shows it, whichever tab was shown */
    if (h.tab && (changed('tab') || (moved && h.tab === 'graph'))) showTab(h.tab);
    noteAddress();
  }

  return { showTab: showTab, setRun: setRun, applyHash: applyHash, parseHash: parseHash, runOf: runOf, noteAddress: noteAddress };
})();
