/* report-check interact's driver for the graph tab's place in the address:
 * takes its steps from the page's address (#place-steps=STEP%0ASTEP...,
 * which it drops from the address first) and plays them as a user would
 * (synthetic events through the page's own handlers), logging after each
 * what the view shows and the page's address:
 *   "STEP | run=R view=V depth=D device=E ops=O collapsed=C folded=F colour=K tab=T address=#..."
 * A step is a node's <title> (a click on the first node of that title in
 * the graph tab), "^N" (a click on crumb N, 0 the top), "Unfold" or "Fold"
 * (that button), "colour=K" (the Colour select), "run=K" (the run select),
 * "tab=T" (a click on that tab),
 * "back" or "forward" (the history's, waiting for the page's hashchange),
 * "history" (logs how many entries the history has). */
(function () {
  var log = [], html = document.documentElement, m = /(?:^#|&)place-steps=([^&]*)/.exec(location.hash);
  var steps = m ? decodeURIComponent(m[1]).split('\n') : [];
  history.replaceState(null, '', location.hash.replace(/&?place-steps=[^&]*/, '').replace(/^#&/, '#'));
  function a(k) { return html.getAttribute('data-graph-' + k); }
  function snap(what) {
    log.push(what + ' | run=' + html.getAttribute('data-run') + ' view=' + a('view') + ' depth=' + a('view-depth') + ' device=' + a('view-device') + ' ops=' + a('view-ops') +
      ' collapsed=' + a('view-collapsed') + ' folded=' + a('view-folded') + ' colour=' + a('colour') + ' tab=' + document.querySelector('#tabs button.on').getAttribute('data-tab') + ' address=' + location.hash);
  }
  function node(title) {
    var all = document.querySelectorAll('#panel-graph g.node');
    for (var i = 0; i < all.length; i++) {
      var t = all[i].querySelector('title');
      if (t && t.textContent === title) return all[i];
    }
    throw new Error('no node ' + title);
  }
  function button(text) {
    var all = document.querySelectorAll('#panel-graph button');
    for (var i = 0; i < all.length; i++) if (all[i].textContent === text) return all[i];
    throw new Error('no ' + text + ' button');
  }
  function crumb(n) {
    var c = document.querySelector('#panel-graph .g-crumbs'), k = 0;
    for (var e = c.firstChild; e; e = e.nextSibling) {
      if (e.nodeType !== 1 || (e.tagName !== 'BUTTON' && e.tagName !== 'SPAN') || e.className === 'g-switch' || e.className === 'g-legend') continue;
      if (k++ === n) return e;
    }
    throw new Error('no crumb ' + n);
  }
  function done() {
    var pre = document.createElement('pre');
    pre.id = 'interact-log';
    pre.textContent = log.join('\n');
    document.body.appendChild(pre);
  }
  function next(q) {
    if (q >= steps.length) return done();
    var s = steps[q];
    try {
      if (s === 'back' || s === 'forward') {
        var t = setTimeout(function () { log.push(s + ' | no hashchange'); window.removeEventListener('hashchange', on); next(q + 1); }, 2000);
        var on = function () { clearTimeout(t); window.removeEventListener('hashchange', on); setTimeout(function () { snap(s); next(q + 1); }, 0); };
        window.addEventListener('hashchange', on);
        history[s]();
        return;
      }
      if (s === 'history') { log.push('history | ' + history.length + ' entries'); return next(q + 1); }
      if (/^\^\d+$/.test(s)) crumb(+s.slice(1)).click();
      else if (s === 'Unfold' || s === 'Fold') button(s).click();
      else if (/^tab=/.test(s)) document.querySelector('#tabs button[data-tab="' + s.slice(4) + '"]').click();
      else if (/^(colour|run)=/.test(s)) {
        var sel = document.getElementById(s.charAt(0) === 'c' ? 'g-colour' : 'run-select');
        sel.value = s.replace(/^[a-z]*=/, '');
        sel.dispatchEvent(new Event('change', { bubbles: true }));
      } else {
        node(s).dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true, button: 0, clientX: 5, clientY: 5 }));
        window.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, button: 0, clientX: 5, clientY: 5 }));
      }
      snap(s);
    } catch (e) {
      log.push('ERROR ' + s + ': ' + e.message);
      return done();
    }
    next(q + 1);
  }
  snap('start');
  next(0);
})();
