/* trace-report page script: reads the JSON in #tftrace-data (its format, tftrace-report/1, is in
 * docs/trace-report.md) and draws the timeline, memory curves, tables, graph and run diff of a profiled run.  Plain ES2017, no
 * framework, no network; works from file://.  It is inlined in a script element, so its text
 * never holds a closing script tag nor an HTML comment opener.
 *
 * It is the files of libtrace/emit/report/js/ joined in the order the Makefile lists
 * (REPORT_JS), inside the one closure this file opens and 99-main.js closes:
 *   00-base      helpers, the units (as the tools print them), the page state
 *   10-data      Data: reads and checks the data, one run into typed arrays
 *   20-timeline  Timeline: the canvas, its view, selection, highlight and events
 *   30-details   Details: the side panel of the selected slice or the run
 *   40-search    Search: the search box over slice names
 *   50-tables    Tables: sortable tables, the Tables tab (ops, critical path, idle)
 *   60-memory    Memory: the allocator curves and their live buffers
 *   70-graph     Graph: the graph tab's SVG, pan, zoom, node to slices
 *   80-diff      Diff: the two-run diff table
 *   90-tabs      Tabs: the tabs, the shown run, the URL's #hash
 *   99-main      init, and the page that cannot be shown
 * Each module is a closure that keeps its own state and returns its interface (an object
 * of its functions, called as Module.name()); a module reaches another only through that.
 * The one state they share is the page state below.  docs/DESIGN.md says more. */
(function () {
  'use strict';

  var html = document.documentElement;
  var errorCount = 0;

  function noteError(msg) {
    errorCount++;
    html.setAttribute('data-errors', String(errorCount));
    var b = document.getElementById('errbadge');
    if (b) {
      b.hidden = false;
      b.textContent = errorCount + (errorCount === 1 ? ' script error' : ' script errors');
      b.title = String(msg);
    }
  }
  window.onerror = function (msg, src, line) {
    noteError(String(msg) + (line ? ' (line ' + line + ')' : ''));
    return false;
  };
  window.addEventListener('unhandledrejection', function (ev) {
    var r = ev && ev.reason;
    noteError('unhandled rejection: ' + (r && r.message ? r.message : String(r)));
  });

  /* ---------- small helpers ---------- */

  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;';
    });
  }
  function clamp(v, a, b) { return v < a ? a : v > b ? b : v; }
  /* the units: format.js, the page's one formatter, shared with its other scripts */
  var MU = TftraceFormat.MU;
  function fmtUs(us) { return TftraceFormat.fmtUs(us); }
  function fmtBytes(b) { return TftraceFormat.fmtBytes(b); }
  function fmtNum(x) {
    if (typeof x !== 'number' || !isFinite(x)) return String(x);
    if (Number.isInteger(x)) return x.toLocaleString('en-US');
    var a = Math.abs(x);
    return x.toLocaleString('en-US', { maximumFractionDigits: a >= 100 ? 1 : a >= 1 ? 3 : 4 });
  }
  function fmtPct(x) { return (Math.abs(x) >= 99.95 ? x.toFixed(0) : x.toFixed(1)) + '%'; }
  /* A table cell by its column unit. */
  function fmtCell(v, unit) {
    if (v === null || v === undefined) return '\u2014';
    if (typeof v !== 'number') return String(v);
    switch (unit) {
      case 'us': return fmtUs(v);
      case 'ms': return fmtUs(v * 1000);
      case 's': return fmtUs(v * 1e6);
      case 'ns': return fmtUs(v / 1000);
      case 'bytes': case 'B': return fmtBytes(v);
      case '%': return fmtPct(v);
      case 'fraction': return fmtPct(v * 100);
      case '': case undefined: case null: return fmtNum(v);
      default: return fmtNum(v) + ' ' + unit;
    }
  }

  function hashStr(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    h ^= h >>> 13; h = Math.imul(h, 0x5bd1e995); h ^= h >>> 15;
    return h >>> 0;
  }
  /* A stable, calm colour per op string: 24 hues 15 degrees apart, two tones each. */
  function colourOf(s) {
    if (!s) return '#bcc2cc';
    var h = hashStr(s);
    var k = h % 48;
    var hue = ((k % 24) * 105 + 200) % 360;
    var sat = k < 24 ? 58 : 46;
    var light = k < 24 ? 70 : 62;
    return 'hsl(' + hue + ',' + sat + '%,' + light + '%)';
  }

  function DataError(msg) { var e = new Error(msg); e.dataError = true; return e; }


  function colour(run, i) {
    var s = run.op[i];
    var c = run.colours[s];
    if (c === undefined) c = run.colours[s] = colourOf(run.strings[s]);
    return c;
  }
  function str(run, s) { return run.strings[s] || ''; }
  function sliceName(run, i) { return str(run, run.name[i]) || str(run, run.node[i]) || str(run, run.op[i]) || '(unnamed)'; }
  var SLICE_KINDS = ['op', 'GPU kernel', 'memcpy', 'other'];
  var ARROW_KINDS = ['data', 'send/recv', 'launch'];
  function rowLabel(r) { return r.track || r.kind || '(main)'; }
  function shortDevice(d) {
    var s = d.replace(/^\/job:[^/]*\/replica:[^/]*\/task:[^/]*/, '').replace(/^\/device:/, '');
    return s || d || '(no device)';
  }

  /* The tooltip (#tip) at the mouse, holding HTML h; none when h is null. */
  function showTip(ev, h) {
    var tip = $('tip');
    if (!h) { tip.hidden = true; return; }
    tip.innerHTML = h;
    tip.hidden = false;
    var x = ev.clientX + 14, y = ev.clientY + 16;
    var w = tip.offsetWidth, hh = tip.offsetHeight;
    if (x + w > window.innerWidth - 6) x = ev.clientX - w - 10;
    if (y + hh > window.innerHeight - 6) y = ev.clientY - hh - 10;
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }

  /* ---------- the page state ---------- */
  /* The only state the modules share; every module reads it, these write it:
   *   data       the page's data, parsed (99-main init, once)
   *   runs       runs[k]: run k prepared (Data.prepRun), made on first show (90-tabs setRun)
   *   run        the shown run, one of runs (90-tabs setRun)
   *   activeTab  the tab shown: timeline, memory, tables, graph, diff (90-tabs showTab)
   * (errorCount above is the error badge's, written by noteError only.) */
  var data = null;
  var runs = [];
  var run = null;            /* the shown run */
  var activeTab = 'timeline';

  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
