import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A recorded field run of the pinned Codex and Gemini CLIs (`test/fixtures/field/`), as text. */
export const fieldFixture = (name: string): string => readFileSync(join(import.meta.dirname, 'fixtures', 'field', name), 'utf8');
