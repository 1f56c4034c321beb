// The snapshot's panels: settings, accounts, orders, addresses, rules and faults.
import {
  $,
  amountCell,
  badge,
  copyable,
  emptyRow,
  fill,
  h,
  iso,
  plural,
  short,
  small,
  span,
  stack,
  time,
  timeMs,
} from './dom.js';

const STATUSES = ['COMPLETED', 'PROCESSING', 'PENDING', 'FAILED', 'REFUNDED'];

/** "12" or "showing 12 of 340" when the snapshot says how many there are in all. */
export function counted(shown, total) {
  return typeof total === 'number' && total > shown ? 'showing ' + shown + ' of ' + total : String(shown);
}

export function renderSettings(data) {
  const s = data.settings;
  const supply =
    data.supply.energy === null
      ? 'unlimited'
      : data.supply.delegated.toLocaleString('en') + ' / ' + data.supply.energy.toLocaleString('en');
  const chips = [
    ['timing', s.timing],
    ['failure rate', +(s.failureRate * 100).toFixed(2) + ' %'],
    ['1h price', (s.prices['1h'] || '\u2013') + ' sun'],
    ['USDT per TRX', s.usdtPerTrx],
    ['activation delay', span(s.activationDelayMs)],
    ['supply', supply],
    ['duplicates', s.duplicateOutOrderNo],
    ['errors', s.errorStatus],
    ['rate limit', s.rateLimit ? s.rateLimit.requests + ' / ' + span(s.rateLimit.windowMs) : 'none'],
  ];
  fill(
    'settings',
    chips.map(([k, v]) =>
      h('span.chip', { testid: 'setting-' + k.replace(/\s+/g, '-') }, h('span', k), h('b', v)),
    ),
  );
}

export function renderAccounts(accounts, total) {
  $('accounts-count').textContent = counted(accounts.length, total);
  fill(
    'accounts',
    accounts.length === 0
      ? [emptyRow(8, 'No accounts. Create one with Create account.')]
      : accounts.map(({ ledger: { trx, usdt }, ...a }) =>
          h(
            'tr',
            { testid: 'account-row', data: { wallet: a.walletAddress } },
            h(
              'td',
              stack(
                h('b', { testid: 'account-name' }, a.name),
                copyable(a.walletAddress, a.walletAddress, 'account-wallet'),
              ),
            ),
            amountCell(trx.available, 'balance-trx-available', ' sep'),
            amountCell(trx.frozen, 'balance-trx-frozen'),
            amountCell(trx.spent, 'balance-trx-spent'),
            amountCell(usdt.available, 'balance-usdt-available', ' sep'),
            amountCell(usdt.frozen, 'balance-usdt-frozen'),
            amountCell(usdt.spent, 'balance-usdt-spent'),
            h('td.num.sep', { testid: 'account-orders' }, a.orders),
          ),
        ),
  );
}

/** The steps so far and the next one, as a row of dots. */
export function timeline(order) {
  const start = order.createdAt;
  const dot = (status, attrs, when) =>
    h('span.step.s-' + status, attrs, h('i'), status.toLowerCase() + ' ', h('em', when));
  const parts = order.timeline.map((step, i) => {
    const title = step.status + ' at ' + iso(step.at) + (step.note ? ' (' + step.note + ')' : '');
    const attrs = { title, testid: 'timeline-step', data: { status: step.status } };
    return dot(step.status, attrs, i === 0 ? time(step.at) : '+' + span(step.at - start));
  });
  const next = order.next;
  if (next) {
    const attrs = { class: 'next', title: next.status + ' due at ' + iso(next.at), testid: 'timeline-next' };
    parts.push(dot(next.status, attrs, '+' + span(next.at - start)));
  }
  return h(
    'div.timeline',
    parts.map((part, i) => [i > 0 ? h('span.link') : null, part]),
  );
}

const previousStatus = new Map();
let firstRender = true;

