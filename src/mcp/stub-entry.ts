import { fileURLToPath } from 'node:url';

/** The stub server's entry in the built package, which a CLI starts with `process.execPath` (see stub-main.ts). */
export const STUB_MAIN = fileURLToPath(new URL('./stub-main.js', import.meta.url));
