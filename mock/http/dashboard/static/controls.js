// The forms and buttons: each calls the control plane, then says what it did or the error's msg.
import { api } from './api.js';
import { $, dateTime, span } from './dom.js';

function say(testid, text, kind) {
  const el = $(testid);
  el.textContent = text;
  el.className = 'result ' + (kind || '');
}

/** Runs one action: "…", then its message or the error's, then a reload. */
export function act(testid, run, reload) {
  say(testid, '\u2026');
  return run()
    .then(
      (message) => say(testid, message, 'ok'),
      (error) => say(testid, error.message, 'error'),
    )
    .then(reload);
}

const number = (value) => (String(value).trim() === '' ? undefined : Number(value));
/** Copies the form's filled-in numbers of `keys` into `into`. */
function numbers(form, keys, into) {
  for (const key of keys) if (number(form.get(key)) !== undefined) into[key] = number(form.get(key));
}
const FAULT_NUMBERS = 'latencyMs latencyMaxMs latencyMedianMs latencySigma times probability'.split(' ');
/** The form's trx and usdt amounts that are filled in. */
const amounts = (form) =>
  Object.fromEntries(['trx', 'usdt'].map((k) => [k, String(form.get(k)).trim()]).filter(([, v]) => v));

/** The clock control, shared with the order detail's "advance to the next step". */
export async function advanceBy(ms) {
  const moved = await api('clock/advance', { method: 'POST', body: { ms } });
  return 'Clock moved ' + span(ms) + ' to ' + dateTime(moved.now) + '.';
}

