import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { casesFileSchema } from '../load/cases.js';
import { AGENT_IDS } from '../agents/registry.js';
import { configFileSchema } from '../run/config-schema.js';
import { resultsSchema, RUN_FORMAT_VERSION, runManifestSchema, trialMetaSchema } from '../run/schema.js';
import { profileSchema } from '../sim/profile.js';

/**
 * The files an author writes, and the run folder's files that tools read, by the name of their JSON Schema
 * (`schemas/<name>.schema.json`).
 */
const SOURCES: Record<string, { schema: z.ZodTypeAny; title: string }> = {
  config: { schema: configFileSchema, title: 'skillprobe.config.yaml' },
  cases: { schema: casesFileSchema, title: 'skillprobe case file' },
  profile: { schema: profileSchema, title: 'skillprobe model SIMULATOR profile' },
  run: { schema: runManifestSchema, title: `skillprobe run folder: run.json (format ${RUN_FORMAT_VERSION})` },
  'trial-meta': {
    schema: trialMetaSchema,
    title: `skillprobe run folder: trials/<case>/<arm>/<n>.meta.json (format ${RUN_FORMAT_VERSION})`,
  },
  results: { schema: resultsSchema, title: `skillprobe run folder: results.json (format ${RUN_FORMAT_VERSION})` },
};

export const SCHEMA_NAMES = Object.keys(SOURCES);

/**
 * JSON Schemas generated from the zod schemas the loaders and the run store validate with, so an editor or a tool checks
 * exactly what skillprobe accepts and writes. The input side: fields with defaults are optional, and lists given as one string are allowed.
 */
export function jsonSchemas(): Record<string, object> {
  const schemas: Record<string, object> = Object.fromEntries(
    Object.entries(SOURCES).map(([name, { schema, title }]) => [
      name,
      {
        title,
        ...zodToJsonSchema(schema, { target: 'jsonSchema7', $refStrategy: 'none', effectStrategy: 'input', pipeStrategy: 'input' }),
      },
    ]),
  );
  // The config's schema lives in the run-folder contract, which knows no stage: the agents registry adds its ids.
  const config = schemas.config as { properties: Record<string, Record<string, object>> };
  const { agent, agents, models } = config.properties;
  schemas.config = {
    ...config,
    properties: {
      ...config.properties,
      agent: { ...agent, enum: AGENT_IDS },
      agents: { ...agents, items: { ...agents!.items, enum: AGENT_IDS } },
      models: { ...models, propertyNames: { enum: AGENT_IDS } },
    },
  };
  // A case's `expect` names one of `skill` and `not` (a refinement zod cannot publish): editors flag neither or both.
  const cases = schemas.cases as { items: { properties: { expect: object } } };
  cases.items.properties.expect = { ...cases.items.properties.expect, oneOf: [{ required: ['skill'] }, { required: ['not'] }] };
  return schemas;
}

export function schemaText(schema: object): string {
  return JSON.stringify(schema, null, 2) + '\n';
}
