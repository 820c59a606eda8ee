var Diff = (function () {

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
    Tables.makeTable(box, d, { diff: true, limit: 10000 });
  }


  return { buildDiff: buildDiff };
})();
