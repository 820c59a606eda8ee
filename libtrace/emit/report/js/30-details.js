var Details = (function () {

  /* ---------- details panel ---------- */

  function kv(k, v) { return '<dt>' + esc(k) + '</dt><dd>' + v + '</dd>'; }
  function sliceLink(i) {
    return '<a data-slice="' + i + '">' + esc(sliceName(run, i)) + '</a>';
  }
  function renderDetails() {
    var box = $('details');
    var i = Timeline.selected();
    if (!run) { box.innerHTML = ''; return; }
    box.innerHTML = i < 0 ? runDetails() : sliceDetails(i);
  }
  /* no slice selected: the run, and its ops by time */
  function runDetails() {
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
    return h;
  }
  /* slice i: what it is, what it read and who read it */
  function sliceDetails(i) {
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
    return html2;
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

  /* the panel's links: a slice, zoom to it (and its arrows), an op's slices */
  function bindDetails() {
    $('details').addEventListener('click', function (ev) {
      var a = ev.target.closest('a');
      if (!a) return;
      if (a.hasAttribute('data-slice')) Timeline.select(+a.getAttribute('data-slice'), 'reveal');
      else if (a.hasAttribute('data-fit')) Timeline.reveal(+a.getAttribute('data-fit'), 'fit');
      else if (a.hasAttribute('data-fitall')) Timeline.reveal(+a.getAttribute('data-fitall'), 'arrows');
      else if (a.hasAttribute('data-op')) {
        var s = +a.getAttribute('data-op'), out = [];
        for (var i = 0; i < run.n; i++) if (run.op[i] === s) out.push(i);
        Timeline.setHighlight('op ' + run.strings[s], out, { source: 'op' });
      }
    });
  }

  return { renderDetails: renderDetails, bindDetails: bindDetails };
})();
