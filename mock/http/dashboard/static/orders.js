// One order in detail, from the snapshot (/_sim/orders/{id} needs the account's key), and with a
// manual clock a button that advances to its next step.
import { api } from './api.js';
import { act, advanceBy } from './controls.js';
import { $, badge, facts, fill, h, iso, short, span } from './dom.js';

let openId;
let snapshot;

export function renderOrderDetail(data) {
  snapshot = data;
  const order = openId && data.orders.find((o) => o.orderId === openId);
  $('order-detail').hidden = !order;
  if (!order) return;
  $('order-detail-id').textContent = order.orderId;
  const start = order.createdAt;
  const steps = order.timeline.map((step) =>
    h(
      'li',
      { testid: 'order-detail-step', data: { status: step.status } },
      badge(step.status),
      ' ',
      h('span.mono', iso(step.at)),
      ' ',
      h('span.muted', '+' + span(step.at - start)),
      step.note ? [' \u00b7 ', step.note] : null,
    ),
  );
  const next = order.next;
  fill('order-detail-body', [
    facts([
      ['Status', badge(order.status, 'order-detail-status')],
      ['outOrderNo', order.outOrderNo, 'order-detail-outorderno'],
      ['Account', order.walletAddress],
      ['Pledge address', order.pledgeAddress],
      ['Energy', order.rentalCount.toLocaleString('en') + ' \u00b7 ' + order.period],
      ['Amount', order.amount + ' ' + order.currency],
      ['txId', order.txId],
      [
        'Next step',
        next
          ? next.status + ' at ' + iso(next.at) + ' (in ' + span(next.at - data.clock.now) + ')'
          : 'none: the order is final',
        'order-detail-next',
      ],
    ]),
    h('ol.steps', steps),
    h('div', { testid: 'order-detail-chain' }),
  ]);
  const button = $('advance-next-button');
  button.hidden = !(next && data.clock.mode === 'manual');
  renderChain(order.pledgeAddress, data.clock.now);
}

// The order's address as the simulated TRON node shows it (GET /_sim/addresses/{address}).
async function renderChain(address, now) {
  let view;
  try {
    view = (await api('addresses/' + encodeURIComponent(address))).chain;
  } catch (error) {
    fill('order-detail-chain', [h('p.muted', 'On chain: ' + error.message)]);
  }
  if (!view) return;
  const since = (at) => (at > now ? 'in ' + span(at - now) : span(now - at) + ' ago');
  const delegations = view.delegations.map((d) =>
    h(
      'li',
      { testid: 'order-detail-delegation', data: { state: d.state } },
      d.energy.toLocaleString('en') + ' energy from ' + short(d.from) + ' \u00b7 ',
      h('strong', d.state),
      ' \u00b7 expires ' + iso(d.expiresAt) + ' (' + since(d.expiresAt) + ')',
    ),
  );
  fill('order-detail-chain', [
    h('h3.sub-h', 'On chain \u00b7 ' + address),
    facts([
      [
        'Account',
        view.exists
          ? 'since ' + iso(view.createTime) + (view.confirmed ? '' : ' (not yet in confirmed blocks)')
          : 'none: getaccount answers {}',
        'order-detail-chain-account',
      ],
      ['Energy', view.energyLimit.toLocaleString('en') + ' (EnergyLimit)', 'order-detail-chain-energy'],
      ['Stake', (view.stakeSun / 1e6).toLocaleString('en') + ' TRX delegated'],
      ['USDT', view.usdt],
    ]),
    delegations.length > 0 ? h('ol.steps', delegations) : h('p.muted', 'No delegation yet.'),
  ]);
}

export function setupOrderDetail(reload) {
  const open = (target) => {
    const row = target.closest('[data-testid="order-row"]');
    if (!row || target.closest('[data-copy]')) return;
    openId = row.getAttribute('data-order-id');
    if (snapshot) renderOrderDetail(snapshot);
    $('order-detail').scrollIntoView({ block: 'nearest' });
  };
  $('orders').addEventListener('click', (event) => open(event.target));
  $('orders').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') open(event.target);
  });
  $('order-detail-close').addEventListener('click', () => {
    openId = undefined;
    $('order-detail').hidden = true;
  });
  $('advance-next-button').addEventListener('click', () => {
    const order = snapshot && snapshot.orders.find((o) => o.orderId === openId);
    if (!order || !order.next) return;
    act('order-detail-result', () => advanceBy(Math.max(0, order.next.at - snapshot.clock.now)), reload);
  });
}
