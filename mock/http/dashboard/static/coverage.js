// The behaviour coverage panel: what the tests exercised so far, how often, and what they
// never did (GET /_sim/coverage), the table `energy-rental-kit coverage` prints. The panel
// builds itself at the end of <main>, so the page's layout needs no change for it.
import { $, emptyRow, h } from './dom.js';

function panel() {
  const existing = $('coverage-panel');
  if (existing) return existing;
  const section = h(
    'section',
    { class: 'panel', testid: 'coverage-panel' },
    h('h2', {}, 'Behaviour coverage ', h('span', { class: 'count', testid: 'coverage-summary' })),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Behaviour'), h('th', { class: 'num' }, 'Count'), h('th', {}, 'State')),
        ),
        h('tbody', { testid: 'coverage' }),
      ),
    ),
  );
  document.querySelector('main').append(section);
  return section;
}

/** Renders GET /_sim/coverage; undefined (an older simulator, no access) hides the panel. */
export function renderCoverage(coverage) {
  const section = panel();
  section.hidden = !coverage;
  if (!coverage) return;
  const rows = [];
  for (const [id, count] of Object.entries(coverage.exercised))
    rows.push(
      h(
        'tr',
        { data: { id, state: 'exercised' } },
        h('td', { class: 'mono' }, id),
        h('td', { class: 'num' }, count),
        h('td', {}, 'exercised'),
      ),
    );
  for (const id of coverage.never)
    rows.push(
      h(
        'tr',
        { class: 'muted', data: { id, state: 'never' } },
        h('td', { class: 'mono' }, id),
        h('td', { class: 'num' }, '0'),
        h('td', {}, 'never'),
      ),
    );
  for (const { id, reason } of coverage.impossible || [])
    rows.push(
      h(
        'tr',
        { class: 'muted', data: { id, state: 'impossible' } },
        h('td', { class: 'mono' }, id),
        h('td', { class: 'num' }, '\u2014'),
        h('td', {}, 'impossible: ' + reason),
      ),
    );
  const body = $('coverage');
  body.replaceChildren(...(rows.length > 0 ? rows : [emptyRow(3, 'No behaviour listed.')]));
  const met = Object.keys(coverage.exercised).length;
  $('coverage-summary').textContent =
    met +
    ' exercised, ' +
    coverage.never.length +
    ' never' +
    (coverage.unclassified ? ', ' + coverage.unclassified + ' unclassified' : '');
}
