import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from './contract.vitest.config.ts';
import { suiteLayout } from './contract-command.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the config the contract and record commands run the suite with', () => {
  it("is the suite's own config in a checkout, so a command run sets up one project instead of every project of the repository", () => {
    const layout = suiteLayout();
    expect(layout.vitestArgs).toEqual(['--config', path.join(here, 'contract.vitest.config.ts')]);
    expect(layout.cwd).toBe(path.resolve(here, '..'));
  });

  it("includes exactly the checkout's contract files, TypeScript, from the repository root", () => {
    const test = config.test!;
    expect(test.root).toBe(path.resolve(here, '..'));
    const files = readdirSync(here).filter((name) => name.endsWith('.contract.test.ts'));
    expect(files.length).toBeGreaterThan(0);
    expect(test.include).toEqual(['contract-tests/*.contract.test.ts']);
    // Its one `*` stands for a file name: exactly the contract files of the folder match,
    // no helper, no other test.
    const [pattern] = test.include as string[];
    const escaped = pattern!.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
    const glob = new RegExp(`^${escaped.join('[^/]*')}$`);
    for (const name of readdirSync(here))
      expect(glob.test(`contract-tests/${name}`), name).toBe(files.includes(name));
    expect(test.reporters).toContain(path.join(here, 'contract-reporter.ts'));
  });
});
