/* graph-place.js: the graph tab's place in the page's address, round trip,
 * in node (graphview.js with a stub DOM, as graph-walk.js runs it). Opens
 * the views named on the command line one after another as a click would
 * (the viewer's own open() on the node of that <title>), and after each
 * prints what the view shows and its address:
 *   "open TITLE | view=V depth=D device=E ops=O collapsed=C folded=F address=A"
 * (A: the value the page writes as #graph=, encoded as the page encodes it:
 * encodeURIComponent, then '/', ':' and '@' as they are). Then a fresh
 * viewer of the same page data, opened at A as the page opens its address
 * (decodeURIComponent, then go()), prints "restored | ..." and "same" when
 * its crumbs, its attributes and its markup are those of the clicks, else
 * what differs.
 *
 *   node graph-place.js PAGE.html RUN [--titles FILE] [--unfold] STEP...
 * (--titles: the restored view's node titles written to FILE, sorted by
 * UTF-16 code unit, one a line.)
 * A STEP is a node's <title> (the first node of that title), "TITLE @ DEVICE"
 * (the node of that title on that device), "^N" (a click on crumb N: 0 the
 * top), "-fold" or "+fold" (Unfold, Fold: the fresh viewer's too), or "=ADDRESS" (a fresh viewer opened at #graph=ADDRESS, as written
 * in an address: "go true|false | view=..."; nothing else follows it).
 */
'use strict';
const fs = require('fs');
const path = require('path');

const src = path.join(__dirname, '../../../../libtrace/emit/report');
const attrs = {};
global.window = { addEventListener() {} };
global.document = { documentElement: { setAttribute(k, v) { attrs[k] = v; } } };
global.TftraceFormat = new Function(fs.readFileSync(path.join(src, 'format.js'), 'utf8') + '\nreturn TftraceFormat;')();
new Function(fs.readFileSync(path.join(src, 'graphview.js'), 'utf8'))();

const page = fs.readFileSync(process.argv[2], 'utf8');
const text = /id="tftrace-data">([\s\S]*?)<\/script>/.exec(page)[1];
const runAt = +process.argv[3];
let args = process.argv.slice(4);
let titles = null;
if (args[0] === '--titles') { titles = args[1]; args = args.slice(2); }
let fold = args[0] !== '--unfold';
if (!fold) args = args.slice(1);
function viewer() {
  const run = JSON.parse(text).runs[runAt];
  if (!run.graph || !run.graph.data) throw new Error('no graph data for the page to lay out');
  const v = window.TftraceGraph.view(run.graph.data, null);
  v.set('time', fold);
  return v;
}
const unesc = (s) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);
const SHOWN = ['view', 'view-depth', 'view-device', 'view-ops', 'view-collapsed', 'view-folded', 'view-edges'];
function shown() {
  return 'view=' + attrs['data-graph-view'] + ' depth=' + attrs['data-graph-view-depth'] + ' device=' + attrs['data-graph-view-device'] +
    ' ops=' + attrs['data-graph-view-ops'] + ' collapsed=' + attrs['data-graph-view-collapsed'] + ' folded=' + attrs['data-graph-view-folded'];
}
/* what the page writes into its address for v's place */
function address(v) {
  return encodeURIComponent(v.where()).replace(/%2F/g, '/').replace(/%3A/g, ':').replace(/%40/g, '@');
}
function click(v, step) {
  const mk = v.markup(), at = step.lastIndexOf(' @ ');
  const title = at < 0 ? step : step.slice(0, at), dev = at < 0 ? null : step.slice(at + 3);
  const re = /<g class="node( collapsed)?" data-item="(\d+)"[^>]*><title>([^<]*)<\/title>/g;
  let g;
  while ((g = re.exec(mk)) !== null) {
    const it = v.cur.items[+g[2]];
    if (unesc(g[3]) !== title || (dev !== null && v.m.devices[it.dev] !== dev)) continue;
    if (!v.open({ getAttribute: () => g[2] })) throw new Error('"' + step + '" does not open');
    return;
  }
  throw new Error('no node "' + step + '" in the view ' + attrs['data-graph-view']);
}

const v = viewer();
v.markup();
for (const step of args) {
  if (step.charAt(0) === '=') {
    const w = viewer(), h = step.slice(1);
    let val = h;
    try { val = decodeURIComponent(h); } catch (e) { /* as the page: kept as written */ }
    const ok = w.go(val);
    w.markup();
    console.log('go ' + ok + ' | ' + shown() + ' address=' + address(w));
    process.exit(0);
  }
  if (step === '-fold' || step === '+fold') {
    fold = step === '+fold';
    v.set('time', fold);
  } else if (/^\^\d+$/.test(step)) {
    v.stack.length = +step.slice(1) + 1;
    v.cur = null;
  } else click(v, step);
  v.markup();
  console.log('open ' + step + ' | ' + shown() + ' address=' + address(v));
}
const want = { attrs: SHOWN.map((k) => attrs['data-graph-' + k]), markup: v.cur.markup, crumbs: v.stack.map((s) => s.label) };
const w = viewer();
const ok = w.go(decodeURIComponent(address(v)));
w.markup();
console.log('restored | ' + shown() + ' address=' + address(w));
const got = { attrs: SHOWN.map((k) => attrs['data-graph-' + k]), markup: w.cur.markup, crumbs: w.stack.map((s) => s.label) };
const diff = [];
if (!ok) diff.push('go false');
if (JSON.stringify(got.attrs) !== JSON.stringify(want.attrs)) diff.push('attributes ' + JSON.stringify(got.attrs) + ' != ' + JSON.stringify(want.attrs));
if (JSON.stringify(got.crumbs) !== JSON.stringify(want.crumbs)) diff.push('crumbs ' + JSON.stringify(got.crumbs) + ' != ' + JSON.stringify(want.crumbs));
if (got.markup !== want.markup) diff.push('markup differs');
console.log(diff.length ? 'differs: ' + diff.join('; ') : 'same (' + want.crumbs.length + ' crumbs)');
if (titles) {
  const re = /<g class="node(?: collapsed)?" data-item="\d+"[^>]*><title>([^<]*)<\/title>/g, names = [];
  let g;
  while ((g = re.exec(w.cur.markup)) !== null) names.push(unesc(g[1]));
  fs.writeFileSync(titles, names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((n) => n + '\n').join(''));
}
