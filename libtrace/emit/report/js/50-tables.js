var Tables = (function () {

  /* ---------- sortable tables ---------- */

  var NUMERIC_UNITS = { us: 1, ms: 1, s: 1, ns: 1, bytes: 1, B: 1, '%': 1, fraction: 1 };

  /* table: {columns, units, rows}; opts: {limit, onRow(row, tr), filter, title, bars, diff} */
  function makeTable(host, table, opts) {
    opts = opts || {};
    var t = tableShape(table);
    var state = { col: -1, desc: false, filter: '', view: t.rows };
    var limit = opts.limit || 5000;
    host.innerHTML = '';
    var bar = document.createElement('div');
    bar.className = 'tbar';
    if (opts.filter !== false && t.rows.length > 8) {
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

    function render() {
      var view = state.view = tableView(t, state);
      var lim = Math.min(view.length, limit);
      wrap.innerHTML = tableHtml(t, state, opts, lim);
      shown = lim;
      note.textContent = tableNote(table, t.rows, view, lim, opts);
    }
    wrap.addEventListener('click', function (ev) {
      var th = ev.target.closest('th');
      if (th) {
        var j = +th.getAttribute('data-col');
        if (state.col === j) state.desc = !state.desc;
        else { state.col = j; state.desc = t.numeric[j]; }
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

  /* A table's columns, units and rows, which columns are numeric, and the largest value
   * of each % column (its bars' scale). */
  function tableShape(table) {
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
    return { cols: cols, units: units, rows: rows, numeric: numeric, maxOf: maxOf };
  }

  /* The rows that pass the filter, in the order of the sorted column (stable). */
  function tableView(t, state) {
    var rows = t.rows, view = rows;
    if (state.filter) {
      var fl = state.filter;
      view = rows.filter(function (r) { return String(r[0]).toLowerCase().indexOf(fl) >= 0; });
    }
    if (state.col >= 0) {
      var j = state.col, sgn = state.desc ? -1 : 1, isNum = t.numeric[j];
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
    return view;
  }

  function tableHtml(t, state, opts, lim) {
    var cols = t.cols, units = t.units, numeric = t.numeric, view = state.view;
    var h = '<table class="t"><thead><tr>';
    cols.forEach(function (c, j) {
      var cls = (numeric[j] ? 'num' : '') + (state.col === j ? (state.desc ? ' desc' : ' asc') : '');
      h += '<th class="' + cls + '" data-col="' + j + '" title="Sort by ' + esc(c) + (units[j] ? ' (' + esc(units[j]) + ')' : '') + '">' + esc(c) + '</th>';
    });
    h += '</tr></thead><tbody>';
    var rc = opts.onRow ? ' class="click"' : '';
    for (var q = 0; q < lim; q++) {
      var r = view[q];
      h += '<tr' + rc + ' data-i="' + q + '">';
      for (var jj = 0; jj < cols.length; jj++) h += cellHtml(t, opts, r[jj], jj);
      h += '</tr>';
    }
    return h + '</tbody></table>';
  }

  function cellHtml(t, opts, v, j) {
    var u = t.units[j], cols = t.cols, maxOf = t.maxOf;
    var txt = esc(fmtCell(v, u));
    var cls = t.numeric[j] ? 'num' : j === 0 ? 'name' : '';
    if (opts.diff && typeof v === 'number' && /delta/.test(cols[j]) && v !== 0) cls += v > 0 ? ' up' : ' down';
    if (opts.diff && typeof v === 'number' && /delta/.test(cols[j]) && v > 0) txt = '+' + txt;
    if (!opts.diff && maxOf[j] > 0 && typeof v === 'number' && v > 0)
      txt += '<span class="bar" style="width:' + Math.max(1, Math.round(40 * v / maxOf[j])) + 'px"></span>';
    var title = v === null || v === undefined ? '' : ' title="' + esc(typeof v === 'number' ? fmtNum(v) + (u ? ' ' + u : '') : String(v)) + '"';
    return '<td class="' + cls + '"' + title + '>' + txt + '</td>';
  }

  /* "N rows", "M of the N rows, first L shown", and the hint */
  function tableNote(table, rows, view, lim, opts) {
    /* "rows_total": the table's rows before trace-report kept the first ones */
    var total = Number(table.rows_total) > rows.length ? Number(table.rows_total) : 0;
    var kept = total ? 'first ' + fmtNum(rows.length) + ' of ' + fmtNum(total) + ' rows' : fmtNum(rows.length) + (rows.length === 1 ? ' row' : ' rows');
    return (view.length === rows.length ? kept : fmtNum(view.length) + ' of the ' + kept) +
      (lim < view.length ? ', first ' + fmtNum(lim) + ' shown' : '') +
      (opts.hint ? ' \u00b7 ' + opts.hint : '');
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
    Timeline.showOnTimeline(out, view + ' ' + name, { source: 'table' });
  }

  var critButton = null;
  function syncCritButton() {
    if (!critButton) return;
    var on = Timeline.highlightSource() === 'critical';
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
      if (Timeline.highlightSource() === 'critical') { Timeline.clearHighlight(); return; }
      Timeline.showOnTimeline(cp.slices.slice(), 'critical path', { source: 'critical', path: true });
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
    }, { filter: false, limit: 5000, onRow: function (row) { Tabs.showTab('timeline'); Timeline.select(row.slice, 'reveal'); } });
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


  return { makeTable: makeTable, buildTables: buildTables, syncCritButton: syncCritButton };
})();
