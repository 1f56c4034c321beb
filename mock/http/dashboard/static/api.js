// Same-origin calls to the control plane: writes are JSON; the control token, when given, rides along.
const TOKEN_KEY = 'energy-rental-kit.token';
export const base = new URL('./', location.href);

// The token arrives once in the address; kept for the session, it leaves the address bar (and history).
export const token = (() => {
  const url = new URL(location.href);
  const given = url.searchParams.get('token');
  if (given !== null) {
    sessionStorage.setItem(TOKEN_KEY, given);
    url.searchParams.delete('token');
    history.replaceState(null, '', url);
  }
  return sessionStorage.getItem(TOKEN_KEY) || '';
})();

/** Calls `/_sim/<path>`; throws an Error carrying the envelope's `msg` and the status. */
export async function api(path, options = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = 'Bearer ' + token;
  if (options.apiKey) headers['API-KEY'] = options.apiKey;
  const method = options.method || 'GET';
  const write = method !== 'GET';
  if (write) headers['Content-Type'] = 'application/json';
  const res = await fetch(new URL(path, base), {
    method,
    headers,
    body: write ? JSON.stringify(options.body === undefined ? {} : options.body) : undefined,
    cache: 'no-store',
    credentials: 'same-origin',
    mode: 'same-origin',
  });
  const text = await res.text();
  let body;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const error = new Error((body && body.msg) || 'HTTP ' + res.status);
    error.status = res.status;
    throw error;
  }
  return body;
}
