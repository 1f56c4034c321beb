// DOM building and formatting: every dynamic value goes in as text, never as markup.

/** The element with this data-testid. */
export const $ = (id) => document.querySelector('[data-testid="' + id + '"]');

/** h('td.num', { testid: 'x', title: 't', data: { k: v } }, ...children); the attributes may be left out. */
export function h(tag, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name);
  const attrs = (children[0] === null || children[0]?.constructor === Object ? children.shift() : null) || {};
  if (attrs.class) classes.push(attrs.class);
  if (classes.length > 0) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false || key === 'class') continue;
    if (key === 'testid') el.setAttribute('data-testid', value);
    else if (key === 'data')
      for (const [k, v] of Object.entries(value)) el.setAttribute('data-' + k, String(v));
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(el, child) {
  if (child === undefined || child === null || child === false) return;
  if (Array.isArray(child)) return child.forEach((c) => append(el, c));
  el.append(child instanceof Node ? child : String(child));
}

export function fill(testid, rows) {
  const el = $(testid);
  el.replaceChildren();
  append(el, rows);
}

export const emptyRow = (cols, ...children) => h('tr.empty', h('td', { colspan: cols }, children));

const pad = (n, w) => String(n).padStart(w || 2, '0');
export function time(ms) {
  const d = new Date(ms);
  return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
}
export function timeMs(ms) {
  return time(ms) + '.' + pad(new Date(ms).getMilliseconds(), 3);
}
export function dateTime(ms) {
  const d = new Date(ms);
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + timeMs(ms);
}
export function iso(ms) {
  return new Date(ms).toISOString();
}
const trim = (fixed) => (fixed.indexOf('.') === -1 ? fixed : fixed.replace(/\.?0+$/, ''));
/** A duration for people: 950 ms, 4.5 s, 3 min 5 s, 1.5 h, 2 d. */
export function span(ms) {
  const abs = Math.abs(ms);
  if (abs < 1000) return Math.round(ms) + ' ms';
  if (abs < 60000) return trim((ms / 1000).toFixed(abs < 10000 ? 2 : 1)) + ' s';
  if (abs < 3600000) {
    const seconds = Math.round((ms % 60000) / 1000);
    return Math.floor(ms / 60000) + ' min' + (seconds ? ' ' + seconds + ' s' : '');
  }
  if (abs < 86400000) return trim((ms / 3600000).toFixed(1)) + ' h';
  return trim((ms / 86400000).toFixed(1)) + ' d';
}
export function short(value, head = 6, tail = 4) {
  return value.length > head + tail + 1 ? value.slice(0, head) + '\u2026' + value.slice(-tail) : value;
}
export function plural(n, word) {
  return n + ' ' + word + (n === 1 ? '' : 's');
}
export const amountCell = (value, testid, extra) =>
  h('td.num', { class: (extra || '') + (Number(value) === 0 ? ' zero' : ''), testid }, value);
export const badge = (status, testid) => h('span.badge.s-' + status, { testid }, status);
export const copyable = (full, shown, testid) =>
  h('span.mono.copyable', { title: full + ' (click to copy)', data: { copy: full }, testid }, shown);
export const stack = (...children) => h('div.stack', children);
export const small = (text) => h('span.small', text);

/** Pretty JSON when the text is JSON, the text itself otherwise. */
export function pretty(value) {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

/** A definition list of [term, value] pairs; values may be nodes. */
export function facts(pairs) {
  return h(
    'dl.facts',
    pairs
      .filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== '')
      .map(([k, v, testid]) => [h('dt', k), h('dd', { testid }, v)]),
  );
}