export function renderOrders(orders, accounts, total) {
  const names = new Map(accounts.map((a) => [a.walletAddress, a.name]));
  const counts = {};
  for (const o of orders) counts[o.status] = (counts[o.status] || 0) + 1;
  $('orders-count').textContent =
    typeof total === 'number'
      ? counted(orders.length, total)
      : orders.length + (orders.length >= 50 ? ' newest' : '');
  fill(
    'orders-summary',
    STATUSES.filter((s) => counts[s]).map((s) =>
      h('span.badge.plain.s-' + s, counts[s] + ' ' + s.toLowerCase()),
    ),
  );
  const empty = emptyRow(
    6,
    'No orders yet. Create one through the API, e.g. ',
    h('code', 'POST /v1/tron/order'),
    ' with an ',
    h('code', 'API-KEY'),
    ' header.',
  );
  fill(
    'orders',
    orders.length === 0
      ? [empty]
      : orders.map((o) => {
          const changed = !firstRender && previousStatus.get(o.orderId) !== o.status;
          previousStatus.set(o.orderId, o.status);
          return h(
            'tr.clickable',
            {
              testid: 'order-row',
              class: changed ? 'changed' : null,
              tabindex: 0,
              title: 'Open this order',
              data: { 'order-id': o.orderId, status: o.status },
            },
            h(
              'td',
              stack(
                h('span.mono', { testid: 'order-id' }, o.orderId),
                o.outOrderNo ? h('span.small', { testid: 'order-outorderno' }, o.outOrderNo) : null,
              ),
            ),
            h(
              'td.nowrap',
              stack(
                h('span', names.get(o.walletAddress) || ''),
                h('span.small.mono', { title: o.walletAddress }, short(o.walletAddress)),
              ),
            ),
            h(
              'td.num',
              stack(
                h('span', o.rentalCount.toLocaleString('en')),
                small(o.period + (o.activatedAddress ? ' \u00b7 activates' : '')),
                chainNote(o.delegation),
              ),
            ),
            h('td.num', { testid: 'order-amount' }, o.amount, h('span.amount-cur', o.currency)),
            // The txId under its status keeps the table within its panel beside the controls.
            h(
              'td',
              stack(
                badge(o.status, 'order-status'),
                o.txId
                  ? copyable(o.txId, short(o.txId, 8, 6), 'order-txid')
                  : h('span.faint.small', { testid: 'order-txid' }, 'no txId yet'),
              ),
            ),
            h('td', timeline(o)),
          );
        }),
  );
  firstRender = false;
}

export function renderAddresses(addresses, total) {
  $('addresses-count').textContent = counted(addresses.length, total);
  fill(
    'addresses',
    addresses.length === 0
      ? [emptyRow(3, 'No address known yet. The first order to an address activates it.')]
      : addresses.map((a) =>
          h(
            'tr',
            { testid: 'address-row', data: { address: a.address } },
            h('td', copyable(a.address, a.address)),
            h(
              'td',
              stack(
                h(
                  'span.badge',
                  { class: a.activated ? 's-COMPLETED' : 's-PENDING', testid: 'address-state' },
                  a.activated ? 'activated' : 'not activated',
                ),
                h(
                  'button.ghost',
                  {
                    type: 'button',
                    testid: 'toggle-address',
                    data: { address: a.address, activated: !a.activated },
                  },
                  a.activated ? 'Deactivate' : 'Activate',
                ),
              ),
            ),
            h(
              'td',
              stack(
                h(
                  'span.nowrap',
                  { title: a.activatedAt ? iso(a.activatedAt) : null },
                  a.activatedAt ? timeMs(a.activatedAt) : '\u2014',
                ),
                a.activatedByOrderId
                  ? h('span.small', 'by ', h('span.mono', { testid: 'address-order' }, a.activatedByOrderId))
                  : small(a.activated ? 'seeded or set by hand' : ''),
              ),
            ),
          ),
        ),
  );
}

