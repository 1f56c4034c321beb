/**
 * The one cheap read a run makes before its cases: is the target there, and does it take
 * the key? Without it an unreachable URL or a wrong key fails every case alike, each with
 * a stack trace, and nothing says why.
 */
import { API_OPERATION_SPECS } from '../src/generated/lists.ts';
import { redactUrl } from '../mock/http/journal-redaction.ts';

/** How long the first read may take before the target counts as not reachable. */
export const TARGET_CHECK_TIMEOUT_MS = 10_000;

/** The network error's code (ECONNREFUSED, ENOTFOUND, …), else its message. */
function reasonOf(error: unknown): string {
  const e = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; errors?: { code?: string }[]; message?: string };
  };
  if (e?.name === 'TimeoutError') return `no answer within ${TARGET_CHECK_TIMEOUT_MS / 1000} s`;
  return e?.cause?.code ?? e?.cause?.errors?.[0]?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}

/**
 * Reads the account once at `baseUrl` with `apiKey`; resolves with one line saying why the
 * run cannot go on (not reachable, key rejected), or undefined when it can.
 *
 * @example
 *   await checkTarget('http://127.0.0.1:1', 'demo-key');
 *   // 'not reachable: http://127.0.0.1:1 (ECONNREFUSED) …'
 */
export async function checkTarget(
  baseUrl: string,
  apiKey: string,
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<string | undefined> {
  const base = baseUrl.replace(/\/+$/, '');
  const { method, path } = API_OPERATION_SPECS.getAccount;
  const shown = redactUrl(base);
  let response: Response;
  try {
    response = await fetchImpl(`${base}${path}`, {
      method,
      headers: { 'API-KEY': apiKey },
      signal: AbortSignal.timeout(TARGET_CHECK_TIMEOUT_MS),
    });
  } catch (error) {
    return `not reachable: ${shown} (${reasonOf(error)}); check --base-url (CONTRACT_BASE_URL) and that the server runs.`;
  }
  const body = (await response.json().catch(() => undefined)) as
    { code?: unknown; msg?: unknown } | undefined;
  // A service may answer a refused key with 200 and a code of its own (errorStatus always-200).
  const refusedInBody =
    response.ok && body && body.code !== 0 && typeof body.msg === 'string' && /key/i.test(body.msg);
  if (response.status === 401 || response.status === 403 || refusedInBody) {
    // The message is not repeated: a service may quote the key it refused.
    const code = typeof body?.code === 'number' ? `, code ${body.code}` : '';
    return `key rejected: ${shown} answered ${response.status}${code} to ${method} ${path} with the key given; check --api-key (CONTRACT_API_KEY).`;
  }
  return undefined;
}
