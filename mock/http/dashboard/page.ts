/**
 * The live dashboard page served at /_sim/ui: one self-contained HTML document with
 * its CSS and JavaScript inline, nothing fetched from elsewhere, no build step.
 *
 * It is a module rather than an .html file read from disk so that it travels with the
 * code into dist/ (npm run build) and the Docker image. It sits in String.raw, so the
 * page needs no escaping as long as it holds no backtick and no dollar-brace (the
 * script builds its DOM with h() and plain string concatenation).
 */
export const DASHBOARD_PAGE: string = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Energy Rental simulator · live dashboard</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath fill='%232563eb' d='M13 2 4 14h7l-1 8 9-12h-7z'/%3E%3C/svg%3E">
<style>
  :root {
    color-scheme: light dark;
    --bg: #f4f6fa;
    --panel: #ffffff;
    --panel-2: #f8fafc;
    --line: #e3e8ef;
    --line-strong: #cdd5df;
    --text: #111827;
    --muted: #64748b;
    --faint: #94a3b8;
    --accent: #2563eb;
    --accent-soft: #dbeafe;
    --shadow: 0 1px 2px rgba(15, 23, 42, .05), 0 4px 16px rgba(15, 23, 42, .04);
    --pending: #64748b;    --pending-bg: #eef1f5;
    --processing: #1d4ed8; --processing-bg: #dbeafe;
    --completed: #047857;  --completed-bg: #d1fae5;
    --failed: #b91c1c;     --failed-bg: #fee2e2;
    --refunded: #b45309;   --refunded-bg: #fef3c7;
    --mono: ui-monospace, "SF Mono", "Cascadia Code", "JetBrains Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace;
    --sans: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "DejaVu Sans", Arial, sans-serif;
  }
  @media (prefers-color-scheme: dark) {
    :root {
      --bg: #0b1020; --panel: #121a2e; --panel-2: #0f1628; --line: #223049; --line-strong: #2e3f5e;
      --text: #e5e9f2; --muted: #93a0b8; --faint: #64748b; --accent: #60a5fa; --accent-soft: #1e3a5f;
      --shadow: 0 1px 2px rgba(0, 0, 0, .3);
      --pending: #a3afc2;    --pending-bg: #1f2a3f;
      --processing: #93c5fd; --processing-bg: #1e3a66;
      --completed: #6ee7b7;  --completed-bg: #0f3d2e;
      --failed: #fca5a5;     --failed-bg: #4c1d1d;
      --refunded: #fcd34d;   --refunded-bg: #4a3510;
    }
  }
  * { box-sizing: border-box; }
  [hidden] { display: none !important; }
  html { -webkit-text-size-adjust: 100%; }
  body {
    margin: 0; background: var(--bg); color: var(--text);
    font: 14px/1.45 var(--sans); font-feature-settings: "cv11", "ss01";
  }
  .mono, code { font-family: var(--mono); font-size: 12.5px; }
  .num { font-variant-numeric: tabular-nums; text-align: right; white-space: nowrap; }
  .muted { color: var(--muted); }
  .faint { color: var(--faint); }
  .nowrap { white-space: nowrap; }

  /* Header */
  header.top {
    position: sticky; top: 0; z-index: 5;
    display: flex; align-items: center; gap: 16px; flex-wrap: wrap;
    padding: 12px 24px; background: color-mix(in srgb, var(--panel) 88%, transparent);
    backdrop-filter: saturate(1.4) blur(8px); border-bottom: 1px solid var(--line);
  }
  .brand { display: flex; align-items: center; gap: 10px; margin-right: auto; }
  .logo {
    width: 32px; height: 32px; border-radius: 9px; display: grid; place-items: center;
    background: linear-gradient(135deg, #2563eb, #7c3aed); color: white; flex: none;
  }
  .brand h1 { font-size: 16px; margin: 0; letter-spacing: -.01em; }
  .brand .sub { font-size: 12px; color: var(--muted); }
  .clock { display: flex; align-items: center; gap: 8px; }
  .clock-now { font-family: var(--mono); font-size: 13px; font-variant-numeric: tabular-nums; }
  .pill {
    display: inline-flex; align-items: center; gap: 6px; padding: 3px 10px; border-radius: 999px;
    font-size: 12px; font-weight: 600; border: 1px solid var(--line); background: var(--panel-2); white-space: nowrap;
  }
  .pill .dot { width: 7px; height: 7px; border-radius: 50%; background: var(--faint); }
  .pill.live .dot { background: #10b981; box-shadow: 0 0 0 3px color-mix(in srgb, #10b981 25%, transparent); }
  .pill.connecting .dot { background: #f59e0b; }
  .pill.offline .dot { background: #ef4444; }
  .mode { text-transform: uppercase; letter-spacing: .05em; font-size: 10.5px; }
  .mode.manual { color: var(--processing); background: var(--processing-bg); border-color: transparent; }

  main { max-width: 1440px; margin: 0 auto; padding: 20px 24px 48px; display: grid; gap: 18px; }
  .banner {
    padding: 12px 16px; border-radius: 10px; border: 1px solid var(--failed); background: var(--failed-bg); color: var(--failed);
  }

  /* Settings summary */
  .chips { display: flex; flex-wrap: wrap; gap: 8px; }
  .chip {
    display: inline-flex; gap: 6px; align-items: baseline; padding: 5px 10px; border-radius: 8px;
    background: var(--panel); border: 1px solid var(--line); font-size: 12.5px;
  }
  .chip b { font-weight: 600; }
  .chip span { color: var(--muted); }

  /* Panels */
  .grid { display: grid; gap: 18px; }
  .grid.controls { grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); }
  .grid.two { grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); }
  @media (max-width: 520px) { .grid.two { grid-template-columns: 1fr; } main, header.top { padding-left: 12px; padding-right: 12px; } }
  section.panel {
    background: var(--panel); border: 1px solid var(--line); border-radius: 12px; box-shadow: var(--shadow);
    min-width: 0; overflow: hidden;
  }
  .panel > h2 {
    display: flex; align-items: baseline; gap: 10px; margin: 0; padding: 12px 16px;
    font-size: 13px; font-weight: 650; letter-spacing: .02em; text-transform: uppercase; color: var(--muted);
    border-bottom: 1px solid var(--line);
  }
  .panel > h2 .count { font-weight: 500; text-transform: none; letter-spacing: 0; color: var(--faint); }
  .panel > h2 .right { margin-left: auto; display: inline-flex; flex-wrap: wrap; gap: 6px; text-transform: none; letter-spacing: 0; font-weight: 500; }
  .panel .body { padding: 14px 16px 16px; }
  .sub-h { margin: 0; padding: 10px 16px 6px; font-size: 12px; font-weight: 600; color: var(--muted); }

  /* Forms */
  form { display: grid; gap: 10px; }
  .row { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; }
  label { display: grid; gap: 4px; font-size: 12px; color: var(--muted); flex: 1 1 90px; min-width: 0; }
  input, select {
    font: inherit; font-size: 13.5px; color: var(--text); background: var(--panel-2);
    border: 1px solid var(--line-strong); border-radius: 8px; padding: 7px 10px; width: 100%; min-width: 0;
  }
  input:focus, select:focus { outline: 2px solid color-mix(in srgb, var(--accent) 45%, transparent); outline-offset: 0; border-color: var(--accent); }
  button {
    font: inherit; font-size: 13.5px; font-weight: 600; cursor: pointer; border-radius: 8px; padding: 7px 14px;
    border: 1px solid var(--accent); background: var(--accent); color: white; white-space: nowrap;
  }
  button:hover:not(:disabled) { filter: brightness(1.08); }
  button.ghost { background: transparent; color: var(--accent); border-color: var(--line-strong); font-weight: 500; padding: 4px 10px; }
  button:disabled, input:disabled { opacity: .5; cursor: not-allowed; }
  .hint { font-size: 12px; color: var(--muted); margin: 0; }
  .result { font-size: 12.5px; margin: 0; }
  .result:empty { display: none; }
  .result.error { color: var(--failed); }
  .result.ok { color: var(--completed); }
  .secret {
    display: grid; gap: 6px; padding: 10px 12px; border-radius: 8px;
    background: var(--refunded-bg); color: var(--text); border: 1px dashed var(--refunded);
  }
  .secret code { word-break: break-all; font-size: 13px; font-weight: 600; }
  .secret .muted { font-size: 12px; }
  .quick { display: flex; gap: 6px; flex-wrap: wrap; }

  /* Tables */
  .table-wrap { overflow-x: auto; }
  table { width: 100%; border-collapse: collapse; }
  th, td { padding: 8px 12px; text-align: left; vertical-align: middle; border-bottom: 1px solid var(--line); }
  th {
    font-size: 11px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .05em;
    background: var(--panel-2); white-space: nowrap;
  }
  th.group { text-align: center; border-bottom: 1px solid var(--line); }
  th.num { text-align: right; }
  tr:last-child td { border-bottom: none; }
  tbody tr:hover td { background: color-mix(in srgb, var(--accent-soft) 35%, transparent); }
  td.sep, th.sep { border-left: 1px solid var(--line); }
  .empty td { text-align: center; color: var(--muted); padding: 22px 12px; }
  .empty code { background: var(--panel-2); padding: 2px 6px; border-radius: 6px; }
  .stack { display: grid; gap: 1px; }
  .stack .small { font-size: 12px; color: var(--muted); }
  .zero { color: var(--faint); }
  .amount-cur { color: var(--muted); font-size: 12px; margin-left: 3px; }
  @keyframes flash { from { background: color-mix(in srgb, #fde68a 70%, transparent); } to { background: transparent; } }
  tr.changed td { animation: flash 1.6s ease-out; }

  /* Status */
  .badge {
    display: inline-flex; align-items: center; gap: 6px; padding: 2px 9px; border-radius: 999px;
    font-size: 11.5px; font-weight: 650; letter-spacing: .02em; white-space: nowrap;
    color: var(--pending); background: var(--pending-bg);
  }
  .badge::before { content: ""; width: 6px; height: 6px; border-radius: 50%; background: currentColor; }
  .s-PENDING { --c: var(--pending); --cb: var(--pending-bg); }
  .s-PROCESSING { --c: var(--processing); --cb: var(--processing-bg); }
  .s-COMPLETED { --c: var(--completed); --cb: var(--completed-bg); }
  .s-FAILED { --c: var(--failed); --cb: var(--failed-bg); }
  .s-REFUNDED { --c: var(--refunded); --cb: var(--refunded-bg); }
  .badge[class*="s-"] { color: var(--c); background: var(--cb); }
  .badge.s-PROCESSING::before { animation: pulse 1.2s ease-in-out infinite; }
  @keyframes pulse { 50% { opacity: .25; } }
  .badge.plain::before { display: none; }

  .timeline { display: flex; align-items: center; gap: 4px; flex-wrap: nowrap; white-space: nowrap; font-size: 11.5px; }
  .step { display: inline-flex; align-items: center; gap: 4px; color: var(--c); }
  .step i { width: 8px; height: 8px; border-radius: 50%; background: var(--c); flex: none; }
  .step em { font-style: normal; color: var(--muted); font-variant-numeric: tabular-nums; }
  .step.next i { background: transparent; border: 1.5px dashed var(--c); }
  .step.next { opacity: .75; }
  .link { width: 14px; height: 1.5px; background: var(--line-strong); flex: none; }

  .http { font-family: var(--mono); font-size: 11.5px; font-weight: 600; }
  .code-2 { color: var(--completed); } .code-3 { color: var(--processing); }
  .code-4 { color: var(--refunded); } .code-5 { color: var(--failed); }
  .method { display: inline-block; min-width: 52px; font-family: var(--mono); font-size: 11px; font-weight: 700; color: var(--muted); }
  .method.POST { color: var(--processing); } .method.DELETE { color: var(--failed); }
  .method.PATCH, .method.PUT { color: var(--refunded); }
  .copyable { cursor: copy; justify-self: start; }
  .copyable:hover { color: var(--accent); }
  footer { text-align: center; font-size: 12px; color: var(--faint); padding-bottom: 24px; }
</style>
</head>
<body>
<header class="top">
  <div class="brand">
    <div class="logo" aria-hidden="true">
      <svg width="18" height="18" viewBox="0 0 24 24"><path fill="currentColor" d="M13 2 4 14h7l-1 8 9-12h-7z"/></svg>
    </div>
    <div>
      <h1>Energy Rental simulator</h1>
      <div class="sub">live dashboard · <span data-testid="version">energy-rental-kit</span></div>
    </div>
  </div>
  <div class="clock" title="The simulator's clock">
    <span class="pill mode" data-testid="clock-mode">…</span>
    <span class="clock-now" data-testid="clock-now">…</span>
  </div>
  <span class="pill connecting" data-testid="connection"><span class="dot"></span><span class="label">connecting</span></span>
</header>

<main>
  <div class="banner" data-testid="auth-banner" hidden></div>

  <div class="chips" data-testid="settings"></div>

  <div class="grid controls">
    <section class="panel">
      <h2>Clock</h2>
      <div class="body">
        <form id="advance-form" data-testid="advance-form">
          <div class="row">
            <label>Advance by (ms)
              <input data-testid="advance-ms" name="ms" type="number" min="0" step="1" value="5000" required>
            </label>
            <button type="submit" data-testid="advance-button">Advance clock</button>
          </div>
          <div class="quick">
            <button type="button" class="ghost" data-ms="1000">+1 s</button>
            <button type="button" class="ghost" data-ms="10000">+10 s</button>
            <button type="button" class="ghost" data-ms="60000">+1 min</button>
            <button type="button" class="ghost" data-ms="3600000">+1 h</button>
          </div>
          <p class="hint" data-testid="advance-hint"></p>
          <p class="result" data-testid="advance-result" role="status"></p>
        </form>
      </div>
    </section>

    <section class="panel">
      <h2>Create account</h2>
      <div class="body">
        <form id="account-form" data-testid="account-form">
          <div class="row">
            <label>TRX <input data-testid="create-trx" name="trx" inputmode="decimal" placeholder="100" pattern="[0-9]+(\.[0-9]+)?"></label>
            <label>USDT <input data-testid="create-usdt" name="usdt" inputmode="decimal" placeholder="5" pattern="[0-9]+(\.[0-9]+)?"></label>
            <button type="submit" data-testid="create-account-button">Create</button>
          </div>
          <p class="result" data-testid="account-result" role="status"></p>
          <div class="secret" data-testid="created-account" hidden>
            <div>API key of <b data-testid="created-account-name"></b>, shown only this once:</div>
            <code data-testid="created-api-key"></code>
            <div class="muted">Send it as the <code>API-KEY</code> header. The simulator keeps only its digest.</div>
          </div>
        </form>
      </div>
    </section>

    <section class="panel">
      <h2>Add failure rule</h2>
      <div class="body">
        <form id="rule-form" data-testid="rule-form">
          <div class="row">
            <label style="flex: 0 1 140px">Match
              <select data-testid="rule-match-kind" name="kind">
                <option value="outOrderNo">outOrderNo</option>
                <option value="pledgeAddress">pledgeAddress</option>
              </select>
            </label>
            <label style="flex: 2 1 160px">Value
              <input data-testid="rule-match-value" name="value" placeholder="e.g. shop-0042" required>
            </label>
          </div>
          <div class="row">
            <label>Delay (ms, optional) <input data-testid="rule-delay" name="delayMs" type="number" min="0" step="1" placeholder="timing profile"></label>
            <label>Times <input data-testid="rule-times" name="times" type="number" min="1" step="1" value="1" placeholder="unlimited"></label>
            <button type="submit" data-testid="add-rule-button">Add rule</button>
          </div>
          <p class="result" data-testid="rule-result" role="status"></p>
        </form>
      </div>
    </section>
  </div>

  <section class="panel" data-testid="accounts-panel">
    <h2>Accounts <span class="count" data-testid="accounts-count"></span></h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th rowspan="2">Account</th>
            <th class="group sep" colspan="3">TRX</th>
            <th class="group sep" colspan="3">USDT</th>
            <th class="num sep" rowspan="2">Orders</th>
          </tr>
          <tr>
            <th class="num sep">Available</th><th class="num">Frozen</th><th class="num">Spent</th>
            <th class="num sep">Available</th><th class="num">Frozen</th><th class="num">Spent</th>
          </tr>
        </thead>
        <tbody data-testid="accounts"></tbody>
      </table>
    </div>
  </section>

  <section class="panel" data-testid="orders-panel">
    <h2>Orders <span class="count" data-testid="orders-count"></span><span class="right muted" data-testid="orders-summary"></span></h2>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Order</th><th>Account</th><th class="num">Energy</th><th class="num">Amount</th>
            <th>Status</th><th>Timeline</th><th>txId</th>
          </tr>
        </thead>
        <tbody data-testid="orders"></tbody>
      </table>
    </div>
  </section>

  <div class="grid two">
    <section class="panel" data-testid="addresses-panel">
      <h2>Activation registry <span class="count" data-testid="addresses-count"></span></h2>
      <div class="table-wrap">
        <table>
          <thead><tr><th>Address</th><th>State</th><th>Activated</th></tr></thead>
          <tbody data-testid="addresses"></tbody>
        </table>
      </div>
    </section>

    <section class="panel" data-testid="rules-panel">
      <h2>Rules &amp; faults <span class="count" data-testid="rules-count"></span></h2>
      <h3 class="sub-h">Outcome rules</h3>
      <div class="table-wrap">
        <table>
          <thead><tr><th>Rule</th><th>Matches</th><th>Outcome</th><th class="num">Delay</th><th class="num">Used</th></tr></thead>
          <tbody data-testid="rules"></tbody>
        </table>
      </div>
      <h3 class="sub-h">Injected faults</h3>
      <div class="table-wrap">
        <table>
          <thead><tr><th>Fault</th><th>Operation</th><th>Effect</th><th class="num">Used</th></tr></thead>
          <tbody data-testid="faults"></tbody>
        </table>
      </div>
    </section>
  </div>

  <section class="panel" data-testid="journal-panel">
    <h2>Journal <span class="count">newest first</span></h2>
    <div class="table-wrap">
      <table>
        <thead><tr><th>Time</th><th>Request</th><th>Status</th><th>Operation</th><th>Account</th><th class="num">Duration</th></tr></thead>
        <tbody data-testid="journal"></tbody>
      </table>
    </div>
  </section>
</main>
<footer>Served by the simulator at <code>/_sim/ui</code> · data from <code>/_sim/dashboard</code> · live through <code>/_sim/events</code></footer>

<script>
'use strict';
(function () {
  // This script lives in a String.raw template of page.ts: it uses no backticks and no
  // dollar-brace, and builds the DOM with h() rather than HTML strings, so nothing the
  // simulator returns is ever parsed as markup.
  var TOKEN_KEY = 'energy-rental-kit.token';
  var STATUSES = ['COMPLETED', 'PROCESSING', 'PENDING', 'FAILED', 'REFUNDED'];
  var base = new URL('./', location.href);
  var $ = function (id) { return document.querySelector('[data-testid="' + id + '"]'); };

  // The token arrives once in the address; it is kept for the session and taken out of
  // the address bar so it does not linger in history or screenshots.
  var token = (function () {
    var url = new URL(location.href);
    var given = url.searchParams.get('token');
    if (given !== null) {
      sessionStorage.setItem(TOKEN_KEY, given);
      url.searchParams.delete('token');
      history.replaceState(null, '', url);
    }
    return sessionStorage.getItem(TOKEN_KEY) || '';
  })();

  async function api(path, options) {
    options = options || {};
    var headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    var res = await fetch(new URL(path, base), {
      method: options.method || 'GET',
      headers: headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
    });
    var text = await res.text();
    var body;
    try { body = text ? JSON.parse(text) : undefined; } catch (e) { body = undefined; }
    if (!res.ok) {
      var error = new Error((body && body.msg) || 'HTTP ' + res.status);
      error.status = res.status;
      throw error;
    }
    return body;
  }

  // ---- building the DOM --------------------------------------------------------------
  /** h('td', { class: 'num', testid: 'x', title: 't', data: { k: v } }, ...children) */
  function h(tag, attrs) {
    var el = document.createElement(tag);
    var a = attrs || {};
    Object.keys(a).forEach(function (key) {
      var value = a[key];
      if (value === undefined || value === null || value === false) return;
      if (key === 'class') el.className = value;
      else if (key === 'testid') el.setAttribute('data-testid', value);
      else if (key === 'data') Object.keys(value).forEach(function (k) { el.setAttribute('data-' + k, String(value[k])); });
      else el.setAttribute(key, value === true ? '' : String(value));
    });
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }
  function append(el, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(el, c); }); return; }
    el.append(child instanceof Node ? child : String(child));
  }
  function fill(testid, rows) { $(testid).replaceChildren.apply($(testid), rows); }
  function emptyRow(cols) {
    var children = Array.prototype.slice.call(arguments, 1);
    return h('tr', { class: 'empty' }, h('td', { colspan: cols }, children));
  }

  // ---- formatting -------------------------------------------------------------------
  function pad(n, w) { return String(n).padStart(w || 2, '0'); }
  function time(ms) { var d = new Date(ms); return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()); }
  function timeMs(ms) { return time(ms) + '.' + pad(new Date(ms).getMilliseconds(), 3); }
  function dateTime(ms) { var d = new Date(ms); return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + timeMs(ms); }
  function iso(ms) { return new Date(ms).toISOString(); }
  function trim(fixed) { return fixed.indexOf('.') === -1 ? fixed : fixed.replace(/\.?0+$/, ''); }
  function span(ms) {
    var abs = Math.abs(ms);
    if (abs < 1000) return Math.round(ms) + ' ms';
    if (abs < 60000) return trim((ms / 1000).toFixed(abs < 10000 ? 2 : 1)) + ' s';
    if (abs < 3600000) {
      var seconds = Math.round((ms % 60000) / 1000);
      return Math.floor(ms / 60000) + ' min' + (seconds ? ' ' + seconds + ' s' : '');
    }
    if (abs < 86400000) return trim((ms / 3600000).toFixed(1)) + ' h';
    return trim((ms / 86400000).toFixed(1)) + ' d';
  }
  function short(value, head, tail) {
    head = head || 6; tail = tail || 4;
    return value.length > head + tail + 1 ? value.slice(0, head) + '\u2026' + value.slice(-tail) : value;
  }
  function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }
  function amountCell(value, testid, extra) {
    return h('td', { class: 'num' + (extra || '') + (Number(value) === 0 ? ' zero' : ''), testid: testid }, value);
  }
  function badge(status, testid, extra) {
    return h('span', { class: 'badge s-' + status + (extra ? ' ' + extra : ''), testid: testid }, status);
  }
  function copyable(full, shown, testid) {
    return h('span', { class: 'mono copyable', title: full + ' (click to copy)', data: { copy: full }, testid: testid }, shown);
  }
  function stack() { return h('div', { class: 'stack' }, Array.prototype.slice.call(arguments)); }
  function small(text, cls) { return h('span', { class: 'small' + (cls ? ' ' + cls : '') }, text); }

  // ---- rendering --------------------------------------------------------------------
  var clock = { mode: 'real', now: Date.now(), offset: 0 };
  var previousStatus = new Map();
  var firstRender = true;

  function renderClock() {
    var now = clock.mode === 'real' ? Date.now() + clock.offset : clock.now;
    var el = $('clock-now');
    el.textContent = dateTime(now);
    el.title = iso(now) + ' (the simulator\u2019s ' + clock.mode + ' clock)';
  }

  function renderSettings(data) {
    var s = data.settings;
    var supply = data.supply.energy === null
      ? 'unlimited'
      : data.supply.delegated.toLocaleString('en') + ' / ' + data.supply.energy.toLocaleString('en');
    var chips = [
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
    fill('settings', chips.map(function (chip) {
      return h('span', { class: 'chip', testid: 'setting-' + chip[0].replace(/\s+/g, '-') }, h('span', null, chip[0]), h('b', null, chip[1]));
    }));
  }

  function renderAccounts(accounts) {
    $('accounts-count').textContent = String(accounts.length);
    fill('accounts', accounts.length === 0 ? [emptyRow(8, 'No accounts. Create one above.')] : accounts.map(function (a) {
      var t = a.ledger.trx;
      var u = a.ledger.usdt;
      return h('tr', { testid: 'account-row', data: { wallet: a.walletAddress } },
        h('td', null, stack(h('b', { testid: 'account-name' }, a.name), copyable(a.walletAddress, a.walletAddress, 'account-wallet'))),
        amountCell(t.available, 'balance-trx-available', ' sep'), amountCell(t.frozen, 'balance-trx-frozen'), amountCell(t.spent, 'balance-trx-spent'),
        amountCell(u.available, 'balance-usdt-available', ' sep'), amountCell(u.frozen, 'balance-usdt-frozen'), amountCell(u.spent, 'balance-usdt-spent'),
        h('td', { class: 'num sep', testid: 'account-orders' }, a.orders));
    }));
  }

  function timeline(order) {
    var start = order.createdAt;
    var parts = [];
    order.timeline.forEach(function (step, i) {
      if (i > 0) parts.push(h('span', { class: 'link' }));
      parts.push(h('span', {
        class: 'step s-' + step.status,
        title: step.status + ' at ' + iso(step.at) + (step.note ? ' (' + step.note + ')' : ''),
        testid: 'timeline-step',
        data: { status: step.status },
      }, h('i'), step.status.toLowerCase() + ' ', h('em', null, i === 0 ? time(step.at) : '+' + span(step.at - start))));
    });
    if (order.next) {
      parts.push(h('span', { class: 'link' }));
      parts.push(h('span', {
        class: 'step next s-' + order.next.status,
        title: order.next.status + ' due at ' + iso(order.next.at),
        testid: 'timeline-next',
      }, h('i'), order.next.status.toLowerCase() + ' ', h('em', null, '+' + span(order.next.at - start))));
    }
    return h('div', { class: 'timeline' }, parts);
  }

  function renderOrders(orders, accounts) {
    var names = new Map(accounts.map(function (a) { return [a.walletAddress, a.name]; }));
    var counts = {};
    orders.forEach(function (o) { counts[o.status] = (counts[o.status] || 0) + 1; });
    $('orders-count').textContent = orders.length + (orders.length >= 50 ? ' newest' : '');
    fill('orders-summary', STATUSES.filter(function (s) { return counts[s]; }).map(function (s) {
      return h('span', { class: 'badge plain s-' + s }, counts[s] + ' ' + s.toLowerCase());
    }));
    fill('orders', orders.length === 0
      ? [emptyRow(7, 'No orders yet. Create one through the API, e.g. ', h('code', null, 'POST /v1/tron/order'), ' with an ', h('code', null, 'API-KEY'), ' header.')]
      : orders.map(function (o) {
          var changed = !firstRender && previousStatus.get(o.orderId) !== o.status;
          previousStatus.set(o.orderId, o.status);
          return h('tr', { testid: 'order-row', data: { 'order-id': o.orderId, status: o.status }, class: changed ? 'changed' : null },
            h('td', null, stack(h('span', { class: 'mono', testid: 'order-id' }, o.orderId), o.outOrderNo ? h('span', { class: 'small', testid: 'order-outorderno' }, o.outOrderNo) : null)),
            h('td', { class: 'nowrap' }, stack(h('span', null, names.get(o.walletAddress) || ''), h('span', { class: 'small mono', title: o.walletAddress }, short(o.walletAddress)))),
            h('td', { class: 'num' }, stack(h('span', null, o.rentalCount.toLocaleString('en')), small(o.period + (o.activatedAddress ? ' \u00b7 activates' : '')))),
            h('td', { class: 'num', testid: 'order-amount' }, o.amount, h('span', { class: 'amount-cur' }, o.currency)),
            h('td', null, badge(o.status, 'order-status')),
            h('td', null, timeline(o)),
            h('td', null, o.txId ? copyable(o.txId, short(o.txId, 8, 6), 'order-txid') : h('span', { class: 'faint', testid: 'order-txid' }, '\u2014')));
        }));
  }

  function renderAddresses(addresses) {
    $('addresses-count').textContent = String(addresses.length);
    fill('addresses', addresses.length === 0
      ? [emptyRow(3, 'No address known yet. The first order to an address activates it.')]
      : addresses.map(function (a) {
          return h('tr', { testid: 'address-row', data: { address: a.address } },
            h('td', null, copyable(a.address, a.address)),
            h('td', null, h('span', { class: 'badge ' + (a.activated ? 's-COMPLETED' : 's-PENDING'), testid: 'address-state' }, a.activated ? 'activated' : 'not activated')),
            h('td', null, stack(
              h('span', { class: 'nowrap', title: a.activatedAt ? iso(a.activatedAt) : null }, a.activatedAt ? timeMs(a.activatedAt) : '\u2014'),
              a.activatedByOrderId
                ? h('span', { class: 'small' }, 'by ', h('span', { class: 'mono', testid: 'address-order' }, a.activatedByOrderId))
                : small(a.activated ? 'seeded or set by hand' : ''))));
        }));
  }

  function matchText(match) {
    var parts = [];
    if (match.pledgeAddress) parts.push(['pledgeAddress ', h('span', { class: 'mono', title: match.pledgeAddress }, short(match.pledgeAddress))]);
    if (match.outOrderNo) parts.push(['outOrderNo ', h('span', { class: 'mono' }, match.outOrderNo)]);
    if (parts.length === 0) return h('span', { class: 'muted' }, 'every order');
    return parts.reduce(function (all, part, i) { return all.concat(i ? [' and '] : [], part); }, []);
  }
  function used(n, times) { return n + ' / ' + (times === undefined ? '\u221e' : times); }

  function renderRules(rules, faults) {
    $('rules-count').textContent = plural(rules.length, 'rule') + ' \u00b7 ' + plural(faults.length, 'fault');
    fill('rules', rules.length === 0
      ? [emptyRow(5, 'No rules: outcomes follow the failure rate.')]
      : rules.map(function (r) {
          return h('tr', { testid: 'rule-row', data: { 'rule-id': r.id } },
            h('td', { class: 'mono' }, r.id),
            h('td', { testid: 'rule-match' }, matchText(r.match)),
            h('td', null, badge(r.outcome, 'rule-outcome')),
            h('td', { class: 'num' }, r.delayMs === undefined ? h('span', { class: 'faint' }, 'profile') : span(r.delayMs)),
            h('td', { class: 'num', testid: 'rule-used' }, used(r.used, r.times)));
        }));
    fill('faults', faults.length === 0
      ? [emptyRow(4, 'No faults injected (', h('code', null, 'POST /_sim/faults'), ').')]
      : faults.map(function (f) {
          var effects = [];
          if (f.response === 'status') effects.push('HTTP ' + (f.status || 503) + (f.withBody === false ? ', empty body' : ''));
          else if (f.response) effects.push(f.response);
          if (f.latencyMs || f.latencyMaxMs) effects.push('+' + (f.latencyMs || 0) + (f.latencyMaxMs ? '\u2013' + f.latencyMaxMs : '') + ' ms');
          if (f.probability !== undefined && f.probability < 1) effects.push('p ' + f.probability);
          return h('tr', { testid: 'fault-row', data: { 'fault-id': f.id } },
            h('td', { class: 'mono' }, f.id),
            h('td', { class: 'mono' }, f.operation),
            h('td', null, effects.join(' \u00b7 ')),
            h('td', { class: 'num' }, used(f.used, f.times)));
        }));
  }

  function renderJournal(entries, accounts) {
    var names = new Map(accounts.map(function (a) { return [a.walletAddress, a.name]; }));
    fill('journal', entries.length === 0
      ? [emptyRow(6, 'No requests yet.')]
      : entries.map(function (e) {
          var query = e.query ? '?' + new URLSearchParams(e.query) : '';
          return h('tr', { testid: 'journal-row', data: { 'journal-id': e.id } },
            h('td', { class: 'nowrap muted mono', title: iso(e.at) }, timeMs(e.at)),
            h('td', null,
              h('span', { class: 'method ' + e.method }, e.method),
              h('span', { class: 'mono', title: e.path + query }, e.path, h('span', { class: 'faint' }, query.length > 60 ? query.slice(0, 60) + '\u2026' : query))),
            h('td', null,
              h('span', { class: 'http code-' + String(e.status).charAt(0), testid: 'journal-status' }, e.status),
              e.fault ? [' ', h('span', { class: 'badge s-FAILED plain' }, e.fault)] : null),
            h('td', { testid: 'journal-operation' }, e.operation || '\u2014'),
            h('td', { class: 'muted' }, e.account ? names.get(e.account) || short(e.account) : '\u2014'),
            h('td', { class: 'num muted' }, (e.durationMs < 10 ? e.durationMs.toFixed(2) : Math.round(e.durationMs)) + ' ms'));
        }));
  }

  function renderControls() {
    var manual = clock.mode === 'manual';
    var mode = $('clock-mode');
    mode.textContent = clock.mode + ' clock';
    mode.className = 'pill mode ' + clock.mode;
    document.querySelectorAll('#advance-form input, #advance-form button').forEach(function (el) { el.disabled = !manual; });
    fill('advance-hint', manual
      ? ['The manual clock moves only when you advance it; due lifecycle steps run on the way.']
      : ['The clock is real, so it cannot be advanced. Start the simulator with ', h('code', { class: 'nowrap' }, '--clock manual'), ' to drive time from here.']);
  }

  function render(data) {
    clock = { mode: data.clock.mode, now: data.clock.now, offset: data.clock.now - Date.now() };
    renderClock();
    renderControls();
    renderSettings(data);
    renderAccounts(data.accounts);
    renderOrders(data.orders, data.accounts);
    renderAddresses(data.addresses);
    renderRules(data.rules, data.faults);
    renderJournal(data.journal, data.accounts);
    firstRender = false;
    document.body.setAttribute('data-loaded', 'true');
  }

  // ---- loading: on start, on every change event (debounced), after every action -------
  var loading = false;
  var again = false;
  var timer = 0;
  function schedule(delay) {
    if (timer) return;
    timer = setTimeout(function () { timer = 0; load(); }, delay === undefined ? 120 : delay);
  }
  async function load() {
    if (loading) { again = true; return; }
    loading = true;
    try {
      render(await api('dashboard'));
      $('auth-banner').hidden = true;
    } catch (error) {
      showBanner(error);
    } finally {
      loading = false;
      if (again) { again = false; schedule(0); }
    }
  }
  function showBanner(error) {
    var banner = $('auth-banner');
    banner.textContent = error.status === 401
      ? error.message + ' Open this page as /_sim/ui?token=<token>; the page keeps the token for this browser session.'
      : 'Could not read /_sim/dashboard: ' + error.message;
    banner.hidden = false;
  }

  function setConnection(state, text) {
    var pill = $('connection');
    pill.className = 'pill ' + state;
    pill.querySelector('.label').textContent = text;
  }
  function connect() {
    var url = new URL('events', base);
    if (token) url.searchParams.set('token', token);
    var source = new EventSource(url);
    setConnection('connecting', 'connecting');
    source.addEventListener('open', function () { setConnection('live', 'live'); schedule(0); });
    source.addEventListener('change', function () { schedule(); });
    source.addEventListener('error', function () {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (a wrong token, a restarted server): try again in a while.
        setConnection('offline', 'offline');
        setTimeout(connect, 3000);
      } else {
        setConnection('connecting', 'reconnecting');
      }
    });
  }

  // ---- controls ---------------------------------------------------------------------
  function say(testid, text, kind) {
    var el = $(testid);
    el.textContent = text;
    el.className = 'result ' + (kind || '');
  }
  async function act(testid, run) {
    say(testid, '\u2026');
    try {
      say(testid, await run(), 'ok');
    } catch (error) {
      say(testid, error.message, 'error');
    }
    load();
  }

  function advance(ms) {
    return act('advance-result', async function () {
      var moved = await api('clock/advance', { method: 'POST', body: { ms: ms } });
      return 'Clock moved ' + span(ms) + ' to ' + dateTime(moved.now) + '.';
    });
  }
  document.getElementById('advance-form').addEventListener('submit', function (event) {
    event.preventDefault();
    advance(Number($('advance-ms').value));
  });
  document.querySelectorAll('.quick [data-ms]').forEach(function (button) {
    button.addEventListener('click', function () {
      $('advance-ms').value = button.getAttribute('data-ms');
      advance(Number(button.getAttribute('data-ms')));
    });
  });

  document.getElementById('account-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = event.target;
    var balance = {};
    var trx = $('create-trx').value.trim();
    var usdt = $('create-usdt').value.trim();
    if (trx) balance.trx = trx;
    if (usdt) balance.usdt = usdt;
    $('created-account').hidden = true;
    act('account-result', async function () {
      var created = await api('accounts', { method: 'POST', body: Object.keys(balance).length ? { balance: balance } : {} });
      $('created-account-name').textContent = created.name + ' (' + created.walletAddress + ')';
      $('created-api-key').textContent = created.apiKey;
      $('created-account').hidden = false;
      form.reset();
      return '';
    });
  });

  document.getElementById('rule-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = new FormData(event.target);
    var match = {};
    match[form.get('kind')] = String(form.get('value')).trim();
    var rule = { match: match, outcome: 'FAILED' };
    if (form.get('delayMs') !== '') rule.delayMs = Number(form.get('delayMs'));
    if (form.get('times') !== '') rule.times = Number(form.get('times'));
    act('rule-result', async function () {
      var added = await api('rules', { method: 'POST', body: rule });
      $('rule-match-value').value = '';
      return 'Added ' + added.id + ': matching orders will fail' + (rule.times ? ' (' + rule.times + '\u00d7)' : '') + '.';
    });
  });

  document.addEventListener('click', function (event) {
    var target = event.target.closest('[data-copy]');
    if (!target || !navigator.clipboard) return;
    navigator.clipboard.writeText(target.getAttribute('data-copy')).then(function () {
      var before = target.title;
      target.title = 'Copied';
      setTimeout(function () { target.title = before; }, 1200);
    }, function () {});
  });

  setInterval(function () { if (clock.mode === 'real') renderClock(); }, 250);
  load();
  connect();
})();
</script>
</body>
</html>
`;
