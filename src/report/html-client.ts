// The HTML report's inline style and script (report/html.ts embeds them). The script draws the
// matrix, the filters and the case view from the embedded jobs with createElement and textContent
// only: whatever a model wrote stays text. Plain ES2020, no library, no network.

/** The report's styles: readable at 1280×800 and on a narrow window, and on paper. */
export const CLIENT_CSS = `
:root{--pass:#1a7f37;--pass-bg:#dafbe1;--fail:#b42318;--fail-bg:#ffebe9;--error:#9a6700;--error-bg:#fff4cc;--skip:#57606a;--skip-bg:#eaeef2;--line:#d0d7de;--muted:#57606a;--accent:#0969da;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff}
body{margin:0;font-size:14px;line-height:1.45}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:#f6f8fa}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:20px 0 8px}
main{padding:0 24px 24px}
.facts{display:flex;flex-wrap:wrap;gap:4px 20px;margin:0 0 12px;color:var(--muted)}
.facts div{display:flex;gap:6px;min-width:0}.facts dd{min-width:0}.facts dt{font-weight:600}.facts dd{margin:0;overflow-wrap:break-word}
.figures{display:flex;flex-wrap:wrap;gap:8px}
.figure{border:1px solid var(--line);border-radius:6px;padding:6px 10px;background:#fff;min-width:90px}
.figure .label{display:block;font-size:12px;color:var(--muted)}.figure .value{font-size:17px;font-weight:600}
.figure.pass .value{color:var(--pass)}.figure.fail .value{color:var(--fail)}.figure.error .value{color:var(--error)}
.figure.headline{border-color:var(--accent)}
a.figure.filter{color:inherit;text-decoration:none;cursor:pointer}a.figure.filter:hover{border-color:var(--accent)}a.figure.filter:focus-visible{outline:3px solid var(--accent);outline-offset:1px}
a.figure.filter[aria-current]{border-color:var(--accent);box-shadow:inset 0 -3px var(--accent)}
main{display:flex;flex-direction:column}main>*{min-width:0}main.passing>.results{order:1}
.reasons{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;padding:6px 10px;margin:0 0 10px;background:#fff}
.reasons h3{font-size:15px;margin:0}.reasons .stats{margin:0 0 4px}
.reason-list{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:minmax(4.5em,max-content) max-content minmax(0,1fr) max-content}
.reason-item{display:grid;grid-column:1/-1;grid-template-columns:subgrid}
.reason-button{display:grid;grid-column:1/-1;grid-template-columns:subgrid;gap:2px 10px;align-items:baseline;width:100%;border:0;border-top:1px solid var(--line);background:none;font:inherit;color:inherit;text-align:left;padding:4px 2px;cursor:pointer}
.reason-button:hover,.reason-button[aria-pressed=true]{background:#f6f8fa}.reason-button[aria-pressed=true]{box-shadow:inset 3px 0 var(--accent)}
.reason-count{font-weight:700;font-variant-numeric:tabular-nums;text-align:right;color:var(--fail)}.reason-item.error .reason-count{color:var(--error)}
.reason-assertion{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.reason-text{overflow-wrap:break-word;min-width:0;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
.reason-where{color:var(--muted);font-size:12px;white-space:nowrap}
button.sort{border:1px solid var(--line);border-radius:4px;background:#fff;font:inherit;font-size:11px;padding:0 4px;margin:2px 2px 0 0;cursor:pointer;color:var(--muted)}button.sort.on{color:var(--accent);border-color:var(--accent);font-weight:600}
.matrix .sorts{display:block;font-weight:400}.matrix th.case-col .sort{margin-left:6px}
.cell .cell-top{display:flex;justify-content:space-between;gap:6px;flex-wrap:wrap}.cell .cell-stats{font-size:11px;color:var(--muted);font-variant-numeric:tabular-nums;white-space:nowrap}
.chart{margin:0 0 12px;max-width:900px}.chart figcaption{font-weight:600;margin-bottom:4px}
.bar-label,.bar-value{font-size:12px;fill:#1f2328}.bar-track{fill:#eaeef2}.bar-fill{fill:#4c9aff}.whisker{stroke:#1f2328;stroke-width:1.5}
table{border-collapse:collapse}
.metrics td,.metrics th,.flaky td,.flaky th{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left}
.num{text-align:right;font-variant-numeric:tabular-nums}
.id{color:var(--muted);font-size:12px;font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.controls{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin-bottom:8px}
.controls fieldset{border:1px solid var(--line);border-radius:6px;padding:2px 8px;margin:0;display:flex;gap:8px;flex-wrap:wrap}
.controls legend{font-size:12px;color:var(--muted)}
.controls input[type=search]{width:240px;max-width:60vw;padding:4px}#meta{max-width:24em}
.keys{color:var(--muted);font-size:12px}
kbd{border:1px solid var(--line);border-radius:3px;padding:0 3px;font-size:11px}
.summary{margin:4px 0;color:var(--muted)}.summary .show-all{padding:0 8px;font-size:12px}
.matrix-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
.matrix{width:100%;table-layout:fixed;min-width:calc(280px + var(--cols,1) * 220px)}
.matrix th,.matrix td{border-bottom:1px solid var(--line);border-right:1px solid var(--line);padding:0;vertical-align:top;text-align:left}
.matrix thead th{background:#f6f8fa;padding:6px 8px;position:sticky;top:0}
.matrix th.case-col{width:28%}
.matrix .col-head .col-label{display:block;font-weight:600;overflow-wrap:break-word}
.matrix .col-head .col-provider{display:block;color:var(--muted);font-weight:400;overflow-wrap:break-word}
.matrix .col-head .col-rate{display:block;font-weight:400}
.matrix td.case{padding:6px 8px}
.case-name{font-weight:600;overflow-wrap:break-word}
.case-vars{color:var(--muted);font-size:12px;overflow-wrap:break-word}
.cell{display:block;width:100%;min-height:48px;border:0;text-align:left;padding:6px 8px;font:inherit;cursor:pointer;background:none;color:inherit}
.cell:focus-visible{outline:3px solid var(--accent);outline-offset:-3px}
.cell .badge{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.03em}
.cell .first-lines{display:block;white-space:pre-wrap;overflow-wrap:break-word;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;max-height:4.6em;overflow:hidden}
.cell .why{display:block;font-size:12px;color:var(--muted);overflow-wrap:break-word;max-height:3em;overflow:hidden}
td.pass{background:var(--pass-bg);box-shadow:inset 4px 0 var(--pass)}td.pass .badge{color:var(--pass)}
td.fail{background:var(--fail-bg);box-shadow:inset 4px 0 var(--fail)}td.fail .badge{color:var(--fail)}
td.error{background:var(--error-bg);box-shadow:inset 4px 0 var(--error)}td.error .badge{color:var(--error)}
td.skip{background:var(--skip-bg);box-shadow:inset 4px 0 var(--skip)}td.skip .badge{color:var(--skip)}
td.flaky{background:repeating-linear-gradient(135deg,var(--pass-bg) 0 8px,var(--fail-bg) 8px 16px);box-shadow:inset 4px 0 var(--error)}td.flaky .badge{color:var(--error)}
td.selected .cell{outline:3px solid var(--accent);outline-offset:-3px}
.pager{display:flex;gap:8px;align-items:center;margin-top:8px}
button.nav{padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:#f6f8fa;font:inherit;cursor:pointer}
button.nav:disabled{opacity:.5;cursor:default}
#case-view{position:fixed;top:0;right:0;bottom:0;width:min(920px,100vw);overflow:auto;background:#fff;border-left:1px solid var(--line);box-shadow:-6px 0 24px rgba(0,0,0,.15);padding:16px 20px;box-sizing:border-box;z-index:10}
#case-view h2{margin:8px 0 0;overflow-wrap:break-word}
.case-tools{display:flex;gap:8px;align-items:center;flex-wrap:wrap}.case-tools .close{margin-left:auto}
#case-view .where{color:var(--muted);overflow-wrap:break-word}
.trials{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px}
.trial{border:1px solid var(--line);border-radius:6px;padding:8px 10px;min-width:0}
.trial h3{font-size:15px;margin:0 0 6px}
.trial h4{font-size:13px;margin:10px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.trial.pass{border-top:4px solid var(--pass)}.trial.fail{border-top:4px solid var(--fail)}.trial.error{border-top:4px solid var(--error)}.trial.skip{border-top:4px solid var(--skip)}
pre{white-space:pre-wrap;overflow-wrap:break-word;background:#f6f8fa;border:1px solid var(--line);border-radius:4px;padding:6px 8px;margin:0;font-size:12px;max-height:28em;overflow:auto}
.msg{margin:4px 0}.msg .role{font-size:11px;font-weight:700;text-transform:uppercase;color:var(--muted)}
.msg.hole pre{border-style:dashed;background:#fff}
.hole-mark{font-size:11px;background:#ddf4ff;border:1px solid #54aeff;border-radius:3px;padding:0 4px;margin-left:4px;color:#0550ae}
.block{margin:4px 0}.block .role{font-size:11px;font-weight:700;text-transform:uppercase;color:var(--muted)}
.block .tool-name{margin-left:6px;font-size:12px;text-transform:none;color:#1f2328}.block .tool-id{margin-left:6px;font-weight:400;text-transform:none}
.block-reasoning pre{font-style:italic}.block-refusal pre,.block-filter pre{border-color:#d4a72c}
.verdicts{width:100%;font-size:12px;table-layout:fixed}
.verdicts th:nth-child(1){width:4.6em}.verdicts th:nth-child(2){width:18%}.verdicts th:nth-child(3){width:18%}.verdicts th:nth-child(4){width:4.2em}.verdicts th:nth-child(5){width:5.8em}.verdicts th,.verdicts td{border-bottom:1px solid var(--line);padding:3px 4px;text-align:left;vertical-align:top;overflow-wrap:break-word}
.verdicts td.mark,.verdicts td.num{white-space:nowrap}.verdicts td.expected{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap}
dl.vars{display:grid;grid-template-columns:fit-content(45%) minmax(0,1fr);gap:2px 12px;margin:0;font-size:12px}dl.vars dt{font-weight:600;min-width:0;overflow-wrap:break-word}dl.vars dd{margin:0;min-width:0;overflow-wrap:break-word;white-space:pre-wrap}
.verdicts tr.v-fail td:first-child{color:var(--fail);font-weight:700}.verdicts tr.v-pass td:first-child{color:var(--pass);font-weight:700}
.verdicts tr.child td:nth-child(2){padding-left:16px}
.stats{color:var(--muted);font-size:12px}
.note{color:var(--muted)}
footer{padding:12px 24px;color:var(--muted);font-size:12px;border-top:1px solid var(--line)}
@media (max-width:700px){header,main{padding-left:10px;padding-right:10px}header{padding-top:8px;padding-bottom:8px}h1{font-size:18px;margin-bottom:2px}h2{margin:10px 0 6px}.facts{font-size:12px;margin-bottom:6px;gap:0 12px}.keys{display:none}
.figures{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:4px}.figure{min-width:0;padding:2px 6px}.figure .label{font-size:11px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}.figure .value{font-size:14px;overflow-wrap:break-word}.figure[data-figure=passRate]{grid-column:span 2}
.figure.zero{display:none}
.controls{gap:4px 8px}.controls fieldset{gap:2px 10px;font-size:13px;flex-wrap:nowrap;overflow-x:auto;max-width:100%;box-sizing:border-box;white-space:nowrap;min-width:0}.controls legend{display:none}.controls input[type=search]{width:120px}
.reason-where{display:none}.reasons .stats{display:none}.reason-button{padding:3px 2px}
.matrix .col-head .col-rate{display:none}.matrix thead th{padding:4px 6px}
main.passing>.results{order:0}
.matrix,.matrix thead,.matrix tbody{display:block;min-width:0}.matrix tr{display:grid;grid-template-columns:repeat(var(--cols,1),minmax(150px,1fr))}.matrix th.case-col{display:none}.matrix td.case{grid-column:1/-1;border-right:0;background:#f6f8fa}.matrix thead th{position:static}
.matrix-wrap{overflow-x:auto}.matrix{min-width:calc(var(--cols,1) * 150px)}
.reason-list{grid-template-columns:minmax(2.6em,max-content) max-content minmax(0,1fr)}.reason-text{-webkit-line-clamp:2}
.verdicts thead{display:none}.verdicts,.verdicts tbody{display:block}.verdicts tr{display:flex;flex-wrap:wrap;gap:0 8px;border-bottom:1px solid var(--line);padding:3px 0}.verdicts td{border:0;padding:0}.verdicts td.none{display:none}.verdicts td.expected::before{content:'expected ';color:var(--muted);font-family:system-ui,sans-serif}.verdicts td.reason{flex-basis:100%}
#case-view{padding:10px 12px}.trials{grid-template-columns:minmax(0,1fr)}dl.vars{grid-template-columns:minmax(0,1fr)}dl.vars dd{margin-bottom:4px}}
@media print{.controls,.pager,#case-view,.keys{display:none!important}.matrix-wrap{overflow:visible;border:0}.matrix{min-width:0!important}.matrix thead th{position:static}.cell{min-height:0}td.pass,td.fail,td.error,td.skip,td.flaky{box-shadow:none;border-left:4px solid #888}.cell .first-lines{max-height:none}body{font-size:11px}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}header{background:none}}
`;

