import { packageFile } from '../util/package-root.js';

/** The stub server's entry in the built package, which a CLI starts with `process.execPath` (see stub-main.ts). */
export const STUB_MAIN = packageFile('dist', 'mcp', 'stub-main.js');
/** A real server's watch, which a CLI starts with `process.execPath` in the server's place (see watch-main.ts). */
export const WATCH_MAIN = packageFile('dist', 'mcp', 'watch-main.js');
