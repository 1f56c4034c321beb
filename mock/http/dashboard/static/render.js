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
      h(
        'span',
        { class: 'chip', testid: 'setting-' + k.replace(/\s+/g, '-') },
        h('span', null, k),
        h('b', null, v),
      ),
    ),
  );
}

export function renderAccounts(accounts, total) {
  $('accounts-count').textContent = counted(accounts.length, total);
  fill(
    'accounts',
    accounts.length === 0
      ? [emptyRow(8, 'No accounts. Create one with Create account.')]
      : accounts.map((a) => {
          const t = a.ledger.trx;
          const u = a.ledger.usdt;
          return h(
            'tr',
            { testid: 'account-row', data: { wallet: a.walletAddress } },
            h(
              'td',
              null,
              stack(
                h('b', { testid: 'account-name' }, a.name),
                copyable(a.walletAddress, a.walletAddress, 'account-wallet'),
              ),
            ),
            amountCell(t.available, 'balance-trx-available', ' sep'),
            amountCell(t.frozen, 'balance-trx-frozen'),
            amountCell(t.spent, 'balance-trx-spent'),
            amountCell(u.available, 'balance-usdt-available', ' sep'),
            amountCell(u.frozen, 'balance-usdt-frozen'),
            amountCell(u.spent, 'balance-usdt-spent'),
            h('td', { class: 'num sep', testid: 'account-orders' }, a.orders),
          );
        }),
  );
}

/** The steps so far and the next one, as a row of dots. */
export function timeline(order) {
  const start = order.createdAt;
  const parts = [];
  order.timeline.forEach((step, i) => {
    if (i > 0) parts.push(h('span', { class: 'link' }));
    parts.push(
      h(
        'span',
        {
          class: 'step s-' + step.status,
          title: step.status + ' at ' + iso(step.at) + (step.note ? ' (' + step.note + ')' : ''),
          testid: 'timeline-step',
          data: { status: step.status },
        },
        h('i'),
        step.status.toLowerCase() + ' ',
        h('em', null, i === 0 ? time(step.at) : '+' + span(step.at - start)),
      ),
    );
  });
  if (order.next) {
    parts.push(h('span', { class: 'link' }));
    parts.push(
      h(
        'span',
        {
          class: 'step next s-' + order.next.status,
          title: order.next.status + ' due at ' + iso(order.next.at),
          testid: 'timeline-next',
        },
        h('i'),
        order.next.status.toLowerCase() + ' ',
        h('em', null, '+' + span(order.next.at - start)),
      ),
    );
  }
  return h('div', { class: 'timeline' }, parts);
}

const previousStatus = new Map();
let firstRender = true;

