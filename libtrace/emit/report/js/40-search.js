var Search = (function () {

  /* ---------- search ---------- */

  /* the query searched, and its matching slices (null: none searched) */
  var found = { q: '', list: null };

  function lowerStrings() {
    if (!run.lower) run.lower = run.strings.map(function (s) { return s.toLowerCase(); });
    return run.lower;
  }
  function runSearch(q) {
    var S = found;
    S.q = q; S.list = null;
    if (!q) {
      $('tl-found').textContent = '';
      if (Timeline.highlightSource() === 'search') Timeline.clearHighlight();
      return;
    }
    var low = lowerStrings(), ql = q.toLowerCase();
    var hit = new Uint8Array(low.length);
    for (var s = 1; s < low.length; s++) if (low[s].indexOf(ql) >= 0) hit[s] = 1;
    var out = [];
    for (var i = 0; i < run.n; i++) if (hit[run.name[i]] || hit[run.node[i]]) out.push(i);
    S.list = out;
    $('tl-found').textContent = out.length ? out.length + ' found' : 'none found';
    if (out.length) Timeline.setHighlight('\u201c' + q + '\u201d', out, { source: 'search' });
    else if (Timeline.highlightSource() === 'search') Timeline.clearHighlight();
  }
  /* Enter: the match that starts next after the selected slice (or the view's start), in time
   * order across all rows; Shift+Enter: the one before.  Linear in the matches, no sort. */
  function searchStep(dir) {
    var S = found, L = S.list;
    if (!L || !L.length) return;
    var st = run.start, cs, ci, sel = Timeline.selected(), v = Timeline.view();
    if (sel >= 0) { cs = st[sel]; ci = sel; }
    else { cs = dir > 0 ? v.t0 : v.t1; ci = dir > 0 ? -1 : run.n; }
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
    Timeline.select(best, 'reveal');
  }

  /* the search box (typing searches after a pause, Enter steps), its arrows and the chip */
  function bindSearch() {
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
        if (search.value.trim() !== found.q) runSearch(search.value.trim());
        searchStep(ev.shiftKey ? -1 : 1);
      }
    });
    $('tl-next').addEventListener('click', function () { searchStep(1); });
    $('tl-prev').addEventListener('click', function () { searchStep(-1); });
    $('tl-chip-x').addEventListener('click', function () {
      if (Timeline.highlightSource() === 'search') { search.value = ''; runSearch(''); }
      Timeline.clearHighlight();
    });
  }

  /* a new run is shown: nothing searched */
  function resetSearch() {
    found = { q: '', list: null };
    $('tl-search').value = '';
    $('tl-found').textContent = '';
  }

  return { runSearch: runSearch, bindSearch: bindSearch, resetSearch: resetSearch };
})();
