/* The page's units, one copy for all its scripts (the step table's, the graph view's and the
 * main one): emit/report_page.c writes it before them, at the template's format marker.
 * Times as the page writes them (three significant digits, ns, \u00b5s, ms, s); bytes as the
 * tools do (base/bytes.c, tl_bytes_format); trace-report.test holds fmtBytes to the
 * library's formatter. */
var TftraceFormat = (function () {
  'use strict';

  var MU = '\u00b5';

  function sig3(x) {
    var a = Math.abs(x);
    if (a >= 99.95) return x.toFixed(0);
    if (a >= 9.995) return x.toFixed(1);
    return x.toFixed(2);
  }
  function fmtUs(us) {
    if (typeof us !== 'number' || !isFinite(us)) return String(us);
    var a = Math.abs(us);
    if (a === 0) return '0 ' + MU + 's';
    if (a < 0.9995) return sig3(us * 1000) + ' ns';
    if (a < 999.5) return sig3(us) + ' ' + MU + 's';
    if (a < 999500) return sig3(us / 1000) + ' ms';
    return sig3(us / 1e6) + ' s';
  }
  /* printf's "%.Nf": JS's toFixed, but a tie (the double exactly halfway, as 1.125 to two
   * decimals) goes to the even digit as glibc's printf rounds it, where toFixed goes up;
   * and -0 keeps its sign.  The double's exact digits come from toFixed(60): a value of
   * 1 or more (all this formats) has at most 52 binary, so decimal, fraction digits. */
  function fixedC(x, n) {
    var neg = x < 0 || (x === 0 && 1 / x < 0), a = Math.abs(x);
    var s = a.toFixed(n);
    if (a < 1e21) {
      var exact = a.toFixed(60), dot = exact.indexOf('.');
      if (/^50*$/.test(exact.slice(dot + 1 + n))) {
        var down = exact.slice(0, n ? dot + 1 + n : dot);
        if (+down.charAt(down.length - 1) % 2 === 0) s = down;
      }
    }
    return (neg ? '-' : '') + s;
  }
  /* The tools' byte units (base/bytes.c, tl_bytes_format: tfprof's FormatMemory): decimal,
   * 1 KB = 1000 B, two decimals, no space: "512B", "1.20KB", "12.35MB", "3.00GB". */
  var BYTE_UNITS = [[1e9, 'GB'], [1e6, 'MB'], [1e3, 'KB']];
  function fmtBytes(b) {
    if (typeof b !== 'number' || !isFinite(b)) return String(b);
    var a = Math.abs(b);
    for (var u = 0; u < BYTE_UNITS.length; u++)
      if (a >= BYTE_UNITS[u][0]) return fixedC(b / BYTE_UNITS[u][0], 2) + BYTE_UNITS[u][1];
    return fixedC(b, 0) + 'B';
  }

  return { MU: MU, fmtUs: fmtUs, fmtBytes: fmtBytes };
})();
