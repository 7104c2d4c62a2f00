// icount's report page: renders the data //report computed (ReportDataJson,
// report/report_data.h) with Chart.js. Every number shown comes from that
// data; this script only lays it out, sorts, filters and draws. The data is
// a ReportDataProto (report/report_data.proto) in proto's JSON with every
// list and number printed: a member with presence (a message, an
// `optional` figure) is absent where there is nothing to show, so tests
// for it read `== null`.
//
// window.icountReport exposes the data and the charts drawn so far, and
// document.body.dataset.ready is "1" once the page is rendered (the browser
// test reads both).
(function () {
  'use strict';

  const {
    el, fmtCount, fmtAllocations, fmtTime, fmtSigned, fmtPct, COLUMN_COLORS, timeSpread, lazyChart, addChart, charts,
  } = window.icountPage;
  const DATA = JSON.parse(document.getElementById('icount-data').textContent);
  const { drawFlame, topChanges } = window.icountFlamegraphs(DATA.functions);
  const COMPARING = DATA.kind === 'comparison';
  window.icountReport = { data: DATA, charts: charts };

  // ---------------------------------------------------------------- summary
  function runCard(run, heading) {
    const rows = [
      ['name', run.name], ['machine', run.machine], ['nodes', (run.nodes || []).join('; ')],
      ['started', run.start], ['ended', run.end],
      ['duration', run.duration_s == null ? '' : run.duration_s + ' s'],
      ['cases counted', String(run.counted_cases)], ['wall-time measurements', String(run.measurements)],
      ['failures', String(Object.keys(run.failures).length)],
      ['versions', Object.entries(run.versions).map(([k, v]) => k + ' ' + v).join(', ')],
    ];
    for (const [k, v] of Object.entries(run.settings)) rows.push([k, v]);
    if (run.command) rows.push(['command', run.command]);
    const dl = el('dl');
    for (const [k, v] of rows) {
      if (!v) continue;
      dl.append(el('dt', { text: k }), el('dd', { text: v }));
    }
    return el('div', { class: 'card' }, [el('h3', { text: heading }), dl]);
  }

  function renderSummary(root) {
    const current = DATA.summary.current;
    root.append(el('h1', { text: DATA.title || 'icount report' }));
    root.append(el('div', { class: 'muted', text: (COMPARING ? 'Comparison' : 'Run') +
      ' report generated ' + DATA.generated + ' by icount report ' + DATA.report_version }));
    const counted = DATA.cases.filter(c => c.counts).length;
    const timed = DATA.cases.filter(c => c.time).length;
    const failed = Object.keys(current.failures).length;
    const figures = el('div', { class: 'figures', id: 'figures' }, [
      el('div', { class: 'figure' }, [el('b', { text: String(DATA.cases.length) }), 'cases']),
      el('div', { class: 'figure' }, [el('b', { text: String(counted) }), 'with instruction counts']),
      el('div', { class: 'figure' }, [el('b', { text: String(timed) }), 'with wall time']),
      el('div', { class: 'figure' }, [el('b', { text: String(failed) }), 'failed']),
    ]);
    if (COMPARING) {
      const changed = DATA.cases.filter(c => c.delta && c.delta.counts_delta_pct).length;
      const slower = DATA.cases.filter(c => c.delta && c.delta.time_verdict === 'slower').length;
      figures.append(el('div', { class: 'figure' }, [el('b', { text: String(changed) }), 'counts changed']));
      figures.append(el('div', { class: 'figure' }, [el('b', { text: String(slower) }), 'significantly slower']));
    }
    root.append(figures);
    if (DATA.overall) {
      root.append(el('div', { class: 'overall', id: 'overall' }, [
        el('div', { text: 'Overall, this run against the baseline (geometric mean over cases, 95% interval):' }),
        el('ul', {}, DATA.overall.lines.map(line => el('li', { text: line })))]));
    }
    for (const why of DATA.missing) root.append(el('div', { class: 'notice missing', text: 'Not shown: ' + why }));
    for (const why of DATA.node_warnings || []) root.append(el('div', { class: 'notice node-warning', text: 'Warning: ' + why }));
    const cards = el('div', { class: 'cards' }, [runCard(current, COMPARING ? 'This run (' + current.name + ')' : 'Run')]);
    if (DATA.summary.baseline) cards.append(runCard(DATA.summary.baseline, 'Baseline (' + DATA.summary.baseline.name + ')'));
    root.append(cards);
    if (failed) {
      const list = el('ul', { class: 'failures', id: 'failures' });
      for (const [key, reason] of Object.entries(current.failures)) {
        const [first, ...rest] = reason.split('\n');
        list.append(el('li', {}, [el('b', { text: key }), ': ' + first, el('pre', { text: rest.join('\n') })]));
      }
      root.append(el('h2', { text: failed + ' failed case' + (failed > 1 ? 's' : '') }), list);
    }
    const u = DATA.unmatched;
    if (u.only_current.length || u.only_baseline.length) {
      const box = el('div', { class: 'notice', id: 'unmatched' });
      if (u.only_current.length) box.append(el('div', { text: u.only_current.length + ' case(s) only in this run: ' + u.only_current.join(', ') }));
      if (u.only_baseline.length) box.append(el('div', { text: u.only_baseline.length + ' case(s) only in the baseline: ' + u.only_baseline.join(', ') }));
      root.append(box);
    }
  }

  // ------------------------------------------------------------------ table
  // Each column: header, value for sorting, cell text, class.
  function tableColumns() {
    const cols = [
      // Names wrap (wrap: true), so that the change columns stay in view
      // at 1400 px.
      { id: 'group', title: 'Group', value: c => c.group, wrap: true },
      { id: 'case', title: 'Case', value: c => c.row, wrap: true },
      { id: 'variant', title: 'Variant', value: c => c.column, wrap: true },
      { id: 'threads', title: 'Threads', value: c => c.threads, num: true },
      { id: 'counts', title: 'Instr / run', value: c => c.counts ? c.counts.per_run : null, text: v => fmtCount(v), num: true },
      { id: 'allocations', title: 'Allocs / run', value: c => c.counts ? c.counts.allocations_per_run : null,
        text: v => v == null ? '' : fmtAllocations(v), num: true },
      { id: 'repeats', title: 'Repeats', value: c => c.counts ? c.counts.repeats.length : null,
        text: (v, c) => c.counts ? v + (c.counts.repeats_identical ? ' identical' : ' DIFFER') : '', num: true },
      { id: 'time', title: 'Time / run', value: c => c.time ? c.time.median : null,
        text: (v, c) => c.time ? fmtTime(v, Math.max(2, c.time.significant_figures)) : '', num: true },
      { id: 'spread', title: 'IQR', value: c => timeSpread(c.time),
        text: v => v == null ? '' : '\u00b1' + (v / 2).toFixed(1) + '%', num: true },
    ];
    if (DATA.history_runs.length) {
      cols.push({ id: 'history', title: 'History', value: c => c.history ? historySeries(c).steps.length : null, spark: true });
    }
    if (COMPARING) {
      cols.push({ id: 'base_counts', title: 'Baseline instr', value: c => c.baseline && c.baseline.counts ? c.baseline.counts.per_run : null, text: v => fmtCount(v), num: true });
      cols.push({ id: 'counts_delta', title: '\u0394 instr', value: c => c.delta ? c.delta.counts_delta_pct : null,
        text: v => v == null ? '' : fmtPct(v, 2), cls: v => v > 0 ? 'grew' : v < 0 ? 'shrank' : '', num: true });
      cols.push({ id: 'allocations_delta', title: '\u0394 allocs', value: c => c.delta ? c.delta.allocations_delta : null,
        text: v => v == null ? '' : (v > 0 ? '+' : '') + fmtAllocations(v), cls: v => v > 0 ? 'grew' : v < 0 ? 'shrank' : '', num: true });
      cols.push({ id: 'time_delta', title: '\u0394 time [95% CI]', value: c => c.delta ? c.delta.time_delta_pct : null,
        text: (v, c) => timeDeltaText(c), cls: (v, c) => timeDeltaClass(c), num: true, wrap: true });
    }
    return cols;
  }
  function timeDeltaText(c) {
    const d = c.delta;
    if (!d || d.time_verdict == null) return '';
    if (d.time_delta_pct == null) return d.time_verdict + (d.time_problem ? ': ' + d.time_problem : '');
    return fmtPct(d.time_delta_pct) + ' [' + fmtSigned(d.time_ci_pct[0]) + ', ' + fmtSigned(d.time_ci_pct[1]) + ']' +
      (d.time_significant ? ' *' : '');
  }
  function timeDeltaClass(c) {
    const d = c.delta;
    if (!d || !d.time_significant) return '';
    return 'sig ' + (d.time_delta_pct > 0 ? 'grew' : 'shrank');
  }

  function renderTable(root, onSelect) {
    const cols = tableColumns();
    root.append(el('h2', { text: 'Cases' }));
    if (COMPARING) {
      root.append(el('div', { class: 'muted', text: '\u0394 instr: change of instructions per run against the baseline. ' +
        '\u0394 time: change of wall time with its 95% confidence interval; * marks a change that is significant ' +
        'after the Benjamini-Hochberg correction over all cases (and at least 1%). Red: grew, blue: shrank.' }));
    }
    const search = el('input', { type: 'search', id: 'filter', placeholder: 'Filter: text or /regex/ on group, case, variant' });
    const selects = {};
    const controls = el('div', { class: 'controls' }, [search]);
    for (const [field, label] of [['language', 'Language'], ['runtime', 'Runtime'], ['autograd', 'Autograd']]) {
      const values = [...new Set(DATA.cases.map(c => c[field]).filter(v => v))].sort();
      if (values.length < 2) continue;
      const select = el('select', { id: 'filter-' + field }, [el('option', { value: '', text: label + ': all' })]
        .concat(values.map(v => el('option', { value: v, text: v }))));
      selects[field] = select;
      controls.append(select);
    }
    const shown = el('span', { class: 'muted', id: 'shown' });
    controls.append(shown);
    root.append(controls);

    const headRow = el('tr');
    const table = el('table', { class: 'suite', id: 'suite' }, [el('thead', {}, headRow)]);
    const body = el('tbody');
    table.append(body);
    root.append(el('div', { class: 'table-wrap' }, table));

    const rows = DATA.cases.map((c, index) => {
      const tr = el('tr', { 'data-key': c.key });
      for (const col of cols) {
        if (col.spark) {
          tr.append(el('td', { 'data-col': col.id }, c.history ? sparkline(c) : null));
          continue;
        }
        const v = col.value(c);
        const text = col.text ? col.text(v, c) : (v === null || v === undefined ? '' : String(v));
        const cls = (col.num ? 'num ' : '') + (col.wrap ? 'wrap ' : '') + (col.cls ? col.cls(v, c) : '');
        tr.append(el('td', { class: cls.trim(), text: text, 'data-col': col.id }));
      }
      tr.addEventListener('click', () => onSelect(c, tr));
      return { c: c, tr: tr, index: index, haystack: (c.group + ' / ' + c.row + ' [' + c.column + ']').toLowerCase() };
    });

    let sortCol = null, sortDir = 1;
    cols.forEach(col => {
      const th = el('th', { class: col.num ? 'num' : '', text: col.title, 'data-col': col.id });
      th.addEventListener('click', () => {
        sortDir = sortCol === col ? -sortDir : (col.num ? -1 : 1);
        sortCol = col;
        headRow.querySelectorAll('th').forEach(h => h.removeAttribute('aria-sort'));
        th.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
        apply();
      });
      headRow.append(th);
    });

    function matcher() {
      const text = search.value.trim();
      if (!text) return () => true;
      const re = text.length > 2 && text.startsWith('/') && text.endsWith('/') ? (() => {
        try { return new RegExp(text.slice(1, -1), 'i'); } catch (e) { return null; }
      })() : null;
      if (re) return r => re.test(r.haystack);
      const needle = text.toLowerCase();
      return r => r.haystack.includes(needle);
    }
    function apply() {
      const match = matcher();
      const picked = Object.entries(selects).map(([f, s]) => [f, s.value]).filter(([, v]) => v);
      const visible = rows.filter(r => match(r) && picked.every(([f, v]) => r.c[f] === v));
      if (sortCol) {
        visible.sort((a, b) => {
          const x = sortCol.value(a.c), y = sortCol.value(b.c);
          if (x === y) return a.index - b.index;
          if (x === null || x === undefined) return 1;  // empty cells last either way
          if (y === null || y === undefined) return -1;
          return (x < y ? -1 : 1) * sortDir;
        });
      }
      const fragment = document.createDocumentFragment();
      for (const r of visible) fragment.append(r.tr);
      body.replaceChildren(fragment);
      shown.textContent = visible.length + ' of ' + rows.length + ' cases shown';
    }
    search.addEventListener('input', apply);
    Object.values(selects).forEach(s => s.addEventListener('change', apply));
    apply();
  }

  // A case's series in the store: counts when it has them, else wall time.
  function historySeries(c) {
    return c.history.counts || c.history.time;
  }
  // The History column: a small line of the case's series, change points
  // in red, drawn when the row scrolls into view.
  function sparkline(c) {
    const s = historySeries(c);
    const steps = new Set(s.steps.map(x => x.index));
    const canvas = el('canvas');
    const box = el('div', { class: 'chart-box spark', title: s.value.length + ' runs, ' + s.steps.length +
      ' change point(s)' + (c.history.counts ? ' in instructions' : ' in wall time') }, canvas);
    lazyChart(box, () => addChart(canvas, {
      type: 'line',
      data: { labels: s.run.map(String), datasets: [{ data: s.value, borderColor: '#2f6fb3', borderWidth: 1.5, tension: 0,
        pointRadius: s.value.map((v, i) => steps.has(i) ? 3 : 0), pointBackgroundColor: '#c0392b', pointBorderColor: '#c0392b' }] },
      options: { events: [], plugins: { legend: { display: false }, tooltip: { enabled: false } },
        scales: { x: { display: false }, y: { display: false } } },
    }));
    return box;
  }

  // ------------------------------------------------------- per-group charts
  function renderGroups(root) {
    const hasCounts = DATA.cases.some(c => c.counts);
    const hasTime = DATA.cases.some(c => c.time);
    if (!hasCounts && !hasTime) return;
    root.append(el('h2', { text: 'Groups: Python / C++ / TorchScript, forward / backward' }));
    const metric = el('select', { id: 'group-metric' });
    if (hasCounts) metric.append(el('option', { value: 'counts', text: 'instructions per run' }));
    if (hasTime) metric.append(el('option', { value: 'time', text: 'wall time per run' }));
    root.append(el('div', { class: 'controls' }, ['Bars show ', metric, ' (log scale); one bar per variant, one cluster per case.']));
    const grid = el('div', { class: 'groups', id: 'groups' });
    root.append(grid);
    const groups = new Map();
    for (const c of DATA.cases) {
      if (!groups.has(c.group)) groups.set(c.group, []);
      groups.get(c.group).push(c);
    }
    const value = (c, m) => m === 'counts' ? (c.counts ? c.counts.per_run : null) : (c.time ? c.time.median : null);
    const boxes = [];
    for (const [group, cases] of groups) {
      const rowsOf = [...new Set(cases.map(c => c.row + (c.threads > 1 ? ' (' + c.threads + 'T)' : '')))];
      const columns = [...new Set(cases.map(c => c.column))].sort();
      const canvas = el('canvas');
      const height = Math.min(900, 80 + rowsOf.length * Math.max(14, columns.length * 7));
      const box = el('div', { class: 'chart-box', style: 'height:' + height + 'px' }, canvas);
      grid.append(el('div', { class: 'group-chart', 'data-group': group }, [el('h3', { text: group }), box]));
      const draw = () => {
        const m = metric.value;
        const datasets = columns.map((col, i) => ({
          label: col,
          backgroundColor: COLUMN_COLORS[i % COLUMN_COLORS.length],
          data: rowsOf.map(r => {
            const c = cases.find(x => x.column === col && x.row + (x.threads > 1 ? ' (' + x.threads + 'T)' : '') === r);
            return c ? value(c, m) : null;
          }),
        }));
        if (box.chart) { box.chart.destroy(); charts.splice(charts.indexOf(box.chart), 1); }
        box.chart = addChart(canvas, {
          type: 'bar',
          data: { labels: rowsOf, datasets: datasets },
          options: {
            indexAxis: 'y',
            // Every case labelled: Chart.js would skip labels it finds crowded.
            scales: { x: { type: 'logarithmic', title: { display: true, text: m === 'counts' ? 'instructions per run' : 'seconds per run' } },
              y: { ticks: { autoSkip: false } } },
            plugins: { tooltip: { callbacks: { label: ctx => ctx.dataset.label + ': ' +
              (m === 'counts' ? fmtCount(ctx.raw) : fmtTime(ctx.raw)) } } },
          },
        });
      };
      boxes.push(box);
      lazyChart(box, draw);
      box.redraw = draw;
    }
    metric.addEventListener('change', () => boxes.forEach(b => (b.chart ? b.redraw() : null)));
  }

  // --------------------------------------------------------------- deltas
  function renderDeltas(root) {
    if (!COMPARING) return;
    root.append(el('h2', { text: 'Changes against the baseline' }));
    const withCounts = DATA.cases.filter(c => c.delta && c.delta.counts_delta_pct != null);
    const withTime = DATA.cases.filter(c => c.delta && c.delta.time_delta_pct != null);
    const limit = 40;
    // Counts and wall time side by side, each sorted by the size of its change.
    const grid = el('div', { class: 'groups' });
    root.append(grid);
    const section = (title, id, cases, key, draw) => {
      if (!cases.length) return;
      cases.sort((a, b) => Math.abs(key(b)) - Math.abs(key(a)));
      const top = cases.slice(0, limit);
      const canvas = el('canvas');
      const box = el('div', { class: 'chart-box', id: id, style: 'height:' + (60 + top.length * 18) + 'px' }, canvas);
      grid.append(el('div', { class: 'group-chart' }, [
        el('h3', { text: title + (cases.length > limit ? ' (the ' + limit + ' largest of ' + cases.length + ')' : '') }), box]));
      lazyChart(box, () => draw(canvas, top));
    };
    section('Instructions per run, change in %', 'delta-counts', withCounts, c => c.delta.counts_delta_pct, (canvas, cases) => {
      addChart(canvas, {
        type: 'bar',
        data: { labels: cases.map(c => c.title), datasets: [{ label: '\u0394 instructions per run (%)',
          data: cases.map(c => c.delta.counts_delta_pct),
          backgroundColor: cases.map(c => c.delta.counts_delta_pct > 0 ? '#c0392b' : '#2e6fb7') }] },
        options: { indexAxis: 'y', plugins: { legend: { display: false },
          tooltip: { callbacks: { label: ctx => fmtPct(ctx.raw, 3) + ' (' + fmtCount(cases[ctx.dataIndex].baseline.counts.per_run) +
            ' -> ' + fmtCount(cases[ctx.dataIndex].counts.per_run) + ')' } } } },
      });
    });
    section('Wall time, change in % with its 95% confidence interval', 'delta-time', withTime, c => c.delta.time_delta_pct, (canvas, cases) => {
      const color = c => c.delta.time_significant ? (c.delta.time_delta_pct > 0 ? '#c0392b' : '#2e6fb7') : '#9aa5b1';
      addChart(canvas, {
        type: 'bar',
        data: { labels: cases.map(c => c.title), datasets: [
          { label: '95% interval', data: cases.map(c => c.delta.time_ci_pct), backgroundColor: cases.map(c => color(c) + '66'), grouped: false },
          { label: 'change', data: cases.map(c => [c.delta.time_delta_pct - 0.15, c.delta.time_delta_pct + 0.15]), backgroundColor: cases.map(color), grouped: false },
        ] },
        options: { indexAxis: 'y', plugins: { tooltip: { callbacks: { label: ctx => {
          const d = cases[ctx.dataIndex].delta;
          return timeDeltaText(cases[ctx.dataIndex]) + ' ' + (d.time_significant ? 'significant' : 'not significant') +
            ', ' + d.time_rounds + ' rounds';
        } } } } },
      });
    });
    if (!withCounts.length && !withTime.length) root.append(el('p', { class: 'muted', text: 'No case was measured on both sides.' }));
  }

  // ---------------------------------------------------------------- history
  function drawHistory(container, c) {
    for (const [metric, title] of [['counts', 'instructions per run'], ['allocations', 'heap allocations per run'],
      ['time', 'wall time per run (median, quartile band)']]) {
      const s = c.history[metric];
      if (!s) continue;
      const steps = new Set(s.steps.map(x => x.index));
      const labels = s.run.map(r => DATA.history_runs[r].label || ('run ' + DATA.history_runs[r].id));
      const canvas = el('canvas');
      container.append(el('h3', { text: 'History: ' + title + (s.steps.length ? ' \u2014 ' + s.steps.length + ' change point(s): ' +
        s.steps.map(x => labels[x.index] + ' ' + fmtPct(x.change_pct)).join(', ') : ' \u2014 no change point') }),
        el('div', { class: 'chart-box history', 'data-metric': metric, style: 'height:180px' }, canvas));
      const datasets = [{ label: title, data: s.value, borderColor: '#2f6fb3', backgroundColor: '#2f6fb3', tension: 0,
        pointRadius: s.value.map((v, i) => steps.has(i) ? 6 : 2), pointStyle: s.value.map((v, i) => steps.has(i) ? 'triangle' : 'circle'),
        pointBackgroundColor: s.value.map((v, i) => steps.has(i) ? '#c0392b' : '#2f6fb3') }];
      if (metric === 'time') {
        datasets.push({ label: '75th percentile', data: s.high, borderWidth: 0, pointRadius: 0, backgroundColor: 'rgba(47,111,179,0.15)', fill: '+1' });
        datasets.push({ label: '25th percentile', data: s.low, borderWidth: 0, pointRadius: 0, backgroundColor: 'rgba(47,111,179,0.15)', fill: false });
      }
      addChart(canvas, { type: 'line', data: { labels: labels, datasets: datasets },
        options: { plugins: { legend: { display: false }, tooltip: { callbacks: { label: ctx => ctx.dataset.label + ': ' +
          (metric === 'time' ? fmtTime(ctx.raw) : fmtCount(ctx.raw)) } } },
          scales: { y: { ticks: { callback: v => metric === 'time' ? fmtTime(v, 4) : fmtCount(v) } } } } });
    }
  }

  // ------------------------------------------------------------ case detail
  function caseDetail(c) {
    const box = el('div', { class: 'detail', id: 'detail', 'data-key': c.key });
    const close = el('button', { class: 'close', text: 'Close' });
    close.addEventListener('click', () => box.remove());
    box.append(close, el('h3', { text: c.title }), el('div', { class: 'muted', text: c.key }));
    const facts = [];
    if (c.counts) facts.push(fmtCount(c.counts.per_run) + ' instructions per run (' + c.counts.repeats.length + ' repeat(s) of ' +
      c.counts.number_per_run + ' runs' + (c.counts.repeats_identical ? ', identical' : ', NOT identical: ' + c.counts.repeats.join(', ')) + ')');
    if (c.counts && c.counts.allocations_per_run != null) {
      facts.push(fmtAllocations(c.counts.allocations_per_run) + ' heap allocations and ' +
        fmtAllocations(c.counts.frees_per_run) + ' frees per run');
    }
    if (c.time) facts.push('wall time ' + fmtTime(c.time.median, 3) + ' per run (median of ' + c.time.samples + ' blocks in ' +
      c.time.rounds + ' round(s); quartiles ' + fmtTime(c.time.p25, 3) + ' .. ' + fmtTime(c.time.p75, 3) + ')');
    if (c.delta) {
      const d = c.delta;
      if (d.counts_delta_pct != null) facts.push('instructions ' + fmtPct(d.counts_delta_pct, 3) + ' against the baseline');
      if (d.allocations_delta) facts.push('heap allocations ' + (d.allocations_delta > 0 ? '+' : '') + fmtAllocations(d.allocations_delta) + ' per run against the baseline');
      if (d.time_verdict != null) facts.push('wall time ' + timeDeltaText(c) + ' (' + d.time_verdict + ')');
    }
    box.append(el('ul', { class: 'plain' }, facts.map(f => el('li', { text: f }))));
    const perRun = c.counts ? c.counts.number_per_run : 1;
    if (c.tree) {
      box.append(el('h3', { text: c.baseline_tree ? 'Where the instructions went, against the baseline' : 'Where the instructions went' }));
      drawFlame(box, c, perRun);
      if (c.baseline_tree) box.append(topChanges(c, perRun));
    } else if (c.counts) {
      box.append(el('p', { class: 'muted', text: 'No call tree for this case (results older than timer 0.5.0).' }));
    }
    if (c.history) drawHistory(box, c);
    else if (DATA.history_runs.length) box.append(el('p', { class: 'muted', text: 'This case has no history in the store.' }));
    return box;
  }

  function renderChanged(root) {
    if (!COMPARING) return;
    const changed = DATA.cases.filter(c => c.delta && c.delta.counts_delta_pct && c.tree && c.baseline_tree)
      .sort((a, b) => Math.abs(b.delta.counts_delta_pct) - Math.abs(a.delta.counts_delta_pct));
    root.append(el('h2', { text: 'Cases whose counts changed: differential flamegraphs' }));
    if (!changed.length) {
      root.append(el('p', { class: 'muted', text: DATA.cases.some(c => c.tree) ? 'No case\'s instruction count changed.' :
        'No call trees in these results, so no flamegraphs.' }));
      return;
    }
    const list = el('div', { id: 'changed' });
    root.append(list);
    for (const c of changed) {
      const holder = el('div', { class: 'changed-case', 'data-key': c.key, style: 'min-height:120px' });
      list.append(holder);
      lazyChart(holder, () => holder.append(caseDetail(c)));
    }
  }

  // ------------------------------------------------------------------- page
  function render() {
    const root = document.getElementById('app');
    root.replaceChildren();
    renderSummary(root);
    let detail = null;
    const detailHolder = el('div', { id: 'detail-holder' });
    renderTable(root, (c, tr) => {
      root.querySelectorAll('tr.selected').forEach(r => r.classList.remove('selected'));
      tr.classList.add('selected');
      if (detail) detail.remove();
      detail = caseDetail(c);
      detailHolder.append(detail);
      detail.scrollIntoView({ block: 'nearest' });
    });
    root.append(detailHolder);
    renderDeltas(root);
    renderGroups(root);
    renderChanged(root);
    document.body.dataset.ready = '1';
  }

  try {
    render();
  } catch (e) {
    document.getElementById('app').prepend(el('div', { class: 'notice', text: 'The report could not be drawn: ' + e }));
    throw e;
  }
})();
