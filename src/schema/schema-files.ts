import { packageFile } from '../util/package-root.js';

/**
 * Where the JSON schemas live, apart from how they are made (json-schemas.ts): the commands that point a user's file at
 * its schema need only the path, not the schema generator and the library behind it.
 */
export const schemaFileName = (name: string) => `${name}.schema.json`;

/** The schemas folder of the skillprobe that is running (in a project: node_modules/skillprobe/schemas). */
export const SCHEMAS_DIR = packageFile('schemas');
