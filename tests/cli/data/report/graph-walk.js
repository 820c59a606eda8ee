/* graph-walk.js: every view a reader reaches in the graph tab of a page
 * the page lays out itself (graphview.js, run in node with a stub DOM),
 * opening every collapsed node, folded entry and range as a click would
 * (the viewer's own open()), from the top view down. Prints
 * "views=V most=M ops=N" (views walked, the most nodes one view drew, the
 * ops found), then each op's name (its node's <title>), sorted, one a line.
 *
 *   node graph-walk.js PAGE.html [RUN]
 */
'use strict';
const fs = require('fs');
const path = require('path');

const src = path.join(__dirname, '../../../../libtrace/emit/report');
global.window = { addEventListener() {} };
global.document = { documentElement: { setAttribute() {} } };
global.TftraceFormat = new Function(fs.readFileSync(path.join(src, 'format.js'), 'utf8') + '\nreturn TftraceFormat;')();
new Function(fs.readFileSync(path.join(src, 'graphview.js'), 'utf8'))();

const page = fs.readFileSync(process.argv[2], 'utf8');
const m = /id="tftrace-data">([\s\S]*?)<\/script>/.exec(page);
const data = JSON.parse(m[1]);
const run = data.runs[+(process.argv[3] || 0)];
if (!run.graph || !run.graph.data) throw new Error('no graph data for the page to lay out');
const v = window.TftraceGraph.view(run.graph.data, null);

const unesc = (s) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);
const ops = new Set();
let views = 0, most = 0;
function walk(depth) {
  if (depth > 200) throw new Error('views nested past 200');
  const mk = v.markup();
  if (mk === null) throw new Error('a view failed to lay out');
  views++;
  const open = [];
  let n = 0, g;
  const re = /<g class="node( collapsed)?" data-item="(\d+)"[^>]*><title>([^<]*)<\/title>/g;
  while ((g = re.exec(mk)) !== null) {
    n++;
    if (g[1]) open.push(g[2]);
    else ops.add(unesc(g[3]));
  }
  most = Math.max(most, n);
  const at = v.stack.length; /* after layout's own descent into views of one node */
  for (const q of open) {
    if (!v.open({ getAttribute: () => q })) throw new Error('a collapsed node does not open');
    walk(depth + 1);
    v.stack.length = at;
    v.cur = null;
    v.markup();
  }
}
walk(0);
console.log('views=' + views + ' most=' + most + ' ops=' + ops.size);
for (const s of [...ops].sort()) console.log(s);
