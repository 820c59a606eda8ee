/* runs.js: what a page of several runs adds to report.js, joined only into such pages:
 * the Steps tab (every run: its time against the median's, counts, critical path, peak,
 * whether the page holds its timeline, and per op type its time against the median run's),
 * the marks on the run selector, and the note over a run whose timeline the page does not
 * hold, with the command line that makes a page with it.
 *
 * It runs before report.js, so that report.js finds the Steps tab and its panel as it binds
 * the others; the rest waits for DOMContentLoaded, when report.js has drawn the first run.
 * It speaks to report.js only through the page: the run selector's change event, the tab
 * buttons, the URL's #run=, and <html data-run>, which report.js sets for the run it shows.
 * Its own data is the element #tftrace-steps (emit/report_page.c, write_steps). */
(function () {
  'use strict';
  var html = document.documentElement;

  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  /* times as the rest of the page writes them (format.js); a dash where there is no number */
  function fmtUs(us) { return typeof us === 'number' && isFinite(us) ? TftraceFormat.fmtUs(us) : '\u2013'; }
  function fmtDelta(us) {
    if (typeof us !== 'number' || !isFinite(us)) return '\u2013';
    return us > 0 ? '+' + fmtUs(us) : us < 0 ? '\u2212' + fmtUs(-us) : '0';
  }
  /* bytes as the tools write them (format.js); a dash where there is no number */
  function fmtBytes(b) { return typeof b === 'number' && isFinite(b) ? TftraceFormat.fmtBytes(b) : '\u2013'; }
  function fmtNum(x) { return typeof x === 'number' && isFinite(x) ? x.toLocaleString('en-US') : '\u2013'; }

  var node = $('tftrace-steps');
  if (!node) return;
  var S;
  try { S = JSON.parse(node.textContent); } catch (e) { return; }
  if (!S || !Array.isArray(S.runs) || S.runs.length < 2) return;
  var runs = S.runs;
  var median = runs[S.median] ? S.median : 0;
  var ops = S.ops && Array.isArray(S.ops.names) ? S.ops : { names: [], us: [], calls: [] };
  function label(k) { var r = runs[k]; return r && typeof r.label === 'string' && r.label ? r.label : 'run ' + k; }
  function hasTimeline(k) { return !!(runs[k] && runs[k].timeline); }
  function role(k) {
    return k === S.median && k === S.slowest ? 'median, slowest' : k === S.median ? 'median' : k === S.slowest ? 'slowest' : '';
  }

  /* ---------- before report.js: the tab, its panel, the note ---------- */

  var tab = document.createElement('button');
  tab.type = 'button';
  tab.setAttribute('role', 'tab');
  tab.setAttribute('data-tab', 'steps');
  tab.innerHTML = 'Steps <span class="count">(' + runs.length + ')</span>';
  var diffTab = $('tab-diff');
  $('tabs').insertBefore(tab, diffTab);
  var panel = document.createElement('section');
  panel.className = 'panel';
  panel.id = 'panel-steps';
  panel.setAttribute('data-panel', 'steps');
  $('main').appendChild(panel);
  var note = document.createElement('div');
  note.className = 'runs-note';
  note.id = 'runs-note';
  note.hidden = true;
  document.body.insertBefore(note, $('main'));

  /* ---------- the step table ---------- */

  var shown = -1;     /* the run report.js shows */
  var picked = -1;    /* the run the op diff compares with the median */
  var sortCol = 0, sortDir = 1;
  var COLS = [
    ['run', 'Run', true], ['label', 'Label', false], ['duration_us', 'Duration', true],
    ['vs', 'vs median', true], ['slices', 'Slices', true], ['arrows', 'Arrows', true],
    ['critical_path_us', 'Critical path', true], ['peak_bytes', 'Peak memory', true],
    ['timeline', 'Timeline', false]
  ];
  function value(k, key) {
    var r = runs[k];
    if (key === 'run') return k;
    if (key === 'label') return label(k);
    if (key === 'vs') return r.duration_us - runs[median].duration_us;
    if (key === 'timeline') return r.timeline ? 0 : 1;
    return typeof r[key] === 'number' ? r[key] : -Infinity;
  }
  function cell(k, key) {
    var r = runs[k];
    switch (key) {
      case 'run': return String(k);
      case 'label': return esc(label(k)) + (role(k) ? ' <span class="runs-role">' + role(k) + '</span>' : '');
      case 'duration_us': case 'critical_path_us': return fmtUs(r[key]);
      case 'vs': return k === median ? '' : fmtDelta(value(k, 'vs'));
      case 'slices': case 'arrows': return fmtNum(r[key]);
      case 'peak_bytes': return fmtBytes(r.peak_bytes) + (r.peak_allocator ? ' <small>' + esc(r.peak_allocator) + '</small>' : '');
      default:
        return r.timeline ? '<button type="button" class="runs-show" data-run="' + k + '">show</button>'
          : '<code class="runs-cmd">' + esc(r.command || '') + '</code>';
    }
  }
  function drawTable(host) {
    var order = runs.map(function (r, k) { return k; });
    var key = COLS[sortCol][0];
    order.sort(function (a, b) {
      var x = value(a, key), y = value(b, key);
      if (x < y) return -sortDir;
      if (x > y) return sortDir;
      return a - b;
    });
    var h = '<table class="t runs-table"><thead><tr>';
    COLS.forEach(function (c, j) {
      h += '<th data-col="' + j + '" class="' + (c[2] ? 'num' : '') + (j === sortCol ? (sortDir > 0 ? ' asc' : ' desc') : '') + '">' + c[1] + '</th>';
    });
    h += '</tr></thead><tbody>';
    order.forEach(function (k) {
      var cls = (hasTimeline(k) ? 'runs-has' : 'runs-not') + (k === picked ? ' runs-picked' : '') + (k === shown ? ' runs-shown' : '');
      h += '<tr data-run="' + k + '" class="' + cls + '">';
      COLS.forEach(function (c) {
        var vs = c[0] === 'vs' && k !== median ? (value(k, 'vs') > 0 ? ' up' : value(k, 'vs') < 0 ? ' down' : '') : '';
        h += '<td class="' + (c[2] ? 'num' : c[0] === 'label' ? 'name' : '') + vs + '">' + cell(k, c[0]) + '</td>';
      });
      h += '</tr>';
    });
    host.innerHTML = h + '</tbody></table>';
  }

  /* ---------- a run's op times against the median run's ---------- */

  function drawDiff(host, k) {
    var col = S.ops && S.ops.column ? S.ops.column : 'total_micros';
    var rows = [];
    for (var i = 0; i < ops.names.length; i++) {
      var us = ops.us[i] || [], calls = ops.calls[i] || [];
      var a = Number(us[median]) || 0, b = Number(us[k]) || 0;
      if (a === 0 && b === 0) continue;
      rows.push({ name: ops.names[i], a: a, b: b, ca: Number(calls[median]) || 0, cb: Number(calls[k]) || 0 });
    }
    rows.sort(function (x, y) {
      return Math.abs(y.b - y.a) - Math.abs(x.b - x.a) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
    });
    var LIMIT = 500;
    var h = '<h2>Run ' + k + ' against the median, run ' + median + ', by op type</h2>' +
      '<div class="sub">' + esc(col) + ' per op type; delta = run ' + k + ' \u2212 run ' + median +
      ' (red: slower), the largest change first' +
      (rows.length > LIMIT ? '; the first ' + LIMIT + ' of ' + rows.length : '') + '</div>';
    if (k === median) h += '<div class="empty">This is the median run: pick another row above.</div>';
    h += '<table class="t"><thead><tr><th>op</th><th class="num">run ' + median + '</th><th class="num">run ' + k +
      '</th><th class="num">delta</th><th class="num">calls ' + median + '</th><th class="num">calls ' + k + '</th></tr></thead><tbody>';
    rows.slice(0, LIMIT).forEach(function (r) {
      var d = r.b - r.a;
      h += '<tr><td class="name">' + esc(r.name) + '</td><td class="num">' + fmtUs(r.a) + '</td><td class="num">' + fmtUs(r.b) +
        '</td><td class="num' + (d > 0 ? ' up' : d < 0 ? ' down' : '') + '">' + fmtDelta(d) + '</td><td class="num">' + fmtNum(r.ca) +
        '</td><td class="num">' + fmtNum(r.cb) + '</td></tr>';
    });
    host.innerHTML = h + '</tbody></table>';
    return rows.length;
  }

  var tableBox, diffBox;
  function buildPanel() {
    var n = runs.length, withTl = runs.filter(function (r) { return r.timeline; }).length;
    var card = document.createElement('div');
    card.className = 'card';
    card.innerHTML = '<h2>Steps</h2><div class="sub">' + n + ' runs, numbered from 0 across the inputs in order; the median is run ' +
      median + ' (' + fmtUs(runs[median].duration_us) + '), the slowest run ' + S.slowest + ' (' + fmtUs(runs[S.slowest].duration_us) +
      '). This page holds the timeline of ' + withTl + ' of them (show); for the others, the command line beside each makes a page ' +
      'with its timeline. Click a row to compare its op types with the median run\'s below.</div>';
    tableBox = document.createElement('div');
    tableBox.className = 'runs-scroll';
    card.appendChild(tableBox);
    panel.appendChild(card);
    diffBox = document.createElement('div');
    diffBox.className = 'card';
    panel.appendChild(diffBox);
    tableBox.addEventListener('click', function (ev) {
      var t = ev.target;
      var th = t.closest('th');
      if (th) {
        var j = +th.getAttribute('data-col');
        if (j === sortCol) sortDir = -sortDir; else { sortCol = j; sortDir = COLS[j][2] ? -1 : 1; }
        drawTable(tableBox);
        return;
      }
      if (t.classList.contains('runs-show')) { showRun(+t.getAttribute('data-run')); return; }
      var tr = t.closest('tr[data-run]');
      if (tr && !t.closest('code')) pick(+tr.getAttribute('data-run'));
    });
    drawTable(tableBox);
    html.setAttribute('data-steps', String(n));
    html.setAttribute('data-steps-timelines', String(withTl));
  }
  function pick(k) {
    picked = k;
    drawTable(tableBox);
    html.setAttribute('data-steps-diff-rows', String(drawDiff(diffBox, k)));
    html.setAttribute('data-steps-picked', String(k));
  }

  /* ---------- the run report.js shows ---------- */

  function showRun(k) {
    var sel = $('run-select');
    if (String(k) !== sel.value) {
      sel.value = String(k);
      sel.dispatchEvent(new Event('change'));
    }
    var b = document.querySelector('#tabs button[data-tab="timeline"]');
    if (b) b.click();
  }
  function noteRun() {
    var k = Number(html.getAttribute('data-run'));
    if (!(k >= 0 && k < runs.length) || k === shown) return;
    shown = k;
    html.setAttribute('data-run-timeline', hasTimeline(k) ? 'yes' : 'no');
    if (tableBox) drawTable(tableBox);
    if (hasTimeline(k)) { note.hidden = true; note.innerHTML = ''; return; }
    var with_ = [];
    runs.forEach(function (r, q) { if (r.timeline) with_.push(q); });
    note.innerHTML = '<b>Run ' + k + ' (' + esc(label(k)) + ') has no timeline in this page</b>: its op table, idle time and graph are ' +
      'here; its timeline, arrows, memory curves and critical path are in the page this command makes: <code>' +
      esc(runs[k].command || '') + '</code> This page holds the timeline of run' + (with_.length > 1 ? 's ' : ' ') +
      with_.map(function (q) { return '<a href="#run=' + q + '" data-run="' + q + '">' + q + (role(q) ? ' (' + role(q) + ')' : '') + '</a>'; }).join(', ') + '.';
    note.hidden = false;
  }
  function markSelector() {
    var sel = $('run-select');
    Array.prototype.forEach.call(sel.options, function (o) {
      var k = +o.value;
      if (!runs[k]) return;
      o.textContent = k + ': ' + label(k) + (role(k) ? ' (' + role(k) + ')' : '') + (hasTimeline(k) ? ' \u2013 timeline' : '');
      o.className = hasTimeline(k) ? 'runs-has' : 'runs-not';
    });
  }
  function hashHas(key) {
    return (location.hash || '').replace(/^#/, '').split('&').some(function (kv) { return kv.split('=')[0] === key; });
  }

  document.addEventListener('DOMContentLoaded', function () {
    if (html.getAttribute('data-report-state') !== 'ready') return;
    buildPanel();
    markSelector();
    note.addEventListener('click', function (ev) {
      var a = ev.target.closest('a[data-run]');
      if (!a) return;
      ev.preventDefault();
      showRun(+a.getAttribute('data-run'));
    });
    new MutationObserver(noteRun).observe(html, { attributes: true, attributeFilter: ['data-run'] });
    /* report.js opened run 0; without a #run= the page opens on its first run with a timeline,
     * and what else the URL asks for (#select=, #search=, #tab=) applies to that run */
    var first = -1;
    runs.forEach(function (r, k) { if (first < 0 && r.timeline) first = k; });
    if (!hashHas('run') && first > 0 && Number(html.getAttribute('data-run')) !== first) {
      var sel = $('run-select');
      sel.value = String(first);
      sel.dispatchEvent(new Event('change'));
      if (location.hash.length > 1) window.dispatchEvent(new HashChangeEvent('hashchange'));
    }
    noteRun();
    pick(S.slowest !== median ? S.slowest : first >= 0 ? first : 0);
    /* from the start of loading the page to its first run with a timeline drawn and the
     * step table built (report.js's data-first-draw-ms counts only its own init, which drew
     * run 0) */
    html.setAttribute('data-steps-ready-ms', String(Math.round(performance.now())));
    html.setAttribute('data-steps-ready', 'true');
  });
})();
