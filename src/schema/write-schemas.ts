// Build step: writes schemas/*.schema.json from the zod schemas (run by `npm run build`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSchemas, schemaText } from './json-schemas.js';
import { schemaFileName, SCHEMAS_DIR } from './schema-files.js';

mkdirSync(SCHEMAS_DIR, { recursive: true });
for (const [name, schema] of Object.entries(jsonSchemas())) writeFileSync(join(SCHEMAS_DIR, schemaFileName(name)), schemaText(schema));
