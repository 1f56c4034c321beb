// The journal: filters kept in the address's hash, the list, one exchange with "copy as curl".
import { api, token } from './api.js';
import { $, emptyRow, facts, fill, h, iso, pretty, short, timeMs } from './dom.js';

const FILTERS = ['op', 'status', 'account', 'q', 'own'];
let entries = [];
let names = new Map();
let openId;
let mode = 'simulator';
/** The key of the open exchange's account, asked of the control plane for it alone. */
let shownKey = { id: undefined, key: undefined, held: true };

/** The page's own traffic: its assets, the docs, the reads it polls. */
export function isOwn(e) {
  if (/^\/(docs|favicon\.ico)(\/|$)/.test(e.path) || /^\/_sim\/ui(\/|$)/.test(e.path)) return true;
  return e.method === 'GET' && /^\/_sim\/(dashboard|events|health|journal|accounts\/\w+\/key)$/.test(e.path);
}

function readFilters() {
  const params = new URLSearchParams(location.hash.slice(1));
  const form = $('journal-filters');
  for (const key of FILTERS) {
    const field = form.elements.namedItem(key);
    if (key === 'own') field.checked = params.get('own') === '1';
    else field.value = params.get(key) || '';
  }
}

/** The filter fields as the hash keeps them (own: '1' when checked). */
function fieldValues() {
  const form = $('journal-filters');
  const value = (key, field) => (key === 'own' ? (field.checked ? '1' : '') : field.value.trim());
  return Object.fromEntries(FILTERS.map((key) => [key, value(key, form.elements.namedItem(key))]));
}

function currentFilters() {
  const values = fieldValues();
  return { ...values, q: values.q.toLowerCase(), own: values.own === '1' };
}

// Filters live in the hash so a view can be shared, and so they never mix with ?token=.
function writeFilters() {
  const hash = new URLSearchParams(Object.entries(fieldValues()).filter(([, value]) => value)).toString();
  history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
}

function matches(e, f) {
  if (!f.own && isOwn(e)) return false;
  if (f.op && e.operation !== f.op) return false;
  if (f.status && String(e.status).charAt(0) !== f.status) return false;
  if (f.account && e.account !== f.account) return false;
  if (f.q) {
    const hay = [
      e.path,
      e.query ? new URLSearchParams(e.query).toString() : '',
      e.body || '',
      typeof e.response === 'string' ? e.response : JSON.stringify(e.response || ''),
    ]
      .join('\n')
      .toLowerCase();
    if (hay.indexOf(f.q) === -1) return false;
  }
  return true;
}

const fullPath = (e) =>
  e.path + (e.query && Object.keys(e.query).length ? '?' + new URLSearchParams(e.query) : '');

function renderList() {
  const f = currentFilters();
  const shown = entries.filter((e) => matches(e, f));
  $('journal-count').textContent = 'newest first \u00b7 ' + shown.length + ' of ' + entries.length;
  const rows = shown.map((e) => {
    const query = fullPath(e).slice(e.path.length);
    const violations = Array.isArray(e.violations) ? e.violations.length : 0;
    return h(
      'tr.clickable',
      {
        testid: 'journal-row',
        class: e.id === openId ? 'selected' : null,
        tabindex: 0,
        title: 'Open this exchange',
        data: { 'journal-id': e.id, violations },
      },
      h('td.nowrap.muted.mono', { title: iso(e.at) }, timeMs(e.at)),
      h(
        'td.request',
        h('span.method.' + e.method, e.method),
        h(
          'span.mono',
          { title: e.path + query },
          e.path,
          h('span.faint', query.length > 60 ? query.slice(0, 60) + '\u2026' : query),
        ),
      ),
      h(
        'td',
        h('span.http.code-' + String(e.status).charAt(0), { testid: 'journal-status' }, e.status),
        e.fault ? [' ', h('span.badge.s-FAILED.plain', e.fault)] : null,
        violations
          ? [
              ' ',
              h(
                'span.badge.s-REFUNDED.plain',
                { testid: 'journal-violations', title: 'Spec violations' },
                violations + ' violation' + (violations === 1 ? '' : 's'),
              ),
            ]
          : null,
      ),
      h('td', { testid: 'journal-operation' }, e.operation || '\u2014'),
      h('td.muted', e.account ? names.get(e.account) || short(e.account) : '\u2014'),
      h('td.num.muted', (e.durationMs < 10 ? e.durationMs.toFixed(2) : Math.round(e.durationMs)) + ' ms'),
    );
  });
  const empty = entries.length ? 'No request matches the filters.' : 'No requests yet.';
  fill('journal', rows.length === 0 ? [emptyRow(6, empty)] : rows);
}

/** What to put in place of <API_KEY>, by mode, or why the simulator holds no key. */
const CURL_KEY = {
  proxy: 'your key of the upstream: the proxy passes it on and keeps none.',
  replay: "the recording's alias of the key it was made with (key-1 for its main account): it keeps no key.",
  restored:
    'this account\u2019s key: the simulator holds only its digest (it was restored, or not made here).',
  unknown: 'the key of an account: this request carried none the simulator knows.',
};

