
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
    Timeline.initTimeline();
    data = Data.readData();
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
      try { Tabs.setRun(+sel.value); if (activeTab === 'timeline') Timeline.redraw(); } catch (e) { showFatal(e); }
    });
    Array.prototype.forEach.call(document.querySelectorAll('#tabs button'), function (b) {
      b.addEventListener('click', function () { Tabs.showTab(b.getAttribute('data-tab')); });
    });
    Timeline.bindTimeline();
    Search.bindSearch();
    Details.bindDetails();
    Graph.bindGraphWindow();
    Diff.buildDiff();
    Tabs.setRun(0);
    html.setAttribute('data-first-draw-ms', String(Math.round(performance.now() - began)));
    Tabs.applyHash();
    window.addEventListener('hashchange', function () { try { Tabs.applyHash(); } catch (e) { noteError(e.message); } });
    html.setAttribute('data-report-state', 'ready');
  }

  try { init(); } catch (e) { showFatal(e); }
})();
