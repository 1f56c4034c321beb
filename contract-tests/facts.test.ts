import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FACTS } from '../src/generated/lists.ts';
import { atTwoDecimals, exactValue, listFacts, trxPrices } from './facts.ts';

/**
 * The lines of a contract test file where `expect` is called or handed on outside the places
 * it may be: an `onSimulator` callback (checks against a simulator only), a case that requires
 * a capability (which only a simulator offers), or a helper that takes `expect` as its
 * parameter (its callers hand it on, and are held to the same). Everywhere else a case
 * asserts with `expectFact`, which names the documented fact.
 */
function unnamedAssertions(file: string, text: string): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const allowed = (node: ts.Node): boolean => {
    for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
      if (!ts.isArrowFunction(at) && !ts.isFunctionExpression(at) && !ts.isFunctionDeclaration(at)) continue;
      const call = at.parent;
      if (ts.isCallExpression(call) && call.expression.getText() === 'onSimulator') return true;
      if (/\brequireCapability\(/.test(at.body?.getText() ?? '')) return true;
      if (at.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === 'expect')) return true;
    }
    return false;
  };
  const visit = (node: ts.Node): void => {
    const parent = node.parent as ts.Node | undefined;
    const used =
      parent !== undefined &&
      ts.isCallExpression(parent) &&
      (parent.expression === node || parent.arguments.includes(node as ts.Expression));
    if (ts.isIdentifier(node) && node.text === 'expect' && used && !allowed(node))
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

const CONTRACT_FILES = readdirSync(import.meta.dirname).filter((f) => f.endsWith('.contract.test.ts'));

describe('every assertion of the contract suite against a service names a documented fact', () => {
  it.for(CONTRACT_FILES)('%s asserts against a URL only through expectFact', (file) => {
    const text = readFileSync(path.join(import.meta.dirname, file), 'utf8');
    expect(unnamedAssertions(file, text), 'lines with an expect that names no fact').toEqual([]);
  });

  it('finds an expect outside onSimulator and outside a capability case', () => {
    const planted = [
      "test('a', async ({ api, onSimulator, expect }) => {",
      '  onSimulator((expect) => expect(1).toBe(1));',
      '  expect(await api.getAccount()).toBeDefined();',
      '  helper(expect, 3);',
      '});',
      'const helper = (expect, n) => expect(n).toBe(3);',
      "test('b', async ({ requireCapability, expect }) => {",
      "  requireCapability('rules');",
      '  expect(2).toBe(2);',
      '});',
    ].join('\n');
    expect(unnamedAssertions('planted.ts', planted)).toEqual([3, 4]);
  });

  it('gives every fact an id of its own and a quote', () => {
    expect(new Set(FACTS.map((f) => f.id)).size).toBe(FACTS.length);
    expect(listFacts()).toContain('usdt-decimals\n  upstream.md: USDT shows six decimals.');
  });
});

describe('amounts compared by value', () => {
  it('reads any rendering of one amount alike', () => {
    expect(['5.7', '5.70', '5.700000', 5.7].map(exactValue)).toEqual(['5.7', '5.7', '5.7', '5.7']);
    expect([atTwoDecimals('3.845'), atTwoDecimals(0.8), atTwoDecimals('x')]).toEqual(['3.85', '0.80', 'x']);
  });

  it('allows half up or up, as upstream writes it', () => {
    expect(trxPrices(65000, '65')).toEqual({ halfUp: '4.23', up: '4.23' });
    expect(trxPrices(64001, '65')).toEqual({ halfUp: '4.16', up: '4.17' });
  });
});
