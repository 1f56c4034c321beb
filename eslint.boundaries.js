// Which folder may import which, tests included (docs/development.md, "Layout"). Each layer may import
// itself and the layers below it; folders that share a layer do not import each other. The
// linter (eslint.config.js) turns this table into import-x/no-restricted-paths zones, so an
// arrow that runs back up fails `npm run lint`, and with it `npm test`.

/** Test files and the helpers only tests import. */
export const TEST_FILES = ['**/*.test.ts', '**/*test-support.ts', '**/test-support/**'];

/** The top-level folders, bottom to top. */
export const LAYERS = [
  ['src'],
  ['mock'],
  ['recording'],
  ['contract-tests'],
  ['drift', 'bench'],
  ['cli'],
  // End-to-end loops that start the CLI, the repository's own tooling, and the examples
  // users copy: they may use anything, and nothing imports them.
  ['e2e', 'scripts', 'examples'],
];

/**
 * Inside mock/, bottom to top. The files at mock/'s root (simulator.ts, node-server.ts,
 * node-fetch.ts) are the simulator's face: they compose the folders below. Production code
 * under engine, clock, scenario and http never imports the face; tests anywhere in mock/ may,
 * since a test of an HTTP route runs it on a whole simulator. The shipped helpers (testing,
 * msw) and the test helpers (test-support) reach the simulator through its face only.
 */
export const MOCK_LAYERS = [
  ['mock/engine'],
  ['mock/clock', 'mock/scenario'],
  ['mock/testing', 'mock/msw'],
  ['mock/test-support'],
  ['mock/http'],
  ['mock/reliability'],
];

const MOCK_FACE = 'mock/*.{ts,js,mjs}';
/** Folders of mock/ that the face composes: their production code never imports it or what stands on it. */
const BELOW_THE_FACE = ['mock/engine', 'mock/clock', 'mock/scenario', 'mock/http'];
const ON_THE_FACE = ['mock/testing', 'mock/msw', 'mock/test-support', 'mock/reliability'];
/** Test helpers: production code never imports them. */
const TEST_ONLY = ['mock/test-support', 'mock/reliability'];

function zonesOf(layers) {
  const zones = [];
  layers.forEach((layer, index) => {
    const above = layers.slice(index + 1).flat();
    for (const target of layer) {
      const peers = layer.filter((folder) => folder !== target);
      for (const from of [...above, ...peers]) {
        zones.push({
          target: `./${target}`,
          from: `./${from}`,
          message: `${target}/ may not import ${from}/: folders import one way (docs/development.md, "Layout").`,
        });
      }
    }
  });
  return zones;
}

/**
 * The no-restricted-paths zones for production files (`'production'`) or for tests and
 * their helpers (`'test'`).
 *
 * @example
 *   boundaryZones('production').some((z) => z.target === './src' && z.from === './mock'); // true
 */
export function boundaryZones(kind) {
  const zones = [...zonesOf(LAYERS), ...zonesOf(MOCK_LAYERS)];
  if (kind === 'test') return zones;
  for (const target of BELOW_THE_FACE) {
    for (const from of [MOCK_FACE, ...ON_THE_FACE]) {
      zones.push({
        target: `./${target}`,
        from: `./${from}`,
        message: `${target}/ may not import ${from === MOCK_FACE ? "mock/'s face (simulator.ts, node-server.ts, node-fetch.ts)" : from + '/'}: the face composes ${target}/, not the other way round.`,
      });
    }
  }
  for (const from of TEST_ONLY) {
    zones.push({
      target: './',
      from: `./${from}`,
      message: `${from}/ holds tests and their helpers: production code does not import them.`,
    });
  }
  return zones;
}
