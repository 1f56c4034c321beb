// The dashboard's entry point: reads the snapshot on start, on each change event and action, and renders it.
import { api, base, token } from './api.js';
import { setupControls } from './controls.js';
import { renderCoverage } from './coverage.js';
import { $, dateTime, iso } from './dom.js';
import { renderJournal, setupJournal } from './journal.js';
import { renderModeView } from './modes.js';
import { renderOrderDetail, setupOrderDetail } from './orders.js';
import { renderAccounts, renderAddresses, renderOrders, renderRules, renderSettings } from './render.js';

let clock = { mode: 'real', now: Date.now(), offset: 0 };

function renderClock() {
  const now = clock.mode === 'real' ? Date.now() + clock.offset : clock.now;
  const el = $('clock-now');
  el.textContent = dateTime(now);
  el.title = iso(now) + ' (the simulator\u2019s ' + clock.mode + ' clock)';
}

function renderControls() {
  const manual = clock.mode === 'manual';
  const mode = $('clock-mode');
  mode.textContent = clock.mode + ' clock';
  mode.className = 'pill mode ' + clock.mode;
  for (const el of $('advance-form').querySelectorAll('input, button')) el.disabled = !manual;
  for (const hint of $('advance-hint').children) hint.hidden = hint.getAttribute('data-mode') !== clock.mode;
}

function render(data, journal, health) {
  clock = { mode: data.clock.mode, now: data.clock.now, offset: data.clock.now - Date.now() };
  const totals = data.totals || {};
  renderClock();
  renderControls();
  renderModeView(data.mode || (health && health.mode), health);
  renderSettings(data);
  renderAccounts(data.accounts, totals.accounts);
  renderOrders(data.orders, data.accounts, totals.orders);
  renderOrderDetail(data);
  renderAddresses(data.addresses, totals.addresses);
  renderRules(data.rules, data.faults);
  renderJournal(journal || data.journal, data.accounts, data.mode || (health && health.mode));
  document.body.setAttribute('data-loaded', 'true');
}

let loading = false;
let again = false;
let timer = 0;
function schedule(delay) {
  if (timer) return;
  timer = setTimeout(() => {
    timer = 0;
    load();
  }, delay ?? 120);
}
async function load() {
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  try {
    // The journal's own read holds more than the snapshot's newest few; health is optional.
    const [data, journal, health, coverage] = await Promise.all([
      api('dashboard'),
      api('journal?limit=500')
        .then((j) => j.entries)
        .catch(() => undefined),
      api('health').catch(() => undefined),
      api('coverage').catch(() => undefined),
    ]);
    render(data, journal, health);
    renderCoverage(coverage);
    $('auth-banner').hidden = true;
  } catch (error) {
    showBanner(error);
  } finally {
    loading = false;
    if (again) {
      again = false;
      schedule(0);
    }
  }
}
function showBanner(error) {
  const banner = $('auth-banner');
  banner.textContent =
    error.status === 401
      ? error.message +
        ' Open this page as /_sim/ui?token=<token>; the page keeps the token for this browser session.'
      : 'Could not read /_sim/dashboard: ' + error.message;
  banner.hidden = false;
}

function setConnection(state, text) {
  const pill = $('connection');
  pill.className = 'pill ' + state;
  pill.querySelector('.label').textContent = text;
}
function connect() {
  const url = new URL('events', base);
  if (token) url.searchParams.set('token', token);
  const source = new EventSource(url);
  setConnection('connecting', 'connecting');
  source.addEventListener('open', () => {
    setConnection('live', 'live');
    schedule(0);
  });
  source.addEventListener('change', () => schedule());
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (a wrong token, a restarted server): try again in a while.
      setConnection('offline', 'offline');
      setTimeout(connect, 3000);
    } else {
      setConnection('connecting', 'reconnecting');
    }
  });
}

document.addEventListener('click', (event) => {
  const target = event.target.closest('[data-copy]');
  if (!target || !navigator.clipboard) return;
  navigator.clipboard.writeText(target.getAttribute('data-copy')).then(
    () => {
      const before = target.title;
      target.title = 'Copied';
      setTimeout(() => (target.title = before), 1200);
    },
    () => {},
  );
});

setupControls(load);
setupJournal();
setupOrderDetail(load);
setInterval(() => {
  if (clock.mode === 'real') renderClock();
}, 250);
load();
connect();