/** The report's script: matrix, filters in the URL hash, case view, keyboard navigation. */
export const CLIENT_JS = String.raw`(function () {
'use strict';
var PAGE = 50;
var FIRST_LINES = 3;
var data = JSON.parse(document.getElementById('assay-data').textContent);
var columns = data.columns;
var rows = [];
var byCase = new Map();
data.jobs.forEach(function (j) {
  while (columns.length <= j.c) columns.push({ label: '(column ' + columns.length + ')', provider: '', passRate: '', counts: null });
  var row = byCase.get(j.i);
  if (!row) {
    row = { i: j.i, n: j.n, id: j.id, v: j.v, m: j.m, src: j.src, cells: [], fail: false, error: false, pass: false, flaky: false };
    byCase.set(j.i, row);
    rows.push(row);
  }
  (row.cells[j.c] = row.cells[j.c] || []).push(j);
});
rows.forEach(function (row) {
  row.cells.forEach(function (trials) {
    if (!trials) return;
    var st = cellStatus(trials);
    if (st === 'fail') row.fail = true;
    if (st === 'error') row.error = true;
    if (st === 'flaky') { row.flaky = true; row.fail = row.fail || trials.some(function (t) { return t.s === 'fail'; }); row.error = row.error || trials.some(function (t) { return t.s === 'error'; }); }
    if (st === 'pass') row.pass = true;
  });
});

/** A cell's status over its trials: flaky when judged trials disagree. */
function cellStatus(trials) {
  var judged = trials.filter(function (t) { return t.s !== 'skip'; });
  if (judged.length === 0) return 'skip';
  var passed = judged.filter(function (t) { return t.s === 'pass'; }).length;
  if (passed === judged.length) return 'pass';
  if (passed > 0) return 'flaky';
  return judged.some(function (t) { return t.s === 'fail'; }) ? 'fail' : 'error';
}

// The bidirectional embeddings, overrides and isolates in a model's text would reorder what the
// reader sees (words shown reversed, a cell's end drawn elsewhere): shown as escapes, as the console does.
var BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
function shownText(text) {
  return String(text).replace(BIDI, function (ch) { return '\\u' + ch.charCodeAt(0).toString(16); });
}
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = shownText(text);
  return e;
}

/** The metadata filter of the hash, [key, value], or null when absent or not of that shape. */
function parseMeta(text) {
  if (!text) return null;
  try {
    var kv = JSON.parse(text);
    return Array.isArray(kv) && kv.length === 2 && typeof kv[0] === 'string' && typeof kv[1] === 'string' ? kv : null;
  } catch (e) {
    return null;
  }
}

// ---- state in the URL hash: #status=fail&q=paris&meta=%5B%22category%22%2C%22math%22%5D&page=2&case=3.1
// A run with failures or errors opens on them (status "bad": not passing); one without, on all.
var DEFAULT_STATUS = rows.some(function (r) { return r.fail || r.error; }) ? 'bad' : 'all';
var STATUSES = ['all', 'bad', 'fail', 'error', 'flaky', 'pass'];
var SORT_KEYS = ['status', 'score', 'latency'];
var state = readState();
function readState() {
  var p = new URLSearchParams(location.hash.replace(/^#/, ''));
  var status = p.get('status') || DEFAULT_STATUS;
  if (STATUSES.indexOf(status) < 0) status = DEFAULT_STATUS;
  var sort = p.get('sort') || '';
  var m = /^(\d+)\.(\w+)\.(a|d)$/.exec(sort);
  if (!m || SORT_KEYS.indexOf(m[2]) < 0 || Number(m[1]) >= columns.length) sort = '';
  return { status: status, q: p.get('q') || '', meta: p.get('meta') || '', why: p.get('why') || '', sort: sort, page: Math.max(0, parseInt(p.get('page') || '1', 10) - 1 || 0), kase: /^\d+\.\d+$/.test(p.get('case') || '') ? p.get('case') : '' };
}
function writeState(next) {
  state = next;
  var p = new URLSearchParams();
  if (state.status !== DEFAULT_STATUS) p.set('status', state.status);
  if (state.q) p.set('q', state.q);
  if (state.meta) p.set('meta', state.meta);
  if (state.why) p.set('why', state.why);
  if (state.sort) p.set('sort', state.sort);
  if (state.page > 0) p.set('page', String(state.page + 1));
  if (state.kase) p.set('case', state.kase);
  var hash = p.toString();
  if (location.hash.replace(/^#/, '') !== hash) history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
  render();
}
window.addEventListener('hashchange', function () { state = readState(); syncControls(); render(); });
function set(changes) {
  var next = Object.assign({}, state, changes);
  writeState(next);
}

// ---- controls
var form = document.getElementById('controls');
var search = document.getElementById('search');
var metaSelect = document.getElementById('meta');
form.addEventListener('submit', function (e) { e.preventDefault(); });
// Each option's value is [key, value] as JSON: keys and values may hold any character, '=' too.
var metaValues = new Map();
rows.forEach(function (row) {
  if (!row.m) return;
  Object.keys(row.m).forEach(function (k) {
    var key = JSON.stringify([k, row.m[k]]);
    metaValues.set(key, (metaValues.get(key) || 0) + 1);
  });
});
Array.from(metaValues.keys()).sort().slice(0, 500).forEach(function (key) {
  var kv = JSON.parse(key);
  var o = el('option', '', kv[0] + '=' + kv[1] + ' (' + metaValues.get(key) + ')');
  o.value = key;
  metaSelect.appendChild(o);
});
if (metaValues.size === 0) metaSelect.parentElement.hidden = true;
function syncControls() {
  Array.prototype.forEach.call(form.elements.status, function (r) { r.checked = r.value === state.status; });
  if (search.value !== state.q) search.value = state.q;
  metaSelect.value = state.meta;
}
syncControls();
form.addEventListener('change', function (e) {
  if (e.target.name === 'status') set({ status: e.target.value, page: 0, kase: '' });
  if (e.target === metaSelect) set({ meta: metaSelect.value, page: 0 });
});
var searchTimer = 0;
search.addEventListener('input', function () {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(function () { set({ q: search.value, page: 0 }); }, 150);
});

// ---- filtering
function matchesText(row, q) {
  if (row.n.toLowerCase().indexOf(q) >= 0 || row.id.toLowerCase().indexOf(q) >= 0) return true;
  if (row.v) for (var k in row.v) if ((k + '=' + row.v[k]).toLowerCase().indexOf(q) >= 0) return true;
  for (var c = 0; c < row.cells.length; c++) {
    var trials = row.cells[c];
    if (!trials) continue;
    for (var t = 0; t < trials.length; t++) {
      var j = trials[t];
      if (j.o && j.o.toLowerCase().indexOf(q) >= 0) return true;
      if (j.r && j.r.toLowerCase().indexOf(q) >= 0) return true;
      for (var v = 0; v < j.vd.length; v++) if (j.vd[v].r.toLowerCase().indexOf(q) >= 0) return true;
    }
  }
  return false;
}
function filtered() {
  var q = state.q.trim().toLowerCase();
  var meta = parseMeta(state.meta);
  var why = state.why ? reasonByKey.get(state.why) : null;
  var list = rows.filter(function (row) {
    if (why && !why.rows.has(row.i)) return false;
    if (state.status === 'bad' && !row.fail && !row.error) return false;
    if (state.status === 'fail' && !row.fail) return false;
    if (state.status === 'error' && !row.error) return false;
    if (state.status === 'flaky' && !row.flaky) return false;
    if (state.status === 'pass' && (row.fail || row.error || !row.pass)) return false;
    if (meta && (!row.m || !Object.prototype.hasOwnProperty.call(row.m, meta[0]) || row.m[meta[0]] !== meta[1])) return false;
    return !q || matchesText(row, q);
  });
  return sortRows(list);
}

// ---- sorting: by one column's status (worst first), score or latency; cases without that cell last
var STATUS_RANK = { fail: 0, error: 1, flaky: 2, skip: 3, pass: 4 };
function mean(trials, key) {
  var sum = 0;
  trials.forEach(function (t) { sum += Number(t[key]) || 0; });
  return sum / trials.length;
}
function sortValue(row, c, key) {
  var trials = row.cells[c];
  if (!trials) return null;
  if (key === 'status') return STATUS_RANK[cellStatus(trials)];
  return mean(trials, key === 'score' ? 'sc' : 'l');
}
function sortRows(list) {
  if (!state.sort) return list;
  var parts = state.sort.split('.');
  var c = Number(parts[0]);
  var key = parts[1];
  var dir = parts[2] === 'd' ? -1 : 1;
  var keyed = list.map(function (row) { return { row: row, v: sortValue(row, c, key) }; });
  keyed.sort(function (a, b) {
    if (a.v === null || b.v === null) return a.v === null ? (b.v === null ? a.row.i - b.row.i : 1) : -1;
    return (a.v - b.v) * dir || a.row.i - b.row.i;
  });
  return keyed.map(function (k) { return k.row; });
}

// ---- top failure reasons: every failing or erroring job, grouped by its assertion and reason
// (the output, where a reason quotes it, is taken out, so one rule failing on many outputs is one group)
function failingVerdict(list) {
  for (var i = 0; i < list.length; i++) {
    var v = list[i];
    if (!v.p && !v.k) return v;
  }
  return null;
}
function reasonOf(j) {
  var assertion, text;
  if (j.s === 'error') { assertion = 'error'; text = j.e || j.r || 'error'; }
  else {
    var v = failingVerdict(j.vd);
    assertion = v ? v.t : 'case';
    text = v ? (v.e ? v.r + ' — ' + v.e : v.r) : (j.r || '');
  }
  if (j.o && j.o.length >= 8) text = text.split(j.o).join('[output]');
  text = text.replace(/\s+/g, ' ').trim();
  if (text.length > 300) text = text.slice(0, 300) + '…';
  return [assertion, text];
}
var reasons = [];
var reasonByKey = new Map();
data.jobs.forEach(function (j) {
  if (j.s !== 'fail' && j.s !== 'error') return;
  var ar = reasonOf(j);
  var key = JSON.stringify(ar);
  var g = reasonByKey.get(key);
  if (!g) {
    g = { key: key, assertion: ar[0], reason: ar[1], status: j.s, jobs: 0, rows: new Set(), cols: new Set() };
    reasonByKey.set(key, g);
    reasons.push(g);
  }
  g.jobs++;
  g.rows.add(j.i);
  g.cols.add(j.c);
});
reasons.sort(function (a, b) { return b.jobs - a.jobs || b.rows.size - a.rows.size; });
// On a phone the three most common reasons, so the failing tests are still on the first screen.
var TOP_REASONS = window.matchMedia && window.matchMedia('(max-width: 700px)').matches ? 3 : 6;
var reasonsBox = document.getElementById('reasons');
var allReasons = false;
function renderReasons() {
  reasonsBox.textContent = '';
  if (reasons.length === 0) { reasonsBox.hidden = true; return; }
  reasonsBox.hidden = false;
  var failing = data.jobs.filter(function (j) { return j.s === 'fail' || j.s === 'error'; }).length;
  reasonsBox.appendChild(el('h3', '', 'Top failure reasons'));
  reasonsBox.appendChild(el('p', 'stats', failing + ' failing or erroring ' + (failing === 1 ? 'job' : 'jobs') + ', ' + reasons.length + (reasons.length === 1 ? ' reason' : ' distinct reasons') + '. Pick one to see its tests.'));
  var list = el('ol', 'reason-list');
  (allReasons ? reasons : reasons.slice(0, TOP_REASONS)).forEach(function (g) {
    var li = el('li', 'reason-item ' + g.status);
    var b = el('button', 'reason-button');
    b.type = 'button';
    b.dataset.reason = g.key;
    b.setAttribute('aria-pressed', String(state.why === g.key));
    b.appendChild(el('span', 'reason-count', g.jobs + '×'));
    b.appendChild(el('span', 'reason-assertion', g.assertion));
    b.appendChild(el('span', 'reason-text', g.reason || '(no reason given)'));
    b.appendChild(el('span', 'reason-where', 'in ' + g.rows.size + (g.rows.size === 1 ? ' test' : ' tests') + (columns.length > 1 ? ' · ' + g.cols.size + ' of ' + columns.length + ' columns' : '')));
    b.addEventListener('click', function () { set({ why: state.why === g.key ? '' : g.key, status: state.status === 'pass' ? 'all' : state.status, page: 0, kase: '' }); });
    li.appendChild(b);
    list.appendChild(li);
  });
  reasonsBox.appendChild(list);
  if (reasons.length > TOP_REASONS) {
    var more = el('button', 'nav', allReasons ? 'Show the top ' + TOP_REASONS + ' only' : 'Show all ' + reasons.length + ' reasons');
    more.type = 'button';
    more.addEventListener('click', function () { allReasons = !allReasons; renderReasons(); });
    reasonsBox.appendChild(more);
  }
}

// ---- matrix
var matrix = document.getElementById('matrix');
var summary = document.getElementById('summary');
var pager = document.getElementById('pager');
var shown = [];
var SORT_NAMES = { status: 'status', score: 'score', latency: 'latency' };
function sortButton(c, key) {
  var parts = state.sort.split('.');
  var on = state.sort && Number(parts[0]) === c && parts[1] === key;
  var dir = on ? parts[2] : '';
  var b = el('button', 'sort' + (on ? ' on' : ''), SORT_NAMES[key] + (dir === 'a' ? ' ▲' : dir === 'd' ? ' ▼' : ''));
  b.type = 'button';
  b.dataset.sort = key;
  b.title = 'sort the tests by this column’s ' + SORT_NAMES[key] + (dir === 'a' ? ' (descending next)' : '');
  b.setAttribute('aria-pressed', String(!!on));
  b.addEventListener('click', function () { set({ sort: c + '.' + key + '.' + (dir === 'a' ? 'd' : 'a'), page: 0 }); });
  return b;
}
function header() {
  var thead = el('thead');
  var tr = el('tr');
  var first = el('th', 'case-col');
  first.scope = 'col';
  first.appendChild(el('span', 'col-label', 'Test'));
  if (state.sort) {
    var plan = el('button', 'sort', 'plan order');
    plan.type = 'button';
    plan.title = 'back to the order the suite lists its tests in';
    plan.addEventListener('click', function () { set({ sort: '', page: 0 }); });
    first.appendChild(plan);
  }
  tr.appendChild(first);
  columns.forEach(function (c, i) {
    var th = el('th', 'col-head');
    th.scope = 'col';
    th.appendChild(el('span', 'col-label', c.label));
    th.appendChild(el('span', 'col-provider', c.provider));
    if (c.counts) th.appendChild(el('span', 'col-rate', 'pass rate ' + c.passRate + ' · ' + c.counts.pass + ' pass, ' + c.counts.fail + ' fail, ' + c.counts.error + ' error'));
    var sorts = el('span', 'sorts');
    sorts.appendChild(el('span', 'stats', 'sort: '));
    SORT_KEYS.forEach(function (key) { sorts.appendChild(sortButton(i, key)); });
    th.appendChild(sorts);
    if (state.sort && Number(state.sort.split('.')[0]) === i) th.setAttribute('aria-sort', state.sort.split('.')[2] === 'd' ? 'descending' : 'ascending');
    tr.appendChild(th);
  });
  thead.appendChild(tr);
  return thead;
}
// Every column keeps a readable width; many columns scroll sideways inside the matrix's box.
matrix.style.setProperty('--cols', String(columns.length));
function firstLines(text) {
  if (text === null || text === undefined) return '(no output)';
  var lines = String(text).split('\n').slice(0, FIRST_LINES).join('\n');
  return lines.length > 240 ? lines.slice(0, 240) + '…' : lines;
}
function cellButton(row, c, trials) {
  var st = cellStatus(trials);
  var td = el('td', st);
  td.dataset.status = st;
  var b = el('button', 'cell');
  b.type = 'button';
  b.dataset.case = row.i + '.' + c;
  var judged = trials.filter(function (t) { return t.s !== 'skip'; });
  var passed = judged.filter(function (t) { return t.s === 'pass'; }).length;
  var label = st === 'flaky' ? 'flaky' : st;
  if (trials.length > 1) label += ' · ' + passed + '/' + judged.length + ' trials';
  var top = el('span', 'cell-top');
  top.appendChild(el('span', 'badge', label));
  top.appendChild(el('span', 'cell-stats', fmtNum(mean(trials, 'sc'), 2) + ' · ' + Math.round(mean(trials, 'l')) + ' ms'));
  b.appendChild(top);
  var j = trials[0];
  b.appendChild(el('span', 'first-lines', j.s === 'error' && j.o === null ? (j.e || j.r || 'error') : firstLines(j.o)));
  if (st !== 'pass' && st !== 'skip') {
    var bad = trials.filter(function (t) { return t.s !== 'pass'; })[0];
    if (bad && bad.r) b.appendChild(el('span', 'why', bad.r));
  }
  b.setAttribute('aria-label', row.n + ', ' + (columns[c] ? columns[c].label + ' ' + columns[c].provider : '') + ': ' + label);
  b.addEventListener('click', function () { set({ kase: row.i + '.' + c }); });
  td.appendChild(b);
  return td;
}
function renderMatrix() {
  shown = filtered();
  var pages = Math.max(1, Math.ceil(shown.length / PAGE));
  var page = Math.min(state.page, pages - 1);
  var slice = shown.slice(page * PAGE, page * PAGE + PAGE);
  matrix.textContent = '';
  matrix.appendChild(header());
  var tbody = el('tbody');
  slice.forEach(function (row) {
    var tr = el('tr');
    tr.dataset.row = String(row.i);
    var td = el('td', 'case');
    td.appendChild(el('div', 'case-name', row.n));
    td.appendChild(el('div', 'id', row.id));
    if (row.v) {
      var vars = Object.keys(row.v).map(function (k) { return k + '=' + row.v[k]; }).join(' · ');
      td.appendChild(el('div', 'case-vars', vars.length > 200 ? vars.slice(0, 200) + '…' : vars));
    }
    tr.appendChild(td);
    for (var c = 0; c < columns.length; c++) {
      var trials = row.cells[c];
      tr.appendChild(trials ? cellButton(row, c, trials) : el('td', 'none', ''));
    }
    tbody.appendChild(tr);
  });
  matrix.appendChild(tbody);
  var from = shown.length === 0 ? 0 : page * PAGE + 1;
  summary.textContent = rows.length === 0
    ? 'This run has no results.'
    : shown.length === rows.length
    ? 'Tests ' + from + '–' + (page * PAGE + slice.length) + ' of ' + rows.length
    : shown.length + ' of ' + rows.length + ' tests ' + (state.status === 'bad' && !state.q && !state.meta && !state.why ? 'fail or error' : 'match') + (shown.length > 0 ? ' · showing ' + from + '–' + (page * PAGE + slice.length) : '');
  var why = state.why ? reasonByKey.get(state.why) : null;
  if (why) summary.textContent += shownText(' · failing with ' + why.assertion + ': ' + (why.reason.length > 80 ? why.reason.slice(0, 80) + '…' : why.reason));
  if (shown.length < rows.length) {
    var all = el('button', 'nav show-all', 'show all ' + rows.length);
    all.type = 'button';
    all.addEventListener('click', function () { set({ status: 'all', q: '', meta: '', why: '', page: 0 }); });
    summary.appendChild(document.createTextNode(' '));
    summary.appendChild(all);
  }
  pager.textContent = '';
  if (pages > 1) {
    var prev = el('button', 'nav', '‹ Previous');
    prev.type = 'button';
    prev.disabled = page === 0;
    prev.addEventListener('click', function () { set({ page: page - 1 }); });
    var next = el('button', 'nav', 'Next ›');
    next.type = 'button';
    next.disabled = page >= pages - 1;
    next.addEventListener('click', function () { set({ page: page + 1 }); });
    pager.appendChild(prev);
    pager.appendChild(el('span', '', 'Page ' + (page + 1) + ' of ' + pages));
    pager.appendChild(next);
  }
}

// ---- case view
var view = document.getElementById('case-view');
var opener = null;
function pretty(text) {
  if (text === null || text === undefined) return null;
  var t = String(text).trim();
  if ((t[0] === '{' && t[t.length - 1] === '}') || (t[0] === '[' && t[t.length - 1] === ']')) {
    try { return JSON.stringify(JSON.parse(t), null, 2); } catch (e) { /* not JSON: shown as written */ }
  }
  return String(text);
}
function fmtNum(x, digits) { return typeof x === 'number' && isFinite(x) ? x.toFixed(digits) : String(x); }
function verdictRows(tbody, list, child) {
  list.forEach(function (v) {
    var tr = el('tr', (v.p ? 'v-pass' : 'v-fail') + (child ? ' child' : ''));
    tr.appendChild(el('td', 'mark', v.k ? 'skipped' : v.p ? 'pass' : 'fail'));
    tr.appendChild(el('td', 'assertion', v.t + (v.w !== undefined ? ' (weight ' + v.w + ')' : '')));
    tr.appendChild(el('td', v.x === undefined ? 'expected none' : 'expected', v.x === undefined ? '—' : v.x));
    tr.appendChild(el('td', 'num', fmtNum(v.s, 3)));
    tr.appendChild(el('td', 'num', v.th === undefined ? '—' : String(v.th)));
    var why = el('td', 'reason');
    why.appendChild(el('div', '', v.e ? v.r + ' — ' + v.e : v.r));
    if (v.g) {
      why.appendChild(el('div', 'stats', 'Grader reasoning:'));
      why.appendChild(el('pre', 'grader', v.g));
    }
    tr.appendChild(why);
    tbody.appendChild(tr);
    if (v.ch) verdictRows(tbody, v.ch, true);
  });
}
function trialView(j, cols) {
  var box = el('section', 'trial ' + j.s);
  box.appendChild(el('h3', '', (cols > 1 ? 'Trial ' + (j.t + 1) + ' · ' : '') + j.s.toUpperCase() + ' · score ' + fmtNum(j.sc, 3)));
  var stats = [Math.round(j.l) + ' ms'];
  if (j.tk) stats.push(j.tk + ' tokens');
  if (j.$) stats.push('$' + fmtNum(j.$, 5));
  if (j.th !== undefined) stats.push('case threshold ' + j.th);
  box.appendChild(el('div', 'stats', stats.join(' · ')));
  if (j.ms && j.ms.length) {
    box.appendChild(el('h4', '', 'Messages'));
    j.ms.forEach(function (m) {
      var d = el('div', 'msg' + (m.h !== undefined ? ' hole' : ''));
      var role = el('div', 'role', m.ro);
      if (m.h !== undefined) role.appendChild(el('span', 'hole-mark', (m.f ? 'hole filled by the model' : 'hole: the output') + (m.h ? ' · ' + m.h : '')));
      d.appendChild(role);
      d.appendChild(el('pre', '', m.c === null ? '(the model’s answer: see Output)' : m.c));
      box.appendChild(d);
    });
  }
  box.appendChild(el('h4', '', 'Output'));
  box.appendChild(el('pre', 'output', j.o === null ? '(no output)' : pretty(j.o)));
  if (j.oc) box.appendChild(el('div', 'stats', j.oc + ' more characters in results.jsonl'));
  if (j.fr !== undefined || j.frr !== undefined)
    box.appendChild(el('div', 'stats finish', 'Finish reason: ' + (j.fr === undefined ? '(none reported)' : j.fr) + (j.frr !== undefined ? ' · the API said ' + j.frr : '')));
  if (j.ab && j.ab.length) {
    // The answer as it came: tool calls with their arguments, the model's reasoning, a refusal.
    box.appendChild(el('h4', '', 'The answer, block by block'));
    j.ab.forEach(function (b) {
      var d = el('div', 'block block-' + b.k);
      var label = b.k === 'tool' ? 'Tool call' : b.k === 'reasoning' ? 'Reasoning' + (b.rd ? ' (withheld by the API)' : '') : b.k === 'refusal' ? 'Refusal' : b.k === 'filter' ? 'Content filter' : 'Text';
      var head = el('div', 'role', label);
      if (b.k === 'tool') {
        head.appendChild(el('code', 'tool-name', b.n));
        if (b.id) head.appendChild(el('span', 'tool-id', b.id));
      }
      d.appendChild(head);
      d.appendChild(el('pre', b.k === 'tool' ? 'tool-args' : '', b.k === 'tool' ? pretty(b.t) : b.t));
      box.appendChild(d);
    });
  }
  if (j.s !== 'pass' && (j.r || j.e)) {
    box.appendChild(el('h4', '', j.s === 'error' ? 'Error' : 'Why it failed'));
    box.appendChild(el('pre', 'reason', j.e ? (j.r ? j.r + '\n' : '') + j.e : j.r));
  }
  box.appendChild(el('h4', '', 'Verdicts'));
  if (j.vd.length === 0) box.appendChild(el('div', 'stats', 'No verdict (nothing was scored).'));
  else {
    var t = el('table', 'verdicts');
    var head = el('tr');
    ['', 'assertion', 'expected', 'score', 'threshold', 'reason'].forEach(function (x) { head.appendChild(el('th', '', x)); });
    var th = el('thead');
    th.appendChild(head);
    t.appendChild(th);
    var tb = el('tbody');
    verdictRows(tb, j.vd, false);
    t.appendChild(tb);
    box.appendChild(t);
  }
  return box;
}
function renderCase() {
  if (!state.kase) {
    if (!view.hidden) {
      view.hidden = true;
      view.textContent = '';
      // Back to the cell the case was opened from, so the keyboard carries on from there.
      var back = lastCase && matrix.querySelector('button.cell[data-case="' + lastCase + '"]');
      if (back) back.focus();
      else if (opener && document.body.contains(opener)) opener.focus();
    }
    return;
  }
  var parts = state.kase.split('.');
  var row = byCase.get(Number(parts[0]));
  var c = Number(parts[1]);
  var trials = row && row.cells[c];
  if (!trials) { view.hidden = true; return; }
  var active = document.activeElement;
  var refocus = active && view.contains(active) && active.classList.contains('nav') ? active.className : '';
  view.textContent = '';
  var tools = el('div', 'case-tools');
  var cells = shownCells();
  var at = cells.indexOf(state.kase);
  var prev = el('button', 'nav prev-case', '‹ Previous');
  prev.type = 'button';
  prev.disabled = at <= 0;
  prev.addEventListener('click', function () { goCase(cells, at - 1); });
  var next = el('button', 'nav next-case', 'Next ›');
  next.type = 'button';
  next.disabled = at < 0 || at >= cells.length - 1;
  next.addEventListener('click', function () { goCase(cells, at + 1); });
  tools.appendChild(prev);
  tools.appendChild(el('span', 'stats case-pos', at < 0 ? 'not in the filtered list' : (at + 1) + ' of ' + cells.length));
  tools.appendChild(next);
  var close = el('button', 'nav close', 'Close ✕');
  close.type = 'button';
  close.addEventListener('click', function () { set({ kase: '' }); });
  tools.appendChild(close);
  view.appendChild(tools);
  var title = el('h2', '', row.n);
  title.id = 'case-title';
  view.appendChild(title);
  var col = columns[c] || { label: '', provider: '' };
  view.appendChild(el('div', 'where', 'case ' + row.id + ' · ' + col.label + ' · ' + col.provider + (row.src ? ' · ' + row.src : '')));
  if (row.v) {
    view.appendChild(el('h4', '', 'Vars'));
    var vt = el('dl', 'vars');
    Object.keys(row.v).forEach(function (k) {
      vt.appendChild(el('dt', '', k));
      vt.appendChild(el('dd', '', row.v[k]));
    });
    view.appendChild(vt);
  }
  if (row.m) view.appendChild(el('div', 'stats', 'metadata: ' + Object.keys(row.m).map(function (k) { return k + '=' + row.m[k]; }).join(' · ')));
  var grid = el('div', 'trials');
  trials.slice().sort(function (a, b) { return a.t - b.t; }).forEach(function (j) { grid.appendChild(trialView(j, trials.length)); });
  view.appendChild(grid);
  view.hidden = false;
  var again = refocus && view.querySelector('button.' + refocus.split(' ').join('.'));
  if (again && !again.disabled) again.focus();
  else close.focus();
}
/** Every cell of the tests the matrix shows, in order (row by row), as case references. */
function shownCells() {
  var list = [];
  shown.forEach(function (row) {
    row.cells.forEach(function (trials, c) { if (trials) list.push(row.i + '.' + c); });
  });
  return list;
}
function goCase(cells, k) {
  if (k < 0 || k >= cells.length) return;
  var i = Number(cells[k].split('.')[0]);
  var at = shown.findIndex(function (row) { return row.i === i; });
  set({ kase: cells[k], page: Math.floor(at / PAGE) });
}
var drawn = '';
var lastCase = '';
function render() {
  // The matrix is redrawn only when what it shows changes; opening a case only marks its cell.
  var view = [state.status, state.q, state.meta, state.why, state.sort, state.page].join('\u0000');
  if (view !== drawn) {
    renderMatrix();
    renderReasons();
    drawn = view;
  }
  Array.prototype.forEach.call(document.querySelectorAll('a.figure.filter'), function (a) {
    if (a.dataset.status === state.status) a.setAttribute('aria-current', 'true');
    else a.removeAttribute('aria-current');
  });
  Array.prototype.forEach.call(matrix.querySelectorAll('td.selected'), function (td) { td.classList.remove('selected'); });
  if (state.kase) {
    var b = matrix.querySelector('button.cell[data-case="' + state.kase + '"]');
    if (b) b.parentElement.classList.add('selected');
    lastCase = state.kase;
  }
  renderCase();
}

// ---- keyboard: j/n next failure, k/p previous, / search, Escape close
function failures() {
  var list = [];
  shown.forEach(function (row) {
    row.cells.forEach(function (trials, c) {
      if (!trials) return;
      var st = cellStatus(trials);
      if (st === 'fail' || st === 'error' || st === 'flaky') list.push({ row: row, c: c, at: row.i + '.' + c });
    });
  });
  return list;
}
function step(dir) {
  var list = failures();
  if (list.length === 0) return;
  var at = list.findIndex(function (f) { return f.at === state.kase; });
  var next = at < 0 ? (dir > 0 ? 0 : list.length - 1) : (at + dir + list.length) % list.length;
  var f = list[next];
  var page = Math.floor(shown.indexOf(f.row) / PAGE);
  set({ kase: f.at, page: page });
}
document.addEventListener('keydown', function (e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var typing = e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT' || e.target.tagName === 'TEXTAREA');
  if (e.key === 'Escape') {
    if (typing) { e.target.blur(); return; }
    if (state.kase) { e.preventDefault(); set({ kase: '' }); }
    return;
  }
  if (typing) return;
  if (e.key === 'j' || e.key === 'n') { e.preventDefault(); step(1); }
  else if (e.key === 'k' || e.key === 'p') { e.preventDefault(); step(-1); }
  else if (e.key === '/') { e.preventDefault(); search.focus(); }
});
document.addEventListener('focusin', function (e) {
  if (e.target && e.target.classList && e.target.classList.contains('cell')) opener = e.target;
});
render();
document.documentElement.dataset.ready = 'true';
})();
`;