export function renderOrders(orders, accounts, total) {
  const names = new Map(accounts.map((a) => [a.walletAddress, a.name]));
  const counts = {};
  orders.forEach((o) => {
    counts[o.status] = (counts[o.status] || 0) + 1;
  });
  $('orders-count').textContent =
    typeof total === 'number'
      ? counted(orders.length, total)
      : orders.length + (orders.length >= 50 ? ' newest' : '');
  fill(
    'orders-summary',
    STATUSES.filter((s) => counts[s]).map((s) =>
      h('span', { class: 'badge plain s-' + s }, counts[s] + ' ' + s.toLowerCase()),
    ),
  );
  fill(
    'orders',
    orders.length === 0
      ? [
          emptyRow(
            6,
            'No orders yet. Create one through the API, e.g. ',
            h('code', null, 'POST /v1/tron/order'),
            ' with an ',
            h('code', null, 'API-KEY'),
            ' header.',
          ),
        ]
      : orders.map((o) => {
          const changed = !firstRender && previousStatus.get(o.orderId) !== o.status;
          previousStatus.set(o.orderId, o.status);
          return h(
            'tr',
            {
              testid: 'order-row',
              class: 'clickable' + (changed ? ' changed' : ''),
              tabindex: 0,
              title: 'Open this order',
              data: { 'order-id': o.orderId, status: o.status },
            },
            h(
              'td',
              null,
              stack(
                h('span', { class: 'mono', testid: 'order-id' }, o.orderId),
                o.outOrderNo ? h('span', { class: 'small', testid: 'order-outorderno' }, o.outOrderNo) : null,
              ),
            ),
            h(
              'td',
              { class: 'nowrap' },
              stack(
                h('span', null, names.get(o.walletAddress) || ''),
                h('span', { class: 'small mono', title: o.walletAddress }, short(o.walletAddress)),
              ),
            ),
            h(
              'td',
              { class: 'num' },
              stack(
                h('span', null, o.rentalCount.toLocaleString('en')),
                small(o.period + (o.activatedAddress ? ' \u00b7 activates' : '')),
                chainNote(o.delegation),
              ),
            ),
            h(
              'td',
              { class: 'num', testid: 'order-amount' },
              o.amount,
              h('span', { class: 'amount-cur' }, o.currency),
            ),
            // The txId under the status it came with: one column less keeps the table
            // within its panel beside the controls.
            h(
              'td',
              null,
              stack(
                badge(o.status, 'order-status'),
                o.txId
                  ? copyable(o.txId, short(o.txId, 8, 6), 'order-txid')
                  : h('span', { class: 'faint small', testid: 'order-txid' }, 'no txId yet'),
              ),
            ),
            h('td', null, timeline(o)),
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
            h('td', null, copyable(a.address, a.address)),
            h(
              'td',
              null,
              stack(
                h(
                  'span',
                  { class: 'badge ' + (a.activated ? 's-COMPLETED' : 's-PENDING'), testid: 'address-state' },
                  a.activated ? 'activated' : 'not activated',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'ghost',
                    testid: 'toggle-address',
                    data: { address: a.address, activated: !a.activated },
                  },
                  a.activated ? 'Deactivate' : 'Activate',
                ),
              ),
            ),
            h(
              'td',
              null,
              stack(
                h(
                  'span',
                  { class: 'nowrap', title: a.activatedAt ? iso(a.activatedAt) : null },
                  a.activatedAt ? timeMs(a.activatedAt) : '\u2014',
                ),
                a.activatedByOrderId
                  ? h(
                      'span',
                      { class: 'small' },
                      'by ',
                      h('span', { class: 'mono', testid: 'address-order' }, a.activatedByOrderId),
                    )
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
      h('span', { class: 'mono', title: match.pledgeAddress }, short(match.pledgeAddress)),
    ]);
  if (match.outOrderNo) parts.push(['outOrderNo ', h('span', { class: 'mono' }, match.outOrderNo)]);
  if (parts.length === 0) return h('span', { class: 'muted' }, 'every order');
  return parts.reduce((all, part, i) => all.concat(i ? [' and '] : [], part), []);
}
const used = (n, times) => n + ' / ' + (times === undefined ? '\u221e' : times);
const remove = (kind, id) =>
  h(
    'button',
    {
      type: 'button',
      class: 'ghost',
      testid: 'delete-' + kind,
      data: { kind, id },
      'aria-label': 'Delete ' + id,
    },
    'Delete',
  );

/** What a fault does, in a few words. */
export function effect(f) {
  const effects = [];
  if (f.response === 'status')
    effects.push(
      'HTTP ' +
        (f.status || 503) +
        (f.withBody === false ? ', empty body' : '') +
        (f.withRetryAfter === false
          ? ', no Retry-After'
          : f.retryAfter !== undefined
            ? ', Retry-After ' + f.retryAfter + ' s'
            : ''),
    );
  else if (f.response === 'garbage') effects.push((f.garbageBytes || 64) + ' random bytes, then closed');
  else if (f.response === 'drip')
    effects.push('drip over ' + (f.dripMs || 1000) + ' ms in ' + (f.dripChunks || 10) + ' chunks');
  else if (f.response === 'reset') effects.push('connection reset');
  else if (f.response) effects.push(f.response);
  if (f.latencyMs || f.latencyMaxMs)
    effects.push('+' + (f.latencyMs || 0) + (f.latencyMaxMs ? '\u2013' + f.latencyMaxMs : '') + ' ms');
  if (f.latencyMedianMs)
    effects.push(
      '+~' +
        f.latencyMedianMs +
        ' ms lognormal, \u03c3 ' +
        (f.latencySigma === undefined ? 0.5 : f.latencySigma),
    );
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
            h('td', { class: 'mono' }, r.id),
            h('td', { testid: 'rule-match' }, matchText(r.match)),
            h('td', null, badge(r.outcome, 'rule-outcome')),
            h(
              'td',
              { class: 'num' },
              r.delayMs === undefined ? h('span', { class: 'faint' }, 'profile') : span(r.delayMs),
            ),
            h('td', { class: 'num', testid: 'rule-used' }, used(r.used, r.times)),
            h('td', null, remove('rule', r.id)),
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
            h('td', { class: 'mono' }, f.id),
            h('td', { class: 'mono', testid: 'fault-operation-cell' }, f.operation),
            h('td', { testid: 'fault-effect' }, effect(f)),
            h('td', { class: 'num' }, used(f.used, f.times)),
            h('td', null, remove('fault', f.id)),
          ),
        ),
  );
}

/** What the simulated TRON node shows of an order's energy: on chain until its expiry, or reclaimed. */
export function chainNote(delegation) {
  if (!delegation) return null;
  const on = delegation.state === 'delegated';
  return h(
    'span',
    {
      class: 'small chain ' + delegation.state,
      testid: 'order-chain',
      title: 'expire_time_for_energy ' + iso(delegation.expiresAt),
    },
    on ? 'on chain until ' + time(delegation.expiresAt) : 'reclaimed ' + time(delegation.expiresAt),
  );
}
