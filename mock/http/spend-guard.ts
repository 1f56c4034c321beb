/**
 * The proxy's spending guard: no order is forwarded without `--allow-spend`, at most
 * `--max-orders`, within `--max-spend`; a forwarded order counts whatever the answer.
 */
import { formatUnits, SimulatorError } from '../engine/index.ts';
import { decodeText } from './request-body.ts';

/** A form's text every server reads alike: unescaped query characters and well-formed escapes. */
const PLAIN_FORM = /^(?:[A-Za-z0-9!$'()*+,./:=?@_~&-]|%[0-9A-Fa-f]{2})*$/;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/**
 * The parameters of an order as any upstream reads them, or the 400 naming one read otherwise.
 *
 * @example
 *   orderParams('rentalCount=64000', 'period=1h', 'application/x-www-form-urlencoded'); // Map { rentalCount → '64000', period → '1h' }
 *   orderParams('rentalCount=64000', 'rentalCount=1', 'application/x-www-form-urlencoded'); // throws: 'rentalCount' given twice
 */
export function orderParams(
  query: string | undefined,
  body: Uint8Array | undefined,
  contentType: string | undefined,
): Map<string, string> {
  const params = new Map<string, string>();
  const seen = new Set<string>();
  const refuse = (parameter: string, why: string): never => {
    const message = `Order not forwarded: ${why}; the proxy forwards an order only when every server reads its parameters alike, so that what it prices and counts is what the upstream reads.`;
    throw Object.assign(new SimulatorError('bodyInvalid', message), { parameter });
  };
  const read = (text: string, where: string): void => {
    if (!PLAIN_FORM.test(text)) refuse(where, `the ${where} is not plain form encoding`);
    for (const pair of text.split('&')) {
      if (pair === '') continue;
      const [rawName = '', ...rest] = pair.split('=');
      let name = rawName;
      let value = rest.join('=');
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
        value = decodeURIComponent(value.replace(/\+/g, ' '));
      } catch {
        refuse(where, `the ${where} holds an escape that is not UTF-8 ('${pair.slice(0, 64)}')`);
      }
      // Names differing only in case count as one: some servers read them so.
      if (seen.has(name.toLowerCase())) refuse(name, `parameter '${name}' is given more than once`);
      seen.add(name.toLowerCase());
      params.set(name, value);
    }
  };
  if (query !== undefined) read(query, 'query string');
  if (body !== undefined && body.byteLength > 0) {
    if (!FORM_TYPE.test(contentType ?? ''))
      refuse(
        'Content-Type',
        `its body is ${contentType ? `'${contentType.slice(0, 64)}'` : 'of no content type'}, not application/x-www-form-urlencoded (UTF-8)`,
      );
    read(decodeText(body), 'form body');
  }
  return params;
}

export interface SpendGuard {
  /** Takes the next order when it fits, else counts it refused and says why; `cost` is asked under `--max-spend`. */
  admit(cost: () => Promise<{ sun?: number; why?: string }>): Promise<string | undefined>;
  /** Counts an order attempt answered before the guard was asked (another spelling or method). */
  refuse(): void;
  /** Orders refused so far. */
  readonly refused: number;
}

export interface SpendGuardOptions {
  allowSpend: boolean;
  /** Orders one run may forward; unlimited when absent. */
  maxOrders?: number | undefined;
  /** What the orders of one run may cost in all, in sun; unlimited when absent. */
  maxSpendSun?: number | undefined;
}

/**
 * Creates a guard for one proxy run.
 *
 * @example
 *   const guard = createSpendGuard({ allowSpend: true, maxOrders: 1 });
 *   await guard.admit(price); // undefined
 *   await guard.admit(price); // 'Order not forwarded: --max-orders 1 ...'
 */
export function createSpendGuard(options: SpendGuardOptions): SpendGuard {
  let forwarded = 0;
  let refused = 0;
  let spentSun = 0;

  const check = (): string | undefined => {
    if (!options.allowSpend)
      return 'Order not forwarded: creating an order on the upstream spends real TRX. Start the proxy with --allow-spend (ENERGY_SIM_ALLOW_SPEND=1) to forward orders.';
    if (options.maxOrders !== undefined && forwarded >= options.maxOrders)
      return `Order not forwarded: --max-orders ${options.maxOrders} allows no more, ${forwarded} ${forwarded === 1 ? 'order was' : 'orders were'} forwarded in this run already. Restart the proxy, or raise --max-orders.`;
    return undefined;
  };

  const overSpend = (max: number, { sun, why }: { sun?: number; why?: string }): string | undefined => {
    if (sun === undefined)
      return `Order not forwarded: its cost could not be known (${why ?? 'no price'}), and --max-spend ${formatUnits(max)} TRX forwards only an order whose cost it knows.`;
    if (spentSun + sun > max)
      return `Order not forwarded: it costs ${formatUnits(sun)} TRX at the upstream's price, and with the ${formatUnits(spentSun)} TRX of this run's orders that passes --max-spend ${formatUnits(max)} TRX. Restart the proxy, or raise --max-spend.`;
    return undefined;
  };

  return {
    async admit(cost) {
      let reason = check();
      let sun = 0;
      if (!reason && options.maxSpendSun !== undefined) {
        const known = await cost();
        // Checked again: other orders may have been forwarded while the price was asked.
        reason = check() ?? overSpend(options.maxSpendSun, known);
        sun = known.sun ?? 0;
      }
      if (reason) {
        refused++;
        return reason;
      }
      forwarded++;
      spentSun += sun;
      return undefined;
    },
    refuse() {
      refused++;
    },
    get refused() {
      return refused;
    },
  };
}
