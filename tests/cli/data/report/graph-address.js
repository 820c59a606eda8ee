/* report-check interact's driver for the graph's address: on a page opened
 * at the second run's graph tab, picks "change in memory" in the Colour
 * select, then clicks Unfold, as a user would (synthetic events), and logs
 * after each step what the view shows and the page's address:
 * "STEP | colour=C folded=F address=#...". */
(function () {
  var log = [], html = document.documentElement;
  function snap(what) {
    log.push(what + ' | colour=' + html.getAttribute('data-graph-colour') + ' folded=' +
      html.getAttribute('data-graph-view-folded') + ' address=' + location.hash);
  }
  function button(text) {
    var all = document.querySelectorAll('#panel-graph button');
    for (var i = 0; i < all.length; i++) if (all[i].textContent === text) return all[i];
    throw new Error('no ' + text + ' button');
  }
  try {
    snap('start');
    var sel = document.getElementById('g-colour');
    sel.value = 'memory';
    sel.dispatchEvent(new Event('change', { bubbles: true }));
    snap('colour memory');
    button('Unfold').click();
    snap('unfold');
  } catch (e) {
    log.push('ERROR ' + e.message);
  }
  var pre = document.createElement('pre');
  pre.id = 'interact-log';
  pre.textContent = log.join('\n');
  document.body.appendChild(pre);
})();