function matchText(match) {
  const parts = [];
  if (match.pledgeAddress)
    parts.push([
      'pledgeAddress ',
      h('span.mono', { title: match.pledgeAddress }, short(match.pledgeAddress)),
    ]);
  if (match.outOrderNo) parts.push(['outOrderNo ', h('span.mono', match.outOrderNo)]);
  if (parts.length === 0) return h('span.muted', 'every order');
  return parts.map((part, i) => [i ? ' and ' : null, part]);
}
const used = (n, times) => n + ' / ' + (times === undefined ? '\u221e' : times);
const remove = (kind, id) =>
  h(
    'button.ghost',
    { type: 'button', testid: 'delete-' + kind, data: { kind, id }, 'aria-label': 'Delete ' + id },
    'Delete',
  );

/** What a fault does, in a few words. */
export function effect(f) {
  const effects = [];
  if (f.response === 'status') {
    const retry =
      f.withRetryAfter === false
        ? ', no Retry-After'
        : f.retryAfter !== undefined
          ? ', Retry-After ' + f.retryAfter + ' s'
          : '';
    effects.push('HTTP ' + (f.status || 503) + (f.withBody === false ? ', empty body' : '') + retry);
  } else if (f.response === 'garbage') effects.push((f.garbageBytes || 64) + ' random bytes, then closed');
  else if (f.response === 'drip')
    effects.push('drip over ' + (f.dripMs || 1000) + ' ms in ' + (f.dripChunks || 10) + ' chunks');
  else if (f.response === 'reset') effects.push('connection reset');
  else if (f.response) effects.push(f.response);
  if (f.latencyMs || f.latencyMaxMs)
    effects.push('+' + (f.latencyMs || 0) + (f.latencyMaxMs ? '\u2013' + f.latencyMaxMs : '') + ' ms');
  if (f.latencyMedianMs) {
    const sigma = f.latencySigma === undefined ? 0.5 : f.latencySigma;
    effects.push('+~' + f.latencyMedianMs + ' ms lognormal, \u03c3 ' + sigma);
  }
  if (f.probability !== undefined && f.probability < 1) effects.push('p ' + f.probability);
  return effects.join(' \u00b7 ');
}

export function renderRules(rules, faults) {
  $('rules-count').textContent = plural(rules.length, 'rule') + ' \u00b7 ' + plural(faults.length, 'fault');
  fill(
    'rules',
    rules.length === 0
      ? [emptyRow(6, 'No rules: outcomes follow the failure rate.')]
      : rules.map((r) =>
          h(
            'tr',
            { testid: 'rule-row', data: { 'rule-id': r.id } },
            h('td.mono', r.id),
            h('td', { testid: 'rule-match' }, matchText(r.match)),
            h('td', badge(r.outcome, 'rule-outcome')),
            h('td.num', r.delayMs === undefined ? h('span.faint', 'profile') : span(r.delayMs)),
            h('td.num', { testid: 'rule-used' }, used(r.used, r.times)),
            h('td', remove('rule', r.id)),
          ),
        ),
  );
  fill(
    'faults',
    faults.length === 0
      ? [emptyRow(5, 'No faults injected.')]
      : faults.map((f) =>
          h(
            'tr',
            { testid: 'fault-row', data: { 'fault-id': f.id } },
            h('td.mono', f.id),
            h('td.mono', { testid: 'fault-operation-cell' }, f.operation),
            h('td', { testid: 'fault-effect' }, effect(f)),
            h('td.num', used(f.used, f.times)),
            h('td', remove('fault', f.id)),
          ),
        ),
  );
}

/** What the simulated TRON node shows of an order's energy: on chain until its expiry, or reclaimed. */
export function chainNote(delegation) {
  if (!delegation) return null;
  return h(
    'span.small.chain.' + delegation.state,
    { testid: 'order-chain', title: 'expire_time_for_energy ' + iso(delegation.expiresAt) },
    (delegation.state === 'delegated' ? 'on chain until ' : 'reclaimed ') + time(delegation.expiresAt),
  );
}
