import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildInputsHash, distIsCurrent } from '../scripts/build-stamp.mjs';
import { ROOT } from './helpers.js';

/** A project holding the build's inputs (two sources), built: its stamp written as the build's last step does. */
function builtProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'sp-stamp-'));
  for (const [file, text] of Object.entries({
    'src/cli.ts': 'export {};\n',
    'src/run/folder.ts': 'export const a = 1;\n',
    'tsconfig.json': '{}\n',
    'package.json': '{}\n',
    'package-lock.json': '{}\n',
    'scripts/bundle.mjs': '\n',
  })) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  cpSync(join(ROOT, 'scripts', 'build-stamp.mjs'), join(root, 'scripts', 'build-stamp.mjs'));
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'build-inputs.sha256'), buildInputsHash(root));
  return root;
}

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("the build's stamp: npm test builds again exactly when an input changed", () => {
  it.each<[string, (root: string) => void, boolean]>([
    ['nothing changed', () => {}, true],
    ['a build output changed', (root) => writeFileSync(join(root, 'dist', 'cli.js'), 'x'), true],
    ['a file beside the inputs changed', (root) => writeFileSync(join(root, 'README.md'), 'x'), true],
    ['a nested source changed', (root) => writeFileSync(join(root, 'src', 'run', 'folder.ts'), 'export const a = 2;\n'), false],
    ['a source was added', (root) => writeFileSync(join(root, 'src', 'new.ts'), ''), false],
    ['a source was renamed', (root) => renameSync(join(root, 'src', 'cli.ts'), join(root, 'src', 'main.ts')), false],
    ['the compiler settings changed', (root) => writeFileSync(join(root, 'tsconfig.json'), '{"x":1}\n'), false],
    ['the locked dependencies changed', (root) => writeFileSync(join(root, 'package-lock.json'), '{"x":1}\n'), false],
    ['the bundler step changed', (root) => writeFileSync(join(root, 'scripts', 'bundle.mjs'), '//\n'), false],
    ['dist/ is gone', (root) => rmSync(join(root, 'dist'), { recursive: true }), false],
    ['the lock file was removed', (root) => rmSync(join(root, 'package-lock.json')), false],
  ])('%s: dist is current %s', (_, change, current) => {
    const root = builtProject();
    made.push(root);
    expect(distIsCurrent(root)).toBe(true);
    change(root);
    expect(distIsCurrent(root)).toBe(current);
  });
});

describe("the build's stamp where an input is absent", () => {
  it("a checkout without package-lock.json (a git install's prepare) hashes what is there, and its stamp holds", () => {
    const root = builtProject();
    made.push(root);
    rmSync(join(root, 'package-lock.json'));
    writeFileSync(join(root, 'dist', 'build-inputs.sha256'), buildInputsHash(root));
    expect(distIsCurrent(root)).toBe(true);
    writeFileSync(join(root, 'package-lock.json'), '{}\n');
    expect(distIsCurrent(root)).toBe(false);
  });
});
