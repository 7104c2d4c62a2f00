// The report page's helpers (report/assets/report.js and flamegraph.js use
// them): DOM building, number formats, function names, and charts drawn when
// they scroll into view. Every chart drawn is in `charts`.
window.icountPage = (function () {
  'use strict';

  const charts = [];
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') node.textContent = v;
      else if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of [].concat(children || [])) {
      if (c !== null && c !== undefined) node.append(c);
    }
    return node;
  }
  function fmtCount(n) {
    if (n === null || n === undefined) return '';
    return n.toLocaleString('en-US', { maximumFractionDigits: Math.abs(n) < 100 ? 2 : 1 });
  }
  // Heap allocations per run: whole numbers plain, others to two decimals.
  function fmtAllocations(n) {
    if (n === null || n === undefined) return '';
    return String(Number(n.toFixed(2)));
  }
  // Seconds with a unit, to `digits` significant figures.
  function fmtTime(s, digits) {
    if (s === null || s === undefined) return '';
    const units = [[1, 's'], [1e-3, 'ms'], [1e-6, 'us'], [1e-9, 'ns']];
    for (const [scale, unit] of units) {
      if (s >= scale || unit === 'ns') return Number((s / scale).toPrecision(digits || 3)) + ' ' + unit;
    }
    return String(s);
  }
  function fmtSigned(p) {
    return (p > 0 ? '+' : '') + p.toFixed(1);
  }
  function fmtPct(p, digits) {
    if (p === null || p === undefined) return '';
    return (p > 0 ? '+' : '') + p.toFixed(digits === undefined ? 1 : digits) + '%';
  }
  // A function (the data's functions: its key's file, function, object and
  // recursion level) as callgrind_annotate writes it: "file:function'2 [object]".
  function keyText(fn) {
    return fn.file + ':' + fn.function + (fn.recursion > 1 ? "'" + fn.recursion : '') +
      (fn.object ? ' [' + fn.object + ']' : '');
  }
  // "libc.so.6" for "/lib/libc.so.6".
  function objectName(fn) {
    return fn.object.slice(fn.object.lastIndexOf('/') + 1);
  }
  // The function without its argument list.
  function shortName(fn) {
    // A function without a symbol (Debian's LibTorch keeps only exported
    // ones) is named by its offset in its object: "libtorch_cpu.so.1.13+0x339aee0",
    // as perf and gdb write it, so `addr2line -e` with debug symbols finds it.
    const address = fn.function.match(/^0x0*([0-9a-f]+)$/);
    if (address) return fn.object ? objectName(fn) + '+0x' + address[1] : '0x' + address[1];
    const name = fn.function;
    let depth = 0, cut = -1;
    for (let i = 0; i < name.length; i++) {
      if (name[i] === '<') depth++;
      else if (name[i] === '>') depth--;
      else if (name[i] === '(' && depth === 0 && i > 0) { cut = i; break; }
    }
    return cut > 0 ? name.slice(0, cut) + '(...)' : name;
  }
  function hashHue(text) {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
    return Math.abs(h) % 60;  // warm hues, as flamegraphs are drawn
  }
  const COLUMN_COLORS = ['#2f6fb3', '#e07b39', '#3a9d5d', '#8e5bb5', '#c94f6d', '#6b7d8c', '#b59b2f'];
  function timeSpread(t) {
    return t && t.median > 0 ? (t.p75 - t.p25) / t.median * 100 : null;
  }
  // Draws charts only when they scroll into view: a suite of thousands of
  // cases stays responsive.
  const lazy = new IntersectionObserver(entries => {
    for (const e of entries) {
      if (e.isIntersecting && e.target.icountDraw) {
        const draw = e.target.icountDraw;
        e.target.icountDraw = null;
        lazy.unobserve(e.target);
        draw();
      }
    }
  }, { rootMargin: '200px' });
  function lazyChart(box, draw) {
    box.icountDraw = draw;
    lazy.observe(box);
  }
  function addChart(canvas, config) {
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options);
    const chart = new Chart(canvas.getContext('2d'), config);
    charts.push(chart);
    return chart;
  }

  return {
    el, fmtCount, fmtAllocations, fmtTime, fmtSigned, fmtPct, keyText, objectName, shortName, hashHue,
    COLUMN_COLORS, timeSpread, lazyChart, addChart, charts,
  };
})();
