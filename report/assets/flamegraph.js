// The report page's flamegraphs: a case's call tree as an icicle, and
// against a baseline's tree as a differential one, with the table of the
// functions whose own instructions changed most. report.js calls
// icountFlamegraphs(DATA.functions) once and draws with what it returns.
window.icountFlamegraphs = function (FUNCTIONS) {
  'use strict';

  const { el, fmtCount, keyText, objectName, shortName, hashHue, addChart } = window.icountPage;
  // What matches a frame to the baseline's: its function and the name of
  // its object, not the object's directory (another build, a virtual
  // environment, a release that keeps libc in /usr/lib, not /lib).
  function identity(fn) {
    return keyText({ file: fn.file, function: fn.function, recursion: fn.recursion, object: objectName(fn) });
  }
  const IDENTITIES = FUNCTIONS.map(identity);  // by function index

  // Lays a tree out as an icicle: one bar per node, x from the node's start
  // to its end in instructions, y its depth; `path` is the node's call path
  // by function identity, what a baseline's frame must share to match.
  function layout(tree) {
    const n = tree.parent.length;
    const start = new Array(n), depth = new Array(n), next = new Array(n);
    const path = new Array(n);
    for (let i = 0; i < n; i++) {
      const p = tree.parent[i];
      const self = IDENTITIES[tree.function[i]];
      if (p < 0) { start[i] = 0; depth[i] = 0; path[i] = self; }
      else {
        // Children follow their parent in pre-order, most expensive first.
        if (next[p] === undefined) next[p] = start[p];  // the first child starts where its parent does
        start[i] = next[p];
        next[p] += tree.inclusive[i];
        depth[i] = depth[p] + 1;
        path[i] = path[p] + '\n' + self;
      }
    }
    return { start, depth, path };
  }

  // Draws the case's call tree; with a baseline tree, colours by change.
  function drawFlame(container, c, perRun) {
    const tree = c.tree;
    const base = c.baseline_tree || null;
    const { start, depth, path } = layout(tree);
    // Colours follow the change of each call's own instructions (self), as
    // differential flamegraphs do: the frames that did more work are red,
    // not every caller above them. Callgrind records who called whom, not
    // every path, so a function's cost is shared out among its callers in
    // proportion (timer/call_tree.h), and that share moves when something
    // below it changes cost: a frame is coloured only when its function's
    // own instructions, over the whole tree, changed the same way.
    let before = null, maxDelta = 0;
    const functionDelta = new Map();
    if (base) {
      const bl = layout(base);
      before = new Map();
      for (let i = 0; i < base.parent.length; i++) before.set(bl.path[i], { inclusive: base.inclusive[i], self: base.self[i] });
      if (c.function_delta_unknown) {
        // Results that list no functions: the sum of the tree's shares.
        const addSelf = (t, sign) => t.function.forEach((f, i) =>
          functionDelta.set(IDENTITIES[f], (functionDelta.get(IDENTITIES[f]) || 0) + sign * t.self[i]));
        addSelf(tree, 1);
        addSelf(base, -1);
      } else {
        // The profile's own instructions of each function (exact).
        const exact = c.function_delta || {};
        for (const f of new Set(tree.function)) functionDelta.set(IDENTITIES[f], exact[f] || 0);
      }
    }
    const points = [];
    for (let i = 0; i < tree.parent.length; i++) {
      const b = before ? (before.get(path[i]) || { inclusive: 0, self: 0 }) : null;
      const delta = before ? tree.self[i] - b.self : 0;
      if (before) maxDelta = Math.max(maxDelta, Math.abs(delta));
      points.push({ x: [start[i], start[i] + tree.inclusive[i]], y: String(depth[i]), node: i, before: b, delta: delta,
        functionDelta: before ? functionDelta.get(IDENTITIES[tree.function[i]]) : 0,
        name: keyText(FUNCTIONS[tree.function[i]]), label: shortName(FUNCTIONS[tree.function[i]]) });
    }
    const levels = Math.max(...depth) + 1;
    const canvas = el('canvas');
    const box = el('div', { class: 'chart-box flame', style: 'height:' + (40 + levels * 18) + 'px' }, canvas);
    const reset = el('button', { text: 'Reset zoom' });
    container.append(el('div', { class: 'flame-note' }, [
      before ? 'Differential icicle: widths are this run\'s instructions; red where a call\'s own instructions grew against the baseline, blue where they shrank (darker: more), grey where they moved by less than 1 instruction a run or 1% of the largest change, or where its function\'s own instructions over the whole tree did not move the same way. '
        : 'Icicle: the measured region on top, each call below its caller, width = instructions. ',
      'Click a bar to zoom into it. ', reset]), box);
    const color = p => {
      if (!before) return 'hsl(' + hashHue(p.name) + ',80%,' + (58 + (p.node % 3) * 4) + '%)';
      // Changes under 1 instruction a run, or 1% of the largest, stay grey:
      // a real change stands out from addresses shifting by a byte.
      const least = Math.max(perRun, maxDelta / 100);
      if (Math.abs(p.delta) < least || Math.abs(p.functionDelta) < least || (p.delta > 0) !== (p.functionDelta > 0)) return '#c8cdd3';
      const strength = 0.3 + 0.7 * Math.min(1, Math.abs(p.delta) / maxDelta);
      return p.delta > 0 ? 'rgba(192,57,43,' + strength + ')' : 'rgba(46,111,183,' + strength + ')';
    };
    const total = tree.inclusive[0];
    const labels = {
      id: 'flameLabels',
      afterDatasetsDraw(chart) {
        const ctx = chart.ctx;
        const meta = chart.getDatasetMeta(0);
        ctx.save();
        ctx.font = '11px system-ui, sans-serif';
        ctx.fillStyle = '#111';
        ctx.textBaseline = 'middle';
        const area = chart.chartArea;
        meta.data.forEach((bar, i) => {
          const left = Math.max(Math.min(bar.base, bar.x), area.left), right = Math.min(Math.max(bar.base, bar.x), area.right);
          const width = right - left;
          if (width < 30) return;
          let text = points[i].label;
          const room = Math.floor((width - 6) / 6);
          if (text.length > room) text = text.slice(0, Math.max(0, room - 1)) + '\u2026';
          ctx.fillText(text, left + 3, bar.y);
        });
        ctx.restore();
      },
    };
    const chart = addChart(canvas, {
      type: 'bar',
      data: { labels: [...Array(levels).keys()].map(String), datasets: [{
        label: 'calls', data: points, backgroundColor: points.map(color), borderColor: '#ffffff', borderWidth: 0.5,
        grouped: false, barPercentage: 1, categoryPercentage: 0.95 }] },
      options: {
        indexAxis: 'y',
        parsing: { xAxisKey: 'x', yAxisKey: 'y' },
        scales: { x: { min: 0, max: total, ticks: { callback: v => fmtCount(v / perRun) } }, y: { display: false } },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: {
            title: items => points[items[0].dataIndex].name,
            label: item => {
              const p = points[item.dataIndex];
              const lines = ['inclusive ' + fmtCount(tree.inclusive[p.node] / perRun) + ' instr/run (' +
                (tree.inclusive[p.node] / total * 100).toFixed(1) + '%), self ' + fmtCount(tree.self[p.node] / perRun)];
              if (before) {
                const grew = tree.inclusive[p.node] - p.before.inclusive;
                lines.push('baseline inclusive ' + fmtCount(p.before.inclusive / perRun) + ' (' + (grew >= 0 ? '+' : '') + fmtCount(grew / perRun) + ')');
                lines.push('baseline self ' + fmtCount(p.before.self / perRun) + ' (' + (p.delta >= 0 ? '+' : '') + fmtCount(p.delta / perRun) + ')');
                lines.push('the function\'s self over the tree ' + (p.functionDelta >= 0 ? '+' : '') + fmtCount(p.functionDelta / perRun));
              }
              return lines;
            } } },
        },
        onClick: (event, elements) => {
          if (!elements.length) return;
          const p = points[elements[0].index];
          chart.options.scales.x.min = p.x[0];
          chart.options.scales.x.max = p.x[1];
          chart.update();
        },
      },
      plugins: [labels],
    });
    reset.addEventListener('click', () => { chart.options.scales.x.min = 0; chart.options.scales.x.max = total; chart.update(); });
    chart.icountFlame = { points: points, differential: !!before, parent: tree.parent, key: c.key };
    return chart;
  }

  // Calls whose inclusive cost changed most, by path: the table beside a
  // differential flamegraph.
  function topChanges(c, perRun) {
    const t = layout(c.tree), b = layout(c.baseline_tree);
    const now = new Map(), was = new Map(), key = new Map();
    for (let i = 0; i < c.tree.parent.length; i++) now.set(t.path[i], c.tree.self[i]);
    for (let i = 0; i < c.baseline_tree.parent.length; i++) was.set(b.path[i], c.baseline_tree.self[i]);
    for (const tree of [c.baseline_tree, c.tree]) {
      for (const f of tree.function) key.set(IDENTITIES[f], FUNCTIONS[f]);
    }
    const byFunction = new Map();
    for (const p of new Set([...now.keys(), ...was.keys()])) {
      const f = p.slice(p.lastIndexOf('\n') + 1);
      byFunction.set(f, (byFunction.get(f) || 0) + (now.get(p) || 0) - (was.get(p) || 0));
    }
    const rows = [...byFunction.entries()].filter(([, d]) => d !== 0).sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])).slice(0, 8);
    if (!rows.length) return el('p', { class: 'muted', text: 'No function\'s own instructions changed beyond the tree\'s threshold.' });
    return el('table', { class: 'suite changes' }, [el('thead', {}, el('tr', {}, [el('th', { text: 'function (self instructions)' }), el('th', { class: 'num', text: '\u0394 instr/run' })])),
      el('tbody', {}, rows.map(([f, d]) => el('tr', {}, [el('td', { text: shortName(key.get(f)), title: keyText(key.get(f)) }),
        el('td', { class: 'num ' + (d > 0 ? 'grew' : 'shrank'), text: (d > 0 ? '+' : '') + fmtCount(d / perRun) })])))]);
  }

  return { drawFlame, topChanges };
};
