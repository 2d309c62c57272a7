#!/usr/bin/env node
// A hash of everything `npm run build` reads: the sources, the compiler's settings, the bundler step and the locked
// dependencies. The build writes it into dist/ as its last step; `npm test`, `npm run test:unit` and `test:e2e`
// build again only when the inputs' hash differs from it, so `npm test` right after `npm ci` (whose
// `prepare` built) does not build twice.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const INPUTS = ['src', 'tsconfig.json', 'package.json', 'package-lock.json', 'scripts/bundle.mjs', 'scripts/build-stamp.mjs'];
const STAMP = join('dist', 'build-inputs.sha256');

/**
 * The hash of the build's inputs under `root`: each file's path and bytes, in path order. An input that is not there
 * counts as absent (a git install's `prepare` builds in a checkout without package-lock.json).
 */
export function buildInputsHash(root) {
  const files = INPUTS.filter((input) => existsSync(join(root, input))).flatMap((input) =>
    statSync(join(root, input)).isDirectory()
      ? readdirSync(join(root, input), { recursive: true })
          .map((file) => join(input, file))
          .filter((file) => statSync(join(root, file)).isFile())
      : [input],
  );
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    const bytes = readFileSync(join(root, file));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

/** Whether `root`'s dist/ was built from the inputs as they are now. */
export function distIsCurrent(root) {
  const stamp = join(root, STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === buildInputsHash(root);
}

// `write`: the build's last step. `build-if-stale`: builds unless dist/ is current.
if (process.argv[2] === 'write') writeFileSync(STAMP, buildInputsHash(process.cwd()));
if (process.argv[2] === 'build-if-stale' && !distIsCurrent(process.cwd())) {
  const { execa } = await import('execa');
  await execa('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
}
