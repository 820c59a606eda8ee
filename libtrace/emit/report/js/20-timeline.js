var Timeline = (function () {

  /* ---------- timeline ---------- */

  var ROW_H = 18, HEAD_H = 22, AXIS_H = 26, LABEL_W = 210;
  var tl = {
    canvas: null, ctx: null, scroll: null, spacer: null,
    w: 0, h: 0, dpr: 1,
    t0: 0, t1: 1,
    rowY: null, rowShown: null, heads: [], contentH: 0,
    sel: -1, hover: -1, hl: null, marker: null,
    raf: 0, charW: 6.2, range: null,
    search: { q: '', list: null }
  };

  function layoutRows() {
    var R = run.rows.length;
    var rowY = tl.rowY = new Float64Array(R);
    var shown = tl.rowShown = new Uint8Array(R);
    var heads = tl.heads = [];
    var single = tl.rowSingle = new Uint8Array(R);
    var y = 4, h = null;
    for (var r = 0; r < R; r++) {
      var dev = run.rows[r].device;
      if (!h || dev !== h.device) {
        var n = 1;
        while (r + n < R && run.rows[r + n].device === dev) n++;
        if (n === 1) {
          /* a device with one row (a GPU stream, say) gets no header band of its own */
          h = { device: dev, y: y, hh: 0, first: r, count: 1, collapsed: false, single: true };
          heads.push(h);
          rowY[r] = y + 2; shown[r] = 1; single[r] = 1;
          y += ROW_H + 4;
          continue;
        }
        h = { device: dev, y: y, hh: HEAD_H, first: r, count: 0, collapsed: !!run.collapsed[dev], single: false };
        heads.push(h);
        y += HEAD_H;
      }
      h.count++;
      if (h.collapsed) { rowY[r] = h.y + (HEAD_H - ROW_H) / 2; shown[r] = 0; }
      else { rowY[r] = y; shown[r] = 1; y += ROW_H; }
    }
    tl.contentH = y + 8;
    sizeTimeline();
  }

  function sizeTimeline() {
    var sc = tl.scroll;
    var w = sc.clientWidth, h = sc.clientHeight;
    if (!w && tl.w) { w = tl.w; h = tl.h; }    /* hidden (another tab): keep the last size */
    if (w < 50) w = 50;
    if (h < 60) h = 60;
    var dpr = window.devicePixelRatio || 1;
    if (w !== tl.w || h !== tl.h || dpr !== tl.dpr) {
      tl.w = w; tl.h = h; tl.dpr = dpr;
      tl.canvas.style.width = w + 'px';
      tl.canvas.style.height = h + 'px';
      tl.canvas.width = Math.round(w * dpr);
      tl.canvas.height = Math.round(h * dpr);
    }
    tl.spacer.style.height = Math.max(0, AXIS_H + tl.contentH - h) + 'px';
  }

  function plotW() { return Math.max(10, tl.w - LABEL_W); }
  function tOf(x) { return tl.t0 + (x - LABEL_W) * (tl.t1 - tl.t0) / plotW(); }
  function yOfRow(r) { return AXIS_H + tl.rowY[r] - tl.scroll.scrollTop; }

  function setView(t0, t1) {
    var full = run.tMax - run.tMin;
    var span = t1 - t0;
    if (!(span > 0) || !isFinite(span)) { t0 = run.tMin; t1 = run.tMax; span = t1 - t0; }
    var minSpan = 1e-3, maxSpan = full * 1.5;
    if (span < minSpan) { var c = (t0 + t1) / 2; t0 = c - minSpan / 2; t1 = c + minSpan / 2; span = minSpan; }
    if (span > maxSpan) { c = (t0 + t1) / 2; t0 = c - maxSpan / 2; t1 = c + maxSpan / 2; span = maxSpan; }
    var lo = run.tMin - span * 0.5, hi = run.tMax + span * 0.5;
    if (t0 < lo) { t0 = lo; t1 = lo + span; }
    if (t1 > hi) { t1 = hi; t0 = hi - span; }
    tl.t0 = t0; tl.t1 = t1;
    noteView();
    redraw();
  }
  function noteView() { html.setAttribute('data-view-us', +tl.t0.toFixed(3) + ' ' + +tl.t1.toFixed(3)); }
  function resetView() {
    var pad = (run.tMax - run.tMin) * 0.01;
    setView(run.tMin - pad, run.tMax + pad);
  }
  function zoomAt(x, factor) {
    var t = tOf(clamp(x, LABEL_W, tl.w));
    setView(t - (t - tl.t0) * factor, t + (tl.t1 - t) * factor);
  }
  function panPx(dx) {
    var d = dx * (tl.t1 - tl.t0) / plotW();
    setView(tl.t0 + d, tl.t1 + d);
  }
  function fitRange(a, b) {
    if (b - a < 1) { var c = (a + b) / 2; a = c - 0.5; b = c + 0.5; }
    var m = (b - a) * 0.08;
    setView(a - m, b + m);
  }

  function redraw() {
    if (!tl.raf) tl.raf = requestAnimationFrame(function () { tl.raf = 0; drawTimeline(); });
  }

  /* First position in row r whose slice reaches time t (ends at or after t). */
  function firstReaching(r, t) {
    var a = run.rowLo[r], b = run.rowLo[r + 1], me = run.maxEnd;
    while (a < b) { var m = (a + b) >> 1; if (me[m] < t) a = m + 1; else b = m; }
    return a;
  }
  function firstRowAt(cy) {
    /* last row whose top is <= cy (rowY is non-decreasing) */
    var ry = tl.rowY, a = 0, b = ry.length;
    while (a < b) { var m = (a + b) >> 1; if (ry[m] + ROW_H <= cy) a = m + 1; else b = m; }
    return a;
  }

  function truncText(s, px) {
    var n = Math.floor(px / tl.charW);
    if (n <= 1) return '';
    if (s.length <= n) return s;
    return s.slice(0, n - 1) + '\u2026';
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }
  function tickLabel(t, step) {
    var div = 1, unit = MU + 's';
    if (step >= 1e5) { div = 1e6; unit = 's'; }
    else if (step >= 100) { div = 1e3; unit = 'ms'; }
    else if (step < 0.1) { div = 1e-3; unit = 'ns'; }
    var dec = Math.max(0, Math.ceil(-Math.log10(step / div) - 1e-9));
    var v = t / div;
    if (Math.abs(v) < 1e-12) v = 0;
    return v.toFixed(Math.min(dec, 6)) + ' ' + unit;
  }

  /* One frame of the timeline: the view, the rows in sight, the grid's step; the slices'
   * names and the count of rects drawn gather in it as it is drawn. */
  function frameOf() {
    var t0 = tl.t0, t1 = tl.t1, PW = plotW(), scrollTop = tl.scroll.scrollTop;
    var step = niceStep((t1 - t0) / Math.max(1, PW / 110));
    return {
      ctx: tl.ctx, W: tl.w, H: tl.h, t0: t0, t1: t1, PW: PW, k: PW / (t1 - t0), X0: LABEL_W,
      scrollTop: scrollTop, rFirst: firstRowAt(scrollTop - 2), yLimit: scrollTop + tl.h - AXIS_H + 2,
      step: step, tick0: Math.ceil(t0 / step) * step, labels: [], rects: 0
    };
  }

  function drawTimeline() {
    if (!run) return 0;
    var began = performance.now();
    var ctx = tl.ctx, dpr = tl.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, tl.w, tl.h);
    var f = frameOf();
    drawGrid(f);
    ctx.save();
    ctx.beginPath();
    ctx.rect(f.X0, AXIS_H, f.W - f.X0, f.H - AXIS_H);
    ctx.clip();
    drawSlices(f);
    if (tl.hl) drawHighlighted(f);
    drawNames(f);
    drawMarks(f);
    ctx.restore();
    drawRowLabels(f);
    drawHeads(f);
    drawAxis(f);
    if (run.n === 0) {
      ctx.fillStyle = '#687083';
      ctx.font = '13px ' + FONT;
      ctx.fillText('This run has no slices.', f.X0 + 20, AXIS_H + 40);
    }
    html.setAttribute('data-last-draw-ms', (performance.now() - began).toFixed(1));
    return f.rects;
  }

  /* grid, and the run's bounds: shade outside [tMin, tMax] */
  function drawGrid(f) {
    var ctx = f.ctx, X0 = f.X0, W = f.W, H = f.H;
    ctx.fillStyle = '#eef0f4';
    /* ticks by count, not by sum: t += step may not move t when t >> step */
    for (var tn = 0, t = f.tick0; t <= f.t1 && tn < 400; t = f.tick0 + ++tn * f.step) {
      var gx = Math.round(X0 + (t - f.t0) * f.k);
      ctx.fillRect(gx, AXIS_H, 1, H - AXIS_H);
    }
    ctx.fillStyle = '#f7f8fa';
    var xa = X0 + (run.tMin - f.t0) * f.k, xb = X0 + (run.tMax - f.t0) * f.k;
    if (xa > X0) ctx.fillRect(X0, AXIS_H, xa - X0, H - AXIS_H);
    if (xb < W) ctx.fillRect(Math.max(X0, xb), AXIS_H, W - Math.max(X0, xb), H - AXIS_H);
  }

  /* rows: separators and slices, dimmed under a highlight */
  function drawSlices(f) {
    var ctx = f.ctx, rowY = tl.rowY, shown = tl.rowShown, R = rowY.length;
    ctx.globalAlpha = tl.hl ? 0.28 : 1;
    for (var r = f.rFirst; r < R; r++) {
      var ry = rowY[r];
      if (ry > f.yLimit) break;
      if (!shown[r]) continue;
      var y = AXIS_H + ry - f.scrollTop;
      ctx.fillStyle = '#f1f3f6';
      ctx.fillRect(f.X0, y + ROW_H - 1, f.W - f.X0, 1);
      drawRowSlices(f, r, y);
    }
    ctx.globalAlpha = 1;
  }
  /* Row r's slices at y; touching slices under a pixel wide are merged into one rect. */
  function drawRowSlices(f, r, y) {
    var ctx = f.ctx, X0 = f.X0, W = f.W, t0 = f.t0, t1 = f.t1, k = f.k, hl = tl.hl;
    var order = run.order, start = run.start, end = run.end, hi = run.rowLo[r + 1];
    var lastFill = '', pX0 = 0, pX1 = 0, pCol = null;
    function flush() {
      if (pCol !== lastFill) { ctx.fillStyle = lastFill = pCol; }
      ctx.fillRect(pX0, y + 2, Math.max(1, pX1 - pX0), ROW_H - 4); f.rects++;
    }
    for (var p = firstReaching(r, t0); p < hi; p++) {
      var i = order ? order[p] : p;
      var s = start[i];
      if (s > t1) break;
      var e = end[i];
      if (e < t0) continue;
      var x0 = X0 + (s - t0) * k, x1 = X0 + (e - t0) * k;
      if (x0 < X0 - 2) x0 = X0 - 2;
      if (x1 > W + 2) x1 = W + 2;
      var col = colour(run, i);
      if (x1 - x0 < 1) {
        if (pCol !== null && x0 <= Math.max(pX1, pX0 + 1) + 0.5) {
          if (x1 > pX1) pX1 = x1;
          continue;
        }
        if (pCol !== null) flush();
        pX0 = x0; pX1 = x1; pCol = col;
        continue;
      }
      if (pCol !== null) { flush(); pCol = null; }
      if (col !== lastFill) { ctx.fillStyle = lastFill = col; }
      /* a 1 px gap after a wide slice keeps same-coloured neighbours apart */
      ctx.fillRect(x0, y + 2, x1 - x0 >= 4 ? x1 - x0 - 1 : x1 - x0, ROW_H - 4); f.rects++;
      if (!hl && x1 - x0 > 34) f.labels.push(i, x0, x1, y);
    }
    if (pCol !== null) flush();
  }

  /* highlighted slices, on top, at least 2 px wide; narrow neighbours merged as above */
  function drawHighlighted(f) {
    var ctx = f.ctx, X0 = f.X0, W = f.W, t0 = f.t0, t1 = f.t1, k = f.k;
    var rowY = tl.rowY, shown = tl.rowShown, start = run.start, end = run.end;
    var list = tl.hl.list, curRow = -1, skipRow = true, hy = 0;
    var qX0 = 0, qX1 = 0, qCol = null;
    function flush() {
      ctx.fillStyle = qCol;
      ctx.fillRect(qX0, hy + 2, qX1 - qX0, ROW_H - 4);
      ctx.strokeRect(qX0 + 0.5, hy + 2.5, Math.max(1, qX1 - qX0 - 1), ROW_H - 5);
      qCol = null;
    }
    ctx.strokeStyle = '#c77700';
    ctx.lineWidth = 1;
    for (var q = 0; q <= list.length; q++) {
      var i = q < list.length ? list[q] : -1;
      var r = i >= 0 ? run.row[i] : -1;
      if (r !== curRow) {
        if (qCol !== null) flush();
        if (i < 0) break;
        curRow = r;
        var ry = rowY[r];
        skipRow = !shown[r] || ry + ROW_H < f.scrollTop || ry > f.yLimit;
        hy = AXIS_H + ry - f.scrollTop;
      }
      if (skipRow) continue;
      var s = start[i], e = end[i];
      if (e < t0 || s > t1) continue;
      var x0 = Math.max(X0 - 2, X0 + (s - t0) * k), x1 = Math.min(W + 2, X0 + (e - t0) * k);
      var col = colour(run, i);
      if (x1 - x0 < 2) {
        var c = (x0 + x1) / 2;
        x0 = c - 1; x1 = c + 1;
        if (qCol !== null && x0 <= qX1 + 0.5) { if (x1 > qX1) qX1 = x1; continue; }
      }
      if (qCol !== null) flush();
      if (x1 - x0 <= 2) { qX0 = x0; qX1 = x1; qCol = col; continue; }
      ctx.fillStyle = col;
      ctx.fillRect(x0, hy + 2, x1 - x0, ROW_H - 4);
      ctx.strokeRect(x0 + 0.5, hy + 2.5, Math.max(1, x1 - x0 - 1), ROW_H - 5);
      if (x1 - x0 > 34) f.labels.push(i, x0, x1, hy);
    }
  }

  /* names on the wide slices */
  function drawNames(f) {
    var ctx = f.ctx, labels = f.labels;
    ctx.font = '11px ' + FONT;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#1d2230';
    for (var q = 0; q < labels.length; q += 4) {
      var i = labels[q];
      var lx0 = Math.max(labels[q + 1], f.X0), lx1 = Math.min(labels[q + 2], f.W);
      var txt = truncText(sliceName(run, i), lx1 - lx0 - 8);
      if (txt) ctx.fillText(txt, lx0 + 4, labels[q + 3] + ROW_H / 2 + 0.5);
    }
  }

  /* selection, hover, arrows, critical path links, the memory curve's time marker */
  function drawMarks(f) {
    var ctx = f.ctx, hl = tl.hl;
    if (hl && hl.path) drawPath(ctx, hl.list0);
    if (tl.sel >= 0) drawSelection(ctx, tl.sel); else noteSelection(-1, 0);
    if (tl.hover >= 0 && tl.hover !== tl.sel) outline(ctx, tl.hover, '#3a4255', 1);
    if (tl.marker !== null) {
      var mx = f.X0 + (tl.marker - f.t0) * f.k;
      ctx.strokeStyle = '#d6336c'; ctx.lineWidth = 1; ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(Math.round(mx) + 0.5, AXIS_H); ctx.lineTo(Math.round(mx) + 0.5, f.H); ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  /* the row labels, left of the plot */
  function drawRowLabels(f) {
    var ctx = f.ctx, rowY = tl.rowY, shown = tl.rowShown, R = rowY.length;
    ctx.fillStyle = '#fbfbfc';
    ctx.fillRect(0, AXIS_H, LABEL_W, f.H - AXIS_H);
    ctx.textBaseline = 'middle';
    for (var r = f.rFirst; r < R; r++) {
      var ry = rowY[r];
      if (ry > f.yLimit) break;
      if (!shown[r]) continue;
      var y = AXIS_H + ry - f.scrollTop;
      ctx.fillStyle = '#eef0f3';
      ctx.fillRect(0, y + ROW_H - 1, LABEL_W, 1);
      var row = run.rows[r];
      if (tl.rowSingle[r]) {
        ctx.fillStyle = '#22283a';
        ctx.font = '600 11.5px ' + FONT;
        ctx.fillText(truncText(shortDevice(row.device) + (row.track ? ' \u00b7 ' + row.track : ''), LABEL_W - 16), 6, y + ROW_H / 2 + 0.5);
      } else {
        ctx.fillStyle = '#4a5163';
        ctx.font = '11.5px ' + FONT;
        ctx.fillText(truncText(rowLabel(row), LABEL_W - 30), 18, y + ROW_H / 2 + 0.5);
      }
    }
  }

  /* device headers (full width) */
  function drawHeads(f) {
    var ctx = f.ctx, W = f.W, heads = tl.heads;
    for (var hIx = 0; hIx < heads.length; hIx++) {
      var hd = heads[hIx];
      if (hd.y > f.yLimit) break;
      if (hd.y + HEAD_H < f.scrollTop - 2) continue;
      var y = AXIS_H + hd.y - f.scrollTop;
      if (hd.single) {
        ctx.fillStyle = '#dde1e8';
        ctx.fillRect(0, y, W, 1);
        continue;
      }
      ctx.fillStyle = '#f0f2f6';
      ctx.fillRect(0, y, W, HEAD_H);
      ctx.fillStyle = '#dde1e8';
      ctx.fillRect(0, y + HEAD_H - 1, W, 1);
      ctx.fillStyle = '#22283a';
      ctx.font = '600 12px ' + FONT;
      var caret = hd.collapsed ? '\u25b8 ' : '\u25be ';
      var extra = hd.collapsed ? '   (' + hd.count + (hd.count === 1 ? ' row folded)' : ' rows folded)') : '';
      ctx.fillText(caret + (hd.device || '(no device)') + extra, 6, y + HEAD_H / 2 + 0.5);
    }
    ctx.fillStyle = '#dfe2e7';
    ctx.fillRect(LABEL_W - 1, AXIS_H, 1, f.H - AXIS_H);
  }

  /* time axis, the view's span, the range a drag marks */
  function drawAxis(f) {
    var ctx = f.ctx, W = f.W, H = f.H, t0 = f.t0, t1 = f.t1;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, W, AXIS_H);
    ctx.fillStyle = '#dfe2e7';
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    ctx.font = '11px ' + FONT;
    ctx.textBaseline = 'middle';
    for (var tn = 0, t = f.tick0; t <= t1 && tn < 400; t = f.tick0 + ++tn * f.step) {
      var gx = Math.round(f.X0 + (t - t0) * f.k);
      if (gx < f.X0) continue;
      ctx.fillStyle = '#b5bbc6';
      ctx.fillRect(gx, AXIS_H - 7, 1, 6);
      ctx.fillStyle = '#5b6275';
      ctx.fillText(tickLabel(t, f.step), gx + 3, AXIS_H / 2 - 1);
    }
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, LABEL_W, AXIS_H - 1);
    ctx.fillStyle = '#687083';
    ctx.font = '11px ' + FONT;
    ctx.fillText('view ' + fmtUs(t1 - t0) + ' of ' + fmtUs(run.tMax - run.tMin), 8, AXIS_H / 2 - 1);
    if (tl.range) {
      var ra = Math.min(tl.range[0], tl.range[1]), rb = Math.max(tl.range[0], tl.range[1]);
      ctx.fillStyle = 'rgba(47,98,214,0.12)';
      ctx.fillRect(ra, 0, rb - ra, H);
      ctx.fillStyle = '#2f62d6';
      ctx.fillRect(Math.round(ra), 0, 1, H);
      ctx.fillRect(Math.round(rb), 0, 1, H);
      var rl = fmtUs((rb - ra) * (t1 - t0) / f.PW);
      ctx.font = '600 11px ' + FONT;
      ctx.fillText(rl, Math.min(rb + 4, W - ctx.measureText(rl).width - 4), AXIS_H / 2 - 1);
    }
  }

  function sliceBox(i) {
    var r = run.row[i];
    var k = plotW() / (tl.t1 - tl.t0);
    var x0 = LABEL_W + (run.start[i] - tl.t0) * k, x1 = LABEL_W + (run.end[i] - tl.t0) * k;
    if (x1 - x0 < 2) { var c = (x0 + x1) / 2; x0 = c - 1; x1 = c + 1; }
    return { x0: clamp(x0, -1e6, 1e6), x1: clamp(x1, -1e6, 1e6), y: yOfRow(r), shown: tl.rowShown[r] };
  }
  function outline(ctx, i, colourS, width) {
    var b = sliceBox(i);
    var y = b.shown ? b.y + 2 : b.y + (ROW_H - 8) / 2, h = b.shown ? ROW_H - 4 : 8;
    ctx.strokeStyle = colourS; ctx.lineWidth = width; ctx.setLineDash([]);
    ctx.strokeRect(b.x0 - width / 2, y - width / 2, b.x1 - b.x0 + width, h + width);
  }
  var ARROW_STYLE = [
    { c: '#34405e', dash: [] },
    { c: '#d9480f', dash: [6, 4] },
    { c: '#7048e8', dash: [2, 3] }
  ];
  function drawArrow(ctx, a, b, kind) {
    var st = ARROW_STYLE[kind] || ARROW_STYLE[0];
    var x1 = a.x1, y1 = a.y + ROW_H / 2, x2 = b.x0, y2 = b.y + ROW_H / 2;
    var dx = Math.max(24, Math.abs(x2 - x1) * 0.4);
    if (Math.abs(y2 - y1) < 1 && x2 >= x1) dx = (x2 - x1) / 3;
    ctx.strokeStyle = st.c; ctx.fillStyle = st.c;
    ctx.lineWidth = 1.5; ctx.setLineDash(st.dash);
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.bezierCurveTo(x1 + dx, y1, x2 - dx, y2, x2 - 1, y2);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath();
    ctx.moveTo(x2, y2); ctx.lineTo(x2 - 7, y2 - 3.5); ctx.lineTo(x2 - 7, y2 + 3.5);
    ctx.closePath(); ctx.fill();
    ctx.beginPath(); ctx.arc(x1, y1, 2, 0, 2 * Math.PI); ctx.fill();
  }
  /* For tests: the selected slice's node and the arrows drawn for it. */
  function noteSelection(i, arrows) {
    if (i < 0) {
      html.removeAttribute('data-selected');
      html.removeAttribute('data-selected-arrows');
      return;
    }
    html.setAttribute('data-selected', str(run, run.node[i]));
    html.setAttribute('data-selected-arrows', String(arrows));
  }
  function drawSelection(ctx, i) {
    var me = sliceBox(i);
    var j, a, n = 0;
    for (j = run.inLo[i]; j < run.inLo[i + 1]; j++, n++) {
      a = run.inA[j];
      outline(ctx, run.aFrom[a], '#6b7385', 1);
      drawArrow(ctx, sliceBox(run.aFrom[a]), me, run.aKind[a]);
    }
    for (j = run.outLo[i]; j < run.outLo[i + 1]; j++, n++) {
      a = run.outA[j];
      outline(ctx, run.aTo[a], '#6b7385', 1);
      drawArrow(ctx, me, sliceBox(run.aTo[a]), run.aKind[a]);
    }
    outline(ctx, i, '#11151f', 2);
    noteSelection(i, n);
  }
  function drawPath(ctx, path) {
    ctx.strokeStyle = '#c77700'; ctx.lineWidth = 1.5; ctx.setLineDash([]);
    for (var q = 1; q < path.length; q++) {
      var a = sliceBox(path[q - 1]), b = sliceBox(path[q]);
      var x1 = a.x1, y1 = a.y + ROW_H / 2, x2 = b.x0, y2 = b.y + ROW_H / 2;
      if (Math.max(x1, x2) < LABEL_W || Math.min(x1, x2) > tl.w) continue;
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    }
  }

  /* What is under (x, y) on the canvas: {head} or {slice} or null. */
  function hitTest(x, y) {
    if (y < AXIS_H) return null;
    var cy = y - AXIS_H + tl.scroll.scrollTop;
    var heads = tl.heads;
    for (var a = 0, b = heads.length; a < b;) {
      var m = (a + b) >> 1;
      if (heads[m].y + heads[m].hh <= cy) a = m + 1; else b = m;
    }
    if (a < heads.length && heads[a].y <= cy && cy < heads[a].y + heads[a].hh) return { head: heads[a] };
    var r = firstRowAt(cy);
    while (r < tl.rowY.length && !tl.rowShown[r] && tl.rowY[r] <= cy) r++;
    if (r >= tl.rowY.length || !tl.rowShown[r] || tl.rowY[r] > cy || cy >= tl.rowY[r] + ROW_H) return null;
    if (x < LABEL_W) return { row: r, label: true };
    var k = plotW() / (tl.t1 - tl.t0);
    var t = tOf(x), tol = 3 / k;
    var best = -1, bestD = Infinity, bestDur = Infinity;
    var order = run.order, hi = run.rowLo[r + 1];
    for (var p = firstReaching(r, t - tol); p < hi; p++) {
      var i = order ? order[p] : p;
      var s = run.start[i];
      if (s > t + tol) break;
      var e = run.end[i];
      if (e < t - tol) continue;
      var d = t < s ? s - t : t > e ? t - e : 0;
      if (d < bestD || (d === bestD && run.dur[i] < bestDur)) { best = i; bestD = d; bestDur = run.dur[i]; }
    }
    return best >= 0 ? { slice: best, row: r } : { row: r };
  }

  /* Brings slice i on screen: unfolds its device, scrolls to its row, zooms when needed. */
  function reveal(i, fit) {
    var r = run.row[i];
    var dev = run.rows[r].device;
    if (run.collapsed[dev]) { delete run.collapsed[dev]; layoutRows(); }
    var sc = tl.scroll, y = tl.rowY[r];
    var vis = sc.clientHeight - AXIS_H;
    if (y < sc.scrollTop + 4 || y + ROW_H > sc.scrollTop + vis - 4) sc.scrollTop = Math.max(0, y - vis / 2);
    var s = run.start[i], e = run.end[i], span = tl.t1 - tl.t0;
    if (fit) {
      var a = s, b = e;
      if (fit === 'arrows') {
        for (var j = run.inLo[i]; j < run.inLo[i + 1]; j++) a = Math.min(a, run.start[run.aFrom[run.inA[j]]]);
        for (j = run.outLo[i]; j < run.outLo[i + 1]; j++) b = Math.max(b, run.end[run.aTo[run.outA[j]]]);
      }
      fitRange(a, b);
    } else if (s < tl.t0 || e > tl.t1) {
      /* off screen: centre it at the present zoom, or show all of it when it is longer */
      if (e - s <= span * 0.9) setView((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
      else fitRange(s, e);
    }
    redraw();
  }

  function select(i, how) {
    tl.sel = i;
    Details.renderDetails();
    if (i >= 0 && how) reveal(i, how === 'arrows' ? 'arrows' : how === 'fit' ? 'fit' : false);
    Graph.markGraphNode(i >= 0 ? str(run, run.node[i]) : '');
    redraw();
  }

  function setHighlight(label, indices, opts) {
    if (!indices || !indices.length) { clearHighlight(); return; }
    var N = run.n, set = new Uint8Array(N), list0 = [];
    for (var q = 0; q < indices.length; q++) {
      var i = indices[q];
      if (i >= 0 && i < N && !set[i]) { set[i] = 1; list0.push(i); }
    }
    /* drawn in row/start order so later rows paint over nothing of earlier ones */
    var list = Int32Array.from(list0).sort();
    tl.hl = { label: label, set: set, list: list, list0: list0, path: !!(opts && opts.path), source: opts && opts.source };
    $('tl-chip').hidden = false;
    $('tl-chip-text').textContent = label + ' \u00b7 ' + list0.length + (list0.length === 1 ? ' slice' : ' slices');
    redraw();
    Tables.syncCritButton();
  }
  function clearHighlight() {
    tl.hl = null;
    $('tl-chip').hidden = true;
    redraw();
    Tables.syncCritButton();
  }
  function showOnTimeline(indices, label, opts) {
    if (!indices.length) return;
    setHighlight(label, indices, opts);
    var a = Infinity, b = -Infinity;
    for (var q = 0; q < indices.length; q++) {
      a = Math.min(a, run.start[indices[q]]); b = Math.max(b, run.end[indices[q]]);
    }
    Tabs.showTab('timeline');
    var first = indices[0];
    select(first, false);
    reveal(first, false);
    fitRange(a, b);
  }

  /* ---------- timeline events ---------- */

  var mouse = { x: -1, y: -1, inside: false, drag: null };

  function canvasXY(ev) {
    var b = tl.canvas.getBoundingClientRect();
    return { x: ev.clientX - b.left, y: ev.clientY - b.top };
  }

  function bindTimeline() {
    var sc = tl.scroll, cv = tl.canvas;
    sc.addEventListener('scroll', redraw);
    bindWheel(sc);
    bindDrag(sc, cv);
    bindHover(cv);
    bindKeys(sc);
    $('tl-reset').addEventListener('click', resetView);
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(function () { if (run) { sizeTimeline(); redraw(); } }).observe(sc);
    }
    window.addEventListener('resize', function () { if (run) { sizeTimeline(); redraw(); Memory.drawMemory(); } });
  }

  function bindWheel(sc) {
    sc.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var p = canvasXY(ev);
      var unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? sc.clientHeight : 1;
      var dx = ev.deltaX * unit, dy = ev.deltaY * unit;
      if (ev.shiftKey || p.x < LABEL_W) {
        sc.scrollTop += dy || dx;
        return;
      }
      if (Math.abs(dx) > Math.abs(dy)) { panPx(dx); return; }
      zoomAt(p.x, Math.exp(clamp(dy, -300, 300) * 0.0022));
    }, { passive: false });
  }

  /* A drag pans (or, along the time axis or with Shift, marks a range to zoom to); a press
   * and release without moving clicks: a device header folds, a slice is selected. */
  function bindDrag(sc, cv) {
    cv.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0) return;
      var p = canvasXY(ev);
      mouse.drag = { x: ev.clientX, y: ev.clientY, t0: tl.t0, t1: tl.t1, top: sc.scrollTop, moved: false, px: p.x, py: p.y,
        range: (ev.shiftKey || p.y < AXIS_H) && p.x >= LABEL_W };
      sc.focus({ preventScroll: true });
      ev.preventDefault();
    });
    window.addEventListener('mousemove', function (ev) {
      var d = mouse.drag;
      if (d) {
        var dx = ev.clientX - d.x, dy = ev.clientY - d.y;
        if (!d.moved && Math.abs(dx) + Math.abs(dy) > 3) { d.moved = true; sc.classList.add('drag'); $('tip').hidden = true; }
        if (d.moved && d.range) {
          /* a drag along the time axis (or with Shift) marks a range to zoom to */
          var b = tl.canvas.getBoundingClientRect();
          tl.range = [d.px, clamp(ev.clientX - b.left, LABEL_W, tl.w)];
          redraw();
        } else if (d.moved) {
          var span = d.t1 - d.t0, sh = -dx * span / plotW();
          setView(d.t0 + sh, d.t1 + sh);
          sc.scrollTop = d.top - dy;
        }
        return;
      }
    });
    window.addEventListener('mouseup', function () {
      var d = mouse.drag;
      if (!d) return;
      mouse.drag = null;
      sc.classList.remove('drag');
      dragEnd(d);
    });
  }
  function dragEnd(d) {
    if (d.range && tl.range) {
      var rx = tl.range;
      tl.range = null;
      if (Math.abs(rx[1] - rx[0]) >= 4) setView(tOf(Math.min(rx[0], rx[1])), tOf(Math.max(rx[0], rx[1])));
      else redraw();
      return;
    }
    if (d.moved) return;
    var h = hitTest(d.px, d.py);
    if (h && h.head) {
      var dev = h.head.device;
      if (run.collapsed[dev]) delete run.collapsed[dev]; else run.collapsed[dev] = true;
      layoutRows();
      redraw();
    } else if (h && h.slice !== undefined) {
      select(h.slice, false);
    } else {
      select(-1, false);
    }
  }

  /* the tooltip of what is under the mouse; a double click zooms to a slice */
  function bindHover(cv) {
    cv.addEventListener('dblclick', function (ev) {
      var p = canvasXY(ev), h = hitTest(p.x, p.y);
      if (h && h.slice !== undefined) { select(h.slice, 'fit'); }
    });
    cv.addEventListener('mousemove', function (ev) {
      var p = canvasXY(ev);
      mouse.x = p.x; mouse.y = p.y; mouse.inside = true;
      if (mouse.drag) return;
      var h = hitTest(p.x, p.y);
      var i = h && h.slice !== undefined ? h.slice : -1;
      if (i !== tl.hover) { tl.hover = i; redraw(); }
      showTip(ev, hoverTip(h));
      cv.style.cursor = i >= 0 || (h && h.head) ? 'pointer' : h && h.label ? 'default'
        : p.y < AXIS_H && p.x >= LABEL_W ? 'col-resize' : 'default';
    });
    cv.addEventListener('mouseleave', function () {
      mouse.inside = false;
      $('tip').hidden = true;
      if (tl.hover >= 0) { tl.hover = -1; redraw(); }
    });
  }
  /* The tooltip's HTML for hit h (hitTest), or null. */
  function hoverTip(h) {
    if (h && h.slice !== undefined) {
      var i = h.slice;
      return '<b>' + esc(sliceName(run, i)) + '</b><br>' + esc(str(run, run.op[i]) || SLICE_KINDS[run.kind[i]]) +
        ' \u00b7 ' + esc(fmtUs(run.dur[i])) + '<br><span class="m">at ' + esc(fmtUs(run.start[i])) +
        (run.bytes[i] ? ' \u00b7 ' + esc(fmtBytes(run.bytes[i])) : '') +
        ' \u00b7 ' + (run.inLo[i + 1] - run.inLo[i]) + ' in, ' + (run.outLo[i + 1] - run.outLo[i]) + ' out</span>';
    }
    if (h && h.label) {
      var rw = run.rows[h.row];
      return '<b>' + esc(rw.device || '(no device)') + '</b><br>' + esc(rowLabel(rw)) +
        (rw.kind ? ' <span class="m">(' + esc(rw.kind) + ')</span>' : '');
    }
    if (h && h.head) {
      return '<b>' + esc(h.head.device || '(no device)') + '</b><br><span class="m">' + h.head.count +
        (h.head.count === 1 ? ' row' : ' rows') + ' \u00b7 click to ' + (h.head.collapsed ? 'unfold' : 'fold') + '</span>';
    }
    return null;
  }

  function bindKeys(sc) {
    document.addEventListener('keydown', function (ev) {
      if (activeTab === 'graph' && ev.key === '0' && !(ev.target && ev.target.tagName === 'INPUT') && Graph.resetZoom()) return;
      if (activeTab !== 'timeline' || !run) return;
      var tg = ev.target && ev.target.tagName;
      if (tg === 'INPUT' || tg === 'SELECT' || tg === 'TEXTAREA') {
        if (ev.key === 'Escape' && ev.target.id === 'tl-search') { ev.target.value = ''; Search.runSearch(''); ev.target.blur(); }
        return;
      }
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var cx = mouse.inside && mouse.x > LABEL_W ? mouse.x : LABEL_W + plotW() / 2;
      var done = true;
      switch (ev.key) {
        case 'w': case 'W': zoomAt(cx, 0.8); break;
        case 's': case 'S': zoomAt(cx, 1.25); break;
        case 'a': case 'A': case 'ArrowLeft': panPx(-plotW() * 0.15); break;
        case 'd': case 'D': case 'ArrowRight': panPx(plotW() * 0.15); break;
        case 'ArrowUp': sc.scrollTop -= ROW_H * 3; break;
        case 'ArrowDown': sc.scrollTop += ROW_H * 3; break;
        case '0': resetView(); break;
        case 'f': case 'F': if (tl.sel >= 0) reveal(tl.sel, 'fit'); break;
        case '/': $('tl-search').focus(); break;
        case 'Escape': tl.marker = null; select(-1, false); clearHighlight(); break;
        default: done = false;
      }
      if (done) ev.preventDefault();
    });
  }

  /* ---------- what the other modules see ---------- */

  /* once, at init: the canvas and its scroller */
  function initTimeline() {
    tl.canvas = $('tl-canvas');
    tl.ctx = tl.canvas.getContext('2d');
    tl.scroll = $('tl-scroll');
    tl.spacer = $('tl-spacer');
  }
  /* A new run is shown (page.run): no selection, highlight or marker, the whole run. */
  function resetRun() {
    tl.canvas.setAttribute('aria-label', 'Timeline of ' + run.label + ': ' + run.n + ' slices on ' + run.rows.length + ' rows');
    tl.sel = -1; tl.hover = -1; tl.hl = null; tl.marker = null;
    $('tl-chip').hidden = true;
    tl.scroll.scrollTop = 0;
    layoutRows();
    var pad = (run.tMax - run.tMin) * 0.01;
    tl.t0 = run.tMin - pad; tl.t1 = run.tMax + pad;
    noteView();
    tl.ctx.font = '11px ' + FONT;
    tl.charW = tl.ctx.measureText('abcdefghijklmnopqrstuvwxyz_/0123456789').width / 38 || 6.2;
  }
  /* the first paint is synchronous, so the test hooks count what is on screen: the rects */
  function firstDraw() {
    if (tl.raf) { cancelAnimationFrame(tl.raf); tl.raf = 0; }
    return drawTimeline();
  }
  function selected() { return tl.sel; }
  /* where the highlight came from ('search', 'critical', 'table', ...), or undefined */
  function highlightSource() { return tl.hl ? tl.hl.source : undefined; }
  function view() { return { t0: tl.t0, t1: tl.t1 }; }
  function setMarker(t) { tl.marker = t; }

  return {
    initTimeline: initTimeline, bindTimeline: bindTimeline, resetRun: resetRun, firstDraw: firstDraw,
    sizeTimeline: sizeTimeline, redraw: redraw, setView: setView, fitRange: fitRange, reveal: reveal,
    select: select, selected: selected, setHighlight: setHighlight, clearHighlight: clearHighlight,
    highlightSource: highlightSource, showOnTimeline: showOnTimeline, view: view, setMarker: setMarker,
    niceStep: niceStep, tickLabel: tickLabel
  };
})();
