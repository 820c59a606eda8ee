var Memory = (function () {


  /* ---------- memory ---------- */

  var memCurves = [];

  function buildMemory() {
    var panel = $('panel-memory');
    panel.innerHTML = '';
    memCurves = [];
    var mems = run.memory;
    $('count-memory').textContent = mems.length ? '(' + mems.length + ')' : '';
    if (!mems.length) {
      panel.innerHTML = '<div class="card empty">This run has no memory records (no allocator curve to show).</div>';
      return 0;
    }
    mems.forEach(function (m) {
      var card = document.createElement('div');
      card.className = 'card';
      var peak = Number(m.peak_bytes) || 0, rep = m.reported_peak_bytes;
      var live = Array.isArray(m.live) ? m.live : [];
      var h = '<h2>' + esc(m.allocator || '(allocator)') + '</h2><div class="sub">' + esc(m.device || '') + '</div><div class="stats">' +
        '<div class="stat"><div class="k">Peak (from the trace)</div><div class="v">' + esc(fmtBytes(peak)) +
        ' <small>at ' + esc(fmtUs(Number(m.peak_us) || 0)) + '</small></div></div>';
      if (typeof rep === 'number') {
        var diff = peak ? (rep - peak) / peak * 100 : 0;
        h += '<div class="stat"><div class="k">Peak reported by the allocator</div><div class="v">' + esc(fmtBytes(rep)) +
          ' <small>' + (!peak ? '' : rep === peak ? 'same as the trace'
            : (diff >= 0 ? '+' : '') + diff.toFixed(Math.abs(diff) < 1 ? 2 : 1) + '% vs the trace') + '</small></div></div>';
      }
      h += '<div class="stat"><div class="k">Live at the peak</div><div class="v">' + fmtNum(live.length) +
        ' <small>' + (live.length === 1 ? 'buffer' : 'buffers') + '</small></div></div></div>';
      card.innerHTML = h;
      var cv = document.createElement('canvas');
      cv.className = 'memcv';
      card.appendChild(cv);
      var h3 = document.createElement('h3');
      h3.style.cssText = 'font-size:13px;margin:12px 0 2px';
      h3.textContent = 'Live at the peak';
      card.appendChild(h3);
      var tbox = document.createElement('div');
      card.appendChild(tbox);
      panel.appendChild(card);
      /* allocator events know the ops a block was allocated and freed in, not its readers */
      var blocks = m.from === 'allocator events';
      var tbl = {
        columns: ['tensor', 'bytes', 'held for', 'allocated at', 'freed at',
          blocks ? 'allocated in' : 'producer', blocks ? 'freed in' : 'last consumer'],
        units: ['', 'bytes', 'us', 'us', 'us', '', ''],
        rows: live.map(function (b) {
          var p = b.producer, c = b.last_consumer;
          var row = [String(b.tensor || ''), Number(b.bytes) || 0,
            Number(b.end_us) - Number(b.start_us), Number(b.start_us), Number(b.end_us),
            p >= 0 && p < run.n ? sliceName(run, p) : '\u2014',
            c >= 0 && c < run.n ? sliceName(run, c) : '\u2014'];
          row.buf = b;
          return row;
        })
      };
      Tables.makeTable(tbox, tbl, {
        limit: 2000,
        hint: blocks ? 'click a block to see the ops it was allocated and freed in on the timeline'
          : 'click a buffer to see its producer and last consumer on the timeline',
        onRow: function (row) { showBuffer(row.buf); }
      });
      var curve = { m: m, cv: cv };
      memCurves.push(curve);
      bindMemCurve(curve);
    });
    return mems.length;
  }

  function showBuffer(b) {
    var ids = [];
    if (b.producer >= 0 && b.producer < run.n) ids.push(b.producer);
    if (b.last_consumer >= 0 && b.last_consumer < run.n) ids.push(b.last_consumer);
    var a = Number(b.start_us), e = Number(b.end_us);
    Tabs.showTab('timeline');
    if (ids.length) {
      Timeline.setHighlight('buffer ' + (b.tensor || ''), ids, { source: 'buffer', path: ids.length === 2 });
      Timeline.select(ids[0], false);
      Timeline.reveal(ids[0], false);
      ids.forEach(function (i) { a = Math.min(a, run.start[i]); e = Math.max(e, run.end[i]); });
    }
    if (isFinite(a) && isFinite(e)) Timeline.fitRange(a, e);
  }

  function memGeom(curve) {
    var cv = curve.cv;
    var w = Math.max(100, cv.clientWidth), h = Math.max(80, cv.clientHeight);
    return { w: w, h: h, l: 70, r: 14, t: 24, b: 22 };
  }
  function drawMemory() {
    if (activeTab !== 'memory') return;
    memCurves.forEach(drawMemCurve);
  }
  function drawMemCurve(curve) {
    var cv = curve.cv, g = memGeom(curve);
    var dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(g.w * dpr); cv.height = Math.round(g.h * dpr);
    var ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.w, g.h);
    var s = memScale(curve, g);
    drawMemAxes(ctx, s);
    drawMemBand(ctx, s);
    if (s.n) drawMemSteps(ctx, s);
    if (s.rep !== null) drawMemReported(ctx, s);
    if (s.peak > 0) drawMemPeak(ctx, s);
    ctx.fillStyle = '#c9ced8';
    ctx.fillRect(g.l, g.t + s.PH, s.PW, 1);
    if (!s.n) {
      ctx.fillStyle = '#687083';
      ctx.textAlign = 'center';
      ctx.fillText('no allocation recorded', g.l + s.PW / 2, g.t + s.PH / 2);
      ctx.textAlign = 'left';
    }
  }
  /* The curve's scales: time across (the run's, widened to the samples), bytes up (to a
   * tenth over the most of the peak, the reported peak, the samples and the band). */
  function memScale(curve, g) {
    var m = curve.m;
    var ts = Array.isArray(m.t) ? m.t : [], bs = Array.isArray(m.bytes) ? m.bytes : [];
    var n = Math.min(ts.length, bs.length);
    var ta = run.tMin, tb = run.tMax;
    for (var q = 0; q < n; q++) { if (ts[q] < ta) ta = ts[q]; if (ts[q] > tb) tb = ts[q]; }
    var peak = Number(m.peak_bytes) || 0, rep = typeof m.reported_peak_bytes === 'number' ? m.reported_peak_bytes : null;
    var ymax = Math.max(peak, rep || 0, 1000);
    for (q = 0; q < n; q++) if (bs[q] > ymax) ymax = bs[q];
    if (m.band && Array.isArray(m.band.high))
      m.band.high.forEach(function (v) { if (Number(v) > ymax) ymax = Number(v); });
    ymax *= 1.1;
    var PW = g.w - g.l - g.r, PH = g.h - g.t - g.b;
    var X = function (t) { return g.l + (t - ta) / (tb - ta || 1) * PW; };
    var Y = function (b) { return g.t + PH - b / ymax * PH; };
    curve.ta = ta; curve.tb = tb; curve.X = X; curve.g = g; curve.n = n;
    return { m: m, g: g, ts: ts, bs: bs, n: n, ta: ta, tb: tb, peak: peak, rep: rep, ymax: ymax,
      PW: PW, PH: PH, X: X, Y: Y };
  }
  function drawMemAxes(ctx, s) {
    var g = s.g, PW = s.PW, PH = s.PH;
    ctx.font = '11px ' + FONT;
    ctx.textBaseline = 'middle';
    var ystep = niceBytesStep(s.ymax / 4);
    for (var vn = 0, v = 0; v <= s.ymax && vn < 100; v = ++vn * ystep) {
      var y = Math.round(s.Y(v)) + 0.5;
      ctx.fillStyle = '#eef0f4'; ctx.fillRect(g.l, y, PW, 1);
      ctx.fillStyle = '#687083'; ctx.textAlign = 'right';
      ctx.fillText(fmtBytes(v), g.l - 6, y);
    }
    ctx.textAlign = 'left';
    var tstep = Timeline.niceStep((s.tb - s.ta) / Math.max(1, PW / 110));
    var tz = Math.ceil(s.ta / tstep) * tstep;
    for (var tn = 0, t = tz; t <= s.tb && tn < 400; t = tz + ++tn * tstep) {
      var x = Math.round(s.X(t)) + 0.5;
      ctx.fillStyle = '#c9ced8'; ctx.fillRect(x, g.t + PH, 1, 4);
      ctx.fillStyle = '#687083'; ctx.fillText(Timeline.tickLabel(t, tstep), x + 2, g.h - 8);
    }
  }
  /* the band, where it has width: the least and most the allocator can have held */
  function drawMemBand(ctx, s) {
    var m = s.m, g = s.g, PW = s.PW, X = s.X, Y = s.Y, tb = s.tb, q;
    var band = m.band && typeof m.band === 'object' ? m.band : null;
    if (!(band && Array.isArray(band.t) && Array.isArray(band.low) && Array.isArray(band.high))) return;
    var bn = Math.min(band.t.length, band.low.length, band.high.length);
    var bx = function (k) { return clamp(X(k + 1 < bn ? band.t[k + 1] : tb), g.l, g.l + PW); };
    ctx.beginPath();
    for (q = 0; q < bn; q++) {
      var x0 = clamp(X(band.t[q]), g.l, g.l + PW), yh = Y(Number(band.high[q]) || 0);
      if (q === 0) ctx.moveTo(x0, yh); else ctx.lineTo(x0, yh);
      ctx.lineTo(bx(q), yh);
    }
    for (q = bn - 1; q >= 0; q--) {
      var yl = Y(Number(band.low[q]) || 0);
      ctx.lineTo(bx(q), yl);
      ctx.lineTo(clamp(X(band.t[q]), g.l, g.l + PW), yl);
    }
    ctx.closePath();
    ctx.fillStyle = 'rgba(120,128,145,0.28)';
    ctx.fill();
  }
  /* step curve, one column per pixel (max inside a column) */
  function drawMemSteps(ctx, s) {
    var g = s.g, PW = s.PW, X = s.X, Y = s.Y, ts = s.ts, bs = s.bs, n = s.n, q, c;
    var cols = Math.ceil(PW) + 2;
    var cmax = new Float64Array(cols).fill(-1), clast = new Float64Array(cols);
    for (q = 0; q < n; q++) {
      c = clamp(Math.floor(X(ts[q]) - g.l), 0, cols - 1);
      var bv = Number(bs[q]) || 0;
      if (bv > cmax[c]) cmax[c] = bv;
      clast[c] = bv;
    }
    ctx.beginPath();
    var cur = 0, first = clamp(Math.floor(X(ts[0]) - g.l), 0, cols - 1);
    ctx.moveTo(g.l + first, Y(0));
    for (c = first; c < cols; c++) {
      if (cmax[c] < 0) continue;
      ctx.lineTo(g.l + c, Y(cur));
      ctx.lineTo(g.l + c, Y(cmax[c]));
      ctx.lineTo(g.l + c + 1, Y(cmax[c]));
      ctx.lineTo(g.l + c + 1, Y(clast[c]));
      cur = clast[c];
    }
    var xe = Math.min(g.l + PW, X(s.tb));
    ctx.lineTo(xe, Y(cur));
    ctx.strokeStyle = '#2f62d6'; ctx.lineWidth = 1.25;
    ctx.stroke();
    ctx.lineTo(xe, Y(0));
    ctx.closePath();
    ctx.fillStyle = 'rgba(47,98,214,0.13)';
    ctx.fill();
  }
  /* the allocator's own peak */
  function drawMemReported(ctx, s) {
    var g = s.g, PW = s.PW, m = s.m, rep = s.rep;
    var y = Math.round(s.Y(rep)) + 0.5;
    ctx.strokeStyle = '#8a93a6'; ctx.setLineDash([5, 4]); ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(g.l, y); ctx.lineTo(g.l + PW, y); ctx.stroke(); ctx.setLineDash([]);
    /* at the end away from our peak's label, which sits beside the peak */
    var repLeft = s.peak > 0 && s.X(Number(m.peak_us) || 0) > g.l + PW / 2;
    ctx.fillStyle = '#5b6275'; ctx.textAlign = repLeft ? 'left' : 'right';
    ctx.fillText('reported ' + fmtBytes(rep), repLeft ? g.l + 4 : g.l + PW - 4, y - 8);
    ctx.textAlign = 'left';
  }
  /* our peak */
  function drawMemPeak(ctx, s) {
    var g = s.g, PW = s.PW, m = s.m, peak = s.peak;
    var px = s.X(Number(m.peak_us) || 0), py = s.Y(peak);
    ctx.strokeStyle = '#d6336c'; ctx.setLineDash([3, 3]); ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(px, py); ctx.lineTo(px, g.t + s.PH); ctx.stroke(); ctx.setLineDash([]);
    ctx.fillStyle = '#d6336c';
    ctx.beginPath(); ctx.arc(px, py, 4, 0, 2 * Math.PI); ctx.fill();
    var label = 'peak ' + fmtBytes(peak) + ' at ' + fmtUs(Number(m.peak_us) || 0);
    ctx.font = '600 11px ' + FONT;
    var lw = ctx.measureText(label).width;
    var right = px + 8 + lw > g.l + PW;
    var lx = right ? px - 8 - lw : px + 8, ly = Math.max(8, py - 11);
    ctx.fillStyle = 'rgba(255,255,255,0.85)';
    ctx.fillRect(lx - 3, ly - 7, lw + 6, 14);
    ctx.fillStyle = '#d6336c';
    ctx.fillText(label, lx, ly);
  }
  /* a step of 1, 2 or 5 times a power of ten bytes, as the decimal units print them */
  function niceBytesStep(raw) {
    if (raw <= 1) return 1;
    return Timeline.niceStep(raw);
  }
  function memAt(m, t) {
    var ts = m.t, a = 0, b = Math.min(ts.length, m.bytes.length);
    while (a < b) { var q = (a + b) >> 1; if (ts[q] <= t) a = q + 1; else b = q; }
    return a > 0 ? Number(m.bytes[a - 1]) || 0 : 0;
  }
  function bindMemCurve(curve) {
    var cv = curve.cv;
    function tAt(ev) {
      var b = cv.getBoundingClientRect(), g = curve.g;
      if (!g) return null;
      var x = ev.clientX - b.left;
      if (x < g.l || x > g.w - g.r) return null;
      return curve.ta + (x - g.l) / (g.w - g.l - g.r) * (curve.tb - curve.ta);
    }
    cv.addEventListener('mousemove', function (ev) {
      var t = tAt(ev);
      if (t === null || !Array.isArray(curve.m.t)) { showTip(ev, null); return; }
      showTip(ev, '<b>' + esc(fmtBytes(memAt(curve.m, t))) + '</b> live<br><span class="m">at ' + esc(fmtUs(t)) + ' \u00b7 click: timeline here</span>');
    });
    cv.addEventListener('mouseleave', function () { $('tip').hidden = true; });
    cv.addEventListener('click', function (ev) {
      var t = tAt(ev);
      if (t === null) return;
      $('tip').hidden = true;
      Timeline.setMarker(t);
      Tabs.showTab('timeline');
      var v = Timeline.view(), span = Math.min(v.t1 - v.t0, (run.tMax - run.tMin) / 10);
      Timeline.setView(t - span / 2, t + span / 2);
    });
  }


  return { buildMemory: buildMemory, drawMemory: drawMemory };
})();
