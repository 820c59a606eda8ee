/* report-check interact: drives a trace-report page as a user would (keys, clicks, the search
 * box, a graph node, the Escape key) with synthetic events, once the page's own script has
 * drawn it, and writes what the page shows after each step into a pre element (interact-log):
 * "STEP | tab=TAB view=T0 T1 chip=TEXT found=TEXT details=TITLE". */
(function () {
  var log = [];
  function $(id) { return document.getElementById(id); }
  function snap(what) {
    var on = document.querySelector('#tabs button.on');
    var h2 = document.querySelector('#details h2');
    log.push(what + ' | tab=' + (on && on.getAttribute('data-tab')) +
      ' view=' + document.documentElement.getAttribute('data-view-us') +
      ' chip=' + ($('tl-chip').hidden ? '-' : $('tl-chip-text').textContent) +
      ' found=' + ($('tl-found').textContent || '-') +
      ' details=' + (h2 ? h2.textContent : '-'));
  }
  function key(k) { document.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true })); }
  try {
    snap('start');
    key('w'); key('w'); snap('w w');
    key('0'); snap('0');
    var s = $('tl-search');
    s.value = 'conv';
    s.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    snap('search conv');
    key('Escape'); snap('escape');
    $('tl-chip-x').click(); snap('chip x');
    var node = document.querySelector('#panel-graph g.node');
    if (node) {
      var t = node.querySelector('title').textContent, r = node.getBoundingClientRect();
      var at = { bubbles: true, cancelable: true, button: 0, clientX: r.left + 1, clientY: r.top + 1 };
      document.querySelector('#tabs button[data-tab="graph"]').click();
      (node.querySelector('text') || node).dispatchEvent(new MouseEvent('mousedown', at));
      window.dispatchEvent(new MouseEvent('mouseup', at));
      snap('graph node ' + t);
    }
    key('Escape'); snap('escape');
  } catch (e) {
    log.push('ERROR ' + e.message);
  }
  var pre = document.createElement('pre');
  pre.id = 'interact-log';
  pre.textContent = log.join('\n');
  document.body.appendChild(pre);
})();
