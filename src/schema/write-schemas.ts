// Build step: writes schemas/*.schema.json from the zod schemas (run by `npm run build`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSchemas, schemaFileName, schemaText } from './json-schemas.js';

const out = join(import.meta.dirname, '..', '..', 'schemas');
mkdirSync(out, { recursive: true });
for (const [name, schema] of Object.entries(jsonSchemas())) writeFileSync(join(out, schemaFileName(name)), schemaText(schema));
