// In proxy and replay mode the engine's panels and controls are hidden, and a note says where traffic goes.
import { $ } from './dom.js';

const ENGINE_PANELS = ['accounts-panel', 'orders-panel', 'addresses-panel'];
const ENGINE_CONTROLS = [
  'supply-form',
  'address-form',
  'deposit-form',
  'clear-rules-button',
  'scenario-button',
];
// A whole card goes when everything in it is the engine's.
const ENGINE_CARDS = ['advance-form', 'account-form', 'rule-form'];

/** Shows the page for `mode` ('simulator', 'proxy' or 'replay'); health adds the proxy's counts. */
export function renderModeView(mode, health) {
  // The header's pill shows what /_sim/health says; no `mode` there is the simulator itself.
  const pill = $('sim-mode');
  const said = (health && health.mode) || 'simulator';
  const upstream = health && health.proxy && health.proxy.upstream;
  pill.hidden = said === 'simulator';
  pill.textContent = said + (upstream ? ' \u2192 ' + upstream : '');
  pill.title = upstream ? 'Requests go to ' + upstream : said;
  const engine = !mode || mode === 'simulator';
  for (const id of [...ENGINE_PANELS, ...ENGINE_CONTROLS]) $(id).hidden = !engine;
  for (const id of ENGINE_CARDS) $(id).hidden = $(id).closest('section').hidden = !engine;
  if (!engine) $('order-detail').hidden = true;
  $('mode-panel').hidden = engine;
  if (engine) return;
  const stats = (health && health.proxy) || {};
  const where = stats.upstream || (mode === 'proxy' ? 'the upstream' : 'the recording');
  $('mode-note').textContent =
    (mode === 'proxy'
      ? [
          `Proxy mode: every API call is forwarded to ${where}.`,
          `${stats.forwarded || 0} forwarded,`,
          `${stats.refusedOrders || 0} order creations refused by the spending guard,`,
          `${stats.violations || 0} spec violations. `,
        ].join(' ')
      : `Replay mode: the API is answered from ${where}. `) +
    'The journal below lists each exchange. The simulator\u2019s accounts, orders, rules, clock, supply and addresses do not apply in this mode and are hidden; faults and the rate limit work.';
}