/** Single-quotes a word for a POSIX shell: ' becomes '\''. */
export function shellQuote(word) {
  return "'" + String(word).replace(/'/g, "'\\''") + "'";
}

/** A curl command that repeats the request: with `key`, or a placeholder for it. */
export function curlFor(e, key) {
  const parts = ['curl', '-X', e.method, shellQuote(location.origin + fullPath(e))];
  if (e.account || /^\/v1\//.test(e.path)) parts.push('-H', shellQuote('API-KEY: ' + (key || '<API_KEY>')));
  // The page's own token stays out of the command, like the key.
  if (token && /^\/_sim\//.test(e.path)) parts.push('-H', shellQuote('Authorization: Bearer <TOKEN>'));
  if (e.outcomeAsked) parts.push('-H', shellQuote('Prefer: outcome=' + e.outcomeAsked));
  // The request's own content type (an empty value makes curl send none, not its form default).
  if (e.body)
    parts.push('-H', shellQuote('content-type: ' + (e.contentType || '')), '--data-raw', shellQuote(e.body));
  return parts.join(' ');
}

function renderDetail() {
  const e = entries.find((x) => x.id === openId);
  $('journal-detail').hidden = !e;
  if (!e) return;
  $('journal-detail-id').textContent = '#' + e.id;
  const violations = Array.isArray(e.violations) ? e.violations : [];
  fill('journal-detail-body', [
    facts([
      ['Request', e.method + ' ' + fullPath(e), 'detail-request'],
      ['Status', String(e.status), 'detail-status'],
      ['Operation', e.operation, 'detail-operation'],
      ['Duration', Math.round(e.durationMs * 100) / 100 + ' ms', 'detail-duration'],
      ['Fault', e.fault, 'detail-fault'],
      ['Outcome asked', e.outcomeAsked && 'Prefer: outcome=' + e.outcomeAsked, 'detail-outcome-asked'],
      [
        'Account',
        e.account ? (names.get(e.account) ? names.get(e.account) + ' \u00b7 ' : '') + e.account : undefined,
        'detail-account',
      ],
      ['At', iso(e.at)],
    ]),
    violations.length
      ? h(
          'div.violations',
          { testid: 'detail-violations' },
          h('h3.sub-h', 'Spec violations'),
          h(
            'ul',
            violations.map((v) =>
              h('li', { testid: 'detail-violation' }, h('code', String(v.path)), ' ', String(v.message)),
            ),
          ),
        )
      : null,
    h('h3.sub-h', 'Request body'),
    h('pre.json', { testid: 'detail-request-body' }, pretty(e.body) || '(none)'),
    h('h3.sub-h', 'Response body'),
    h('pre.json', { testid: 'detail-response-body' }, pretty(e.response) || '(none)'),
  ]);
  // Asked once per exchange opened, for its account alone, so no key sits in the page's data.
  if (mode === 'simulator' && e.account && shownKey.id !== e.id) {
    shownKey = { id: e.id, key: undefined, held: true };
    const asked = shownKey;
    api('accounts/' + encodeURIComponent(e.account) + '/key')
      .then(
        (answer) => (asked.key = answer.apiKey),
        () => (asked.held = false),
      )
      .then(() => shownKey === asked && renderDetail());
  }
  const keyed = e.account || /^\/v1\//.test(e.path);
  const key = shownKey.id === e.id ? shownKey.key : undefined;
  $('curl-command').textContent = curlFor(e, key);
  // A placeholder is explained once it is sure no key will come.
  const asking = mode === 'simulator' && e.account && shownKey.id === e.id && shownKey.held;
  const where = CURL_KEY[mode] || (e.account ? CURL_KEY.restored : CURL_KEY.unknown);
  $('curl-note').textContent = !keyed || key || asking ? '' : 'Replace <API_KEY> with ' + where;
}

/** Shows these entries (oldest first or newest first, any order: shown newest first) of a simulator in `shownMode`. */
export function renderJournal(list, accounts, shownMode) {
  mode = shownMode || 'simulator';
  entries = list.slice().sort((a, b) => b.id - a.id);
  names = new Map(accounts.map((a) => [a.walletAddress, a.name]));
  const select = $('filter-account');
  const chosen = select.value || new URLSearchParams(location.hash.slice(1)).get('account') || '';
  select.replaceChildren(
    h('option', { value: '' }, 'any'),
    ...accounts.map((a) =>
      h('option', { value: a.walletAddress }, a.name + ' \u00b7 ' + short(a.walletAddress)),
    ),
  );
  select.value = chosen;
  const ops = [...new Set(entries.map((e) => e.operation).filter(Boolean))].sort();
  fill(
    'operations',
    ops.map((op) => h('option', { value: op })),
  );
  renderList();
  renderDetail();
}

export function setupJournal() {
  readFilters();
  const form = $('journal-filters');
  // Change fires again on blur: re-rendering then would swap rows under the pointer, eating a click.
  let last = JSON.stringify(currentFilters());
  const changed = () => {
    const now = JSON.stringify(currentFilters());
    if (now === last) return;
    last = now;
    writeFilters();
    renderList();
  };
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  form.addEventListener('submit', (event) => event.preventDefault());
  window.addEventListener('hashchange', () => {
    readFilters();
    renderList();
  });
  const select = (id) => {
    openId = id;
    renderList();
    renderDetail();
  };
  const open = (target) => {
    const row = target.closest('[data-testid="journal-row"]');
    if (!row) return;
    select(Number(row.getAttribute('data-journal-id')));
    $('journal-detail').scrollIntoView({ block: 'nearest' });
  };
  $('journal').addEventListener('click', (event) => open(event.target));
  $('journal').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') open(event.target);
  });
  $('journal-detail-close').addEventListener('click', () => select(undefined));
  $('copy-curl-button').addEventListener('click', async () => {
    const text = $('curl-command').textContent;
    try {
      await navigator.clipboard.writeText(text);
      $('copy-curl-button').textContent = 'Copied';
    } catch {
      $('copy-curl-button').textContent = 'Select the command below';
    }
    setTimeout(() => ($('copy-curl-button').textContent = 'Copy as curl'), 1500);
  });
}
