// In proxy and replay mode the simulator's engine answers nothing: its panels and
// controls are hidden (the control plane refuses them there), and a note says where
// the traffic goes; the journal below lists every forwarded exchange.
import { $, h } from './dom.js';

const ENGINE_PANELS = ['accounts-panel', 'orders-panel', 'addresses-panel', 'order-detail'];
const ENGINE_CONTROLS = [
  'advance-form',
  'account-form',
  'rule-form',
  'supply-form',
  'address-form',
  'deposit-form',
  'clear-rules-button',
  'scenario-button',
];
// A whole card goes when everything in it is the engine's.
const ENGINE_CARDS = ['advance-form', 'account-form', 'rule-form'];

function show(el, visible) {
  if (!el) return;
  el.hidden = !visible;
  el.style.display = visible ? '' : 'none';
}

function modePanel() {
  let panel = $('mode-panel');
  if (panel) return panel;
  panel = h(
    'section',
    { class: 'panel', testid: 'mode-panel' },
    h('h2', {}, 'Forwarded traffic'),
    h('div', { class: 'body' }, h('p', { testid: 'mode-note' })),
  );
  $('journal-panel').before(panel);
  return panel;
}

/** Shows the page for `mode` ('simulator', 'proxy' or 'replay'); health adds the proxy's counts. */
export function renderModeView(mode, health) {
  const engine = !mode || mode === 'simulator';
  for (const id of ENGINE_PANELS) if (engine || id !== 'order-detail') show($(id), engine);
  for (const id of ENGINE_CONTROLS) show($(id), engine);
  for (const id of ENGINE_CARDS) show($(id) && $(id).closest('section'), engine);
  if (engine) {
    show($('mode-panel'), false);
    return;
  }
  const panel = modePanel();
  show(panel, true);
  const stats = (health && health.proxy) || {};
  const where = stats.upstream || (mode === 'proxy' ? 'the upstream' : 'the recording');
  const note = panel.querySelector('[data-testid="mode-note"]');
  note.textContent =
    mode === 'proxy'
      ? 'Proxy mode: every API call is forwarded to ' +
        where +
        '. ' +
        (stats.forwarded || 0) +
        ' forwarded, ' +
        (stats.refusedOrders || 0) +
        ' order creations refused by the spending guard, ' +
        (stats.violations || 0) +
        ' spec violations. '
      : 'Replay mode: the API is answered from ' + where + '. ';
  note.append(
    'The journal below lists each exchange. The simulator\u2019s accounts, orders, rules, clock, supply and addresses do not apply in this mode and are hidden; faults and the rate limit work.',
  );
}