export function setupControls(reload) {
  const run = (testid, fn) => act(testid, fn, reload);
  const onSubmit = (id, fn) =>
    $(id).addEventListener('submit', (event) => {
      event.preventDefault();
      fn(new FormData(event.target), event.target);
    });

  const advance = (ms) => run('advance-result', () => advanceBy(ms));
  onSubmit('advance-form', () => advance(Number($('advance-ms').value)));
  document.querySelectorAll('.quick [data-ms]').forEach((button) =>
    button.addEventListener('click', () => {
      $('advance-ms').value = button.getAttribute('data-ms');
      advance(Number(button.getAttribute('data-ms')));
    }),
  );

  onSubmit('account-form', (form, el) => {
    const balance = amounts(form);
    $('created-account').hidden = true;
    run('account-result', async () => {
      const created = await api('accounts', {
        method: 'POST',
        body: Object.keys(balance).length ? { balance } : {},
      });
      $('created-account-name').textContent = created.name + ' (' + created.walletAddress + ')';
      $('created-api-key').textContent = created.apiKey;
      $('created-account').hidden = false;
      el.reset();
      return '';
    });
  });

  onSubmit('rule-form', (form) => {
    const rule = {
      match: { [form.get('kind')]: String(form.get('value')).trim() },
      outcome: form.get('outcome') || 'FAILED',
    };
    numbers(form, ['delayMs', 'times'], rule);
    run('rule-result', async () => {
      const added = await api('rules', { method: 'POST', body: rule });
      $('rule-match-value').value = '';
      const times = rule.times ? ` (${rule.times}\u00d7)` : '';
      const will = rule.outcome === 'FAILED' ? 'fail' : 'complete';
      return `Added ${added.id}: matching orders will ${will}${times}.`;
    });
  });

  // Each response shows only its own fields (rows marked data-for), and sends only those.
  const faultForm = $('fault-form');
  const showFaultFields = () => {
    const response = faultForm.elements.namedItem('response').value;
    for (const row of faultForm.querySelectorAll('[data-for]'))
      row.hidden = row.getAttribute('data-for') !== response;
  };
  faultForm.addEventListener('change', showFaultFields);
  faultForm.addEventListener('reset', () => setTimeout(showFaultFields));
  showFaultFields();

  onSubmit('fault-form', (form) => {
    const fault = { operation: String(form.get('operation')).trim() };
    const response = form.get('response');
    if (response) fault.response = response;
    if (response === 'status') {
      if (form.get('status')) fault.status = Number(form.get('status'));
      numbers(form, ['retryAfter'], fault);
      if (!form.get('withBody')) fault.withBody = false;
      if (!form.get('withRetryAfter')) fault.withRetryAfter = false;
    }
    const own = { garbage: ['garbageBytes'], drip: ['dripMs', 'dripChunks'] }[response] || [];
    numbers(form, [...own, ...FAULT_NUMBERS], fault);
    run('fault-result', async () => {
      const added = await api('faults', { method: 'POST', body: fault });
      // The answer holds the id only; what it hits is what was sent.
      const target = fault.operation === '*' ? 'every operation' : fault.operation;
      return 'Injected ' + added.id + ' on ' + target + '.';
    });
  });

  onSubmit('supply-form', (form) => {
    const energy = number(form.get('energy'));
    run('supply-result', async () => {
      const supply = await api('supply', {
        method: 'PUT',
        body: { energy: energy === undefined ? null : energy },
      });
      return (
        'Supply set to ' + (supply.energy === null ? 'unlimited' : supply.energy.toLocaleString('en')) + '.'
      );
    });
  });

  const setAddress = (testid, address, activated) =>
    run(testid, async () => {
      const state = await api('addresses/' + encodeURIComponent(address), {
        method: 'PUT',
        body: { activated },
      });
      return state.address + ' is ' + (state.activated ? 'activated' : 'not activated') + ' now.';
    });
  onSubmit('address-form', (form) =>
    setAddress('address-result', String(form.get('address')).trim(), form.get('activated') === 'true'),
  );

  onSubmit('config-form', (form) =>
    run('config-result', async () => {
      let patch;
      try {
        patch = JSON.parse(String(form.get('patch')));
      } catch (error) {
        throw new Error('The settings patch is not JSON: ' + error.message, { cause: error });
      }
      await api('config', { method: 'PATCH', body: patch });
      return 'Settings updated: ' + Object.keys(patch).join(', ') + '.';
    }),
  );

  onSubmit('deposit-form', (form, el) => {
    run('deposit-result', async () => {
      const { name, ledger } = await api('accounts/me/deposit', {
        method: 'POST',
        body: amounts(form),
        apiKey: String(form.get('apiKey')).trim(),
      });
      el.reset();
      return `Deposited into ${name}: ${ledger.trx.available} TRX, ${ledger.usdt.available} USDT available.`;
    });
  });

  $('scenario-button').addEventListener('click', () =>
    run('config-result', async () => {
      const pre = $('scenario');
      pre.textContent = JSON.stringify(await api('scenario'), null, 2);
      pre.hidden = false;
      return 'The starting scenario, every key redacted.';
    }),
  );

  const simAction = (testid, method, path, message) =>
    $(testid).addEventListener('click', () =>
      run('sim-result', async () => {
        await api(path, { method });
        return message;
      }),
    );
  simAction('reset-button', 'POST', 'reset', 'The simulator is reset.');
  simAction('clear-journal-button', 'DELETE', 'journal', 'The journal is cleared.');
  simAction('clear-rules-button', 'DELETE', 'rules', 'Every rule is deleted.');
  simAction('clear-faults-button', 'DELETE', 'faults', 'Every fault is deleted.');

  // Buttons inside tables are rebuilt on every render, so they are handled here once.
  document.addEventListener('click', (event) => {
    const del = event.target.closest('[data-testid="delete-rule"], [data-testid="delete-fault"]');
    if (del) {
      const kind = del.getAttribute('data-kind');
      const id = del.getAttribute('data-id');
      run(kind === 'rule' ? 'rule-result' : 'fault-result', async () => {
        await api((kind === 'rule' ? 'rules/' : 'faults/') + encodeURIComponent(id), { method: 'DELETE' });
        return 'Deleted ' + id + '.';
      });
      return;
    }
    const toggle = event.target.closest('[data-testid="toggle-address"]');
    if (toggle)
      setAddress(
        'address-result',
        toggle.getAttribute('data-address'),
        toggle.getAttribute('data-activated') === 'true',
      );
  });
}
