#!/usr/bin/env node
// Build step (after tsc): the command's entry, dist/cli.js, rewritten as one file holding every module it imports and
// their dependencies. Node then starts skillprobe from one file instead of some 900 (0.5 s of CPU before any work, a
// third of that bundled). The other compiled entries (the watchdog, Codex's field hook, the schema writer) stay as tsc
// wrote them, and the package keeps its dependencies for them. No source map: the bundle is plain, unminified code, each
// module under a comment naming its file, and a map of it would add 6 MB to the package.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/cli.js'],
  outfile: 'dist/cli.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  // CommonJS dependencies that require Node's built-ins at run time need a real `require` in an ES module.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
});
// tsc's map of the entry before it was bundled: it maps nothing now.
rmSync('dist/cli.js.map', { force: true });
