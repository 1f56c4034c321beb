// Which folder may import which (docs/development.md, "Layout"): each layer itself and those below;
// folders that share a layer do not import each other.

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
  // They may use anything, and nothing imports them.
  ['e2e', 'scripts', 'examples'],
];

/**
 * Inside mock/, bottom to top. The files at mock/'s root are the simulator's face, composing the
 * folders below: their production code never imports it; tests may, and the helpers use only it.
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
