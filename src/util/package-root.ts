import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The running skillprobe's own folder: the nearest folder above this module whose package.json names skillprobe.
 * Found by walking up rather than by a fixed `../..`, because the same code runs from `src/` (tests), from `dist/<folder>/`
 * (the compiled modules that run as entries of their own) and from `dist/cli.js` (the command, bundled into one file).
 */
function findPackageRoot(from: string): { root: string; manifest: OwnManifest } {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    const manifest = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as OwnManifest) : undefined;
    if (manifest?.name === 'skillprobe') return { root: dir, manifest };
    if (dirname(dir) === dir) throw new Error(`no skillprobe package.json above ${from}`);
  }
}

interface OwnManifest {
  name?: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const found = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** A file of the running skillprobe's package (`dist/workspace/watchdog-main.js`, `schemas`). */
export const packageFile = (...parts: string[]) => join(found.root, ...parts);

/** skillprobe's own package.json. */
export const OWN_MANIFEST: OwnManifest = found.manifest;

/** `require` resolving from skillprobe's own folder: where the agent CLIs installed beside it are found. */
export const requireFromPackage = createRequire(packageFile('package.json'));
