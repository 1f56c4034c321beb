// The behaviour coverage panel (GET /_sim/coverage): the table `energy-rental-kit coverage` prints.
import { $, emptyRow, fill, h } from './dom.js';

const row = (id, state, count, text) =>
  h(
    'tr',
    { class: state === 'exercised' ? null : 'muted', data: { id, state } },
    h('td', { class: 'mono' }, id),
    h('td', { class: 'num' }, count),
    h('td', null, text),
  );

/** Renders GET /_sim/coverage; undefined (an older simulator, no access) hides the panel. */
export function renderCoverage(coverage) {
  $('coverage-panel').hidden = !coverage;
  if (!coverage) return;
  const rows = [
    ...Object.entries(coverage.exercised).map(([id, count]) => row(id, 'exercised', count, 'exercised')),
    ...coverage.never.map((id) => row(id, 'never', '0', 'never')),
    ...(coverage.impossible || []).map(({ id, reason }) =>
      row(id, 'impossible', '\u2014', 'impossible: ' + reason),
    ),
  ];
  fill('coverage', rows.length > 0 ? rows : [emptyRow(3, 'No behaviour listed.')]);
  const unclassified = coverage.unclassified ? ', ' + coverage.unclassified + ' unclassified' : '';
  $('coverage-summary').textContent =
    Object.keys(coverage.exercised).length + ' exercised, ' + coverage.never.length + ' never' + unclassified;
}
