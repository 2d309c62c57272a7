import { contentWords, stem } from '../../sim/router.js';
import type { MutationOperator } from '../operator.js';

/**
 * Near synonyms a description's author might write instead of the word users type: close in meaning, another word
 * to a reader that matches words. Lower case; the first entry is taken.
 */
const NEAR_SYNONYMS: Record<string, string> = {
  bug: 'defect',
  bugs: 'defects',
  ticket: 'request',
  tickets: 'requests',
  issue: 'item',
  issues: 'items',
  sprint: 'iteration',
  sprints: 'iterations',
  backlog: 'queue',
  backlogs: 'queues',
  board: 'kanban',
  boards: 'kanbans',
  page: 'article',
  pages: 'articles',
  wiki: 'intranet',
  docs: 'documentation',
  notes: 'minutes',
  space: 'area',
  spaces: 'areas',
  csv: 'delimited',
  report: 'digest',
  summary: 'overview',
  summarise: 'condense',
  summarize: 'condense',
  totals: 'sums',
  spreadsheet: 'worksheet',
  spreadsheets: 'worksheets',
  pdf: 'document',
  slides: 'presentation',
  slide: 'presentation',
  deck: 'presentation',
  deploy: 'release',
  deployment: 'rollout',
  login: 'sign-in',
  create: 'make',
  find: 'locate',
  search: 'look up',
  update: 'revise',
  comment: 'remark',
  comments: 'remarks',
  meeting: 'session',
  file: 'document',
  files: 'documents',
  export: 'dump',
  database: 'datastore',
  test: 'check',
  tests: 'checks',
  email: 'message',
  invoice: 'bill',
  chart: 'graph',
  table: 'grid',
};

/**
 * A trigger word replaced by a near synonym: the description word most of the skill's positive prompts use (ties: its
 * first), where the table knows a near synonym; every occurrence replaced, its first letter's case kept.
 */
export const nearSynonym: MutationOperator = {
  title: 'a trigger word replaced by a near synonym',
  killedBy: 'positive cases in users\u2019 own words (each word a user would type for the request)',
  mutate({ skill, prompts }) {
    const promptStems = prompts.map((p) => new Set(contentWords(p).map(stem)));
    const candidates = [...new Set(contentWords(skill.description))].filter((w) => Object.hasOwn(NEAR_SYNONYMS, w));
    if (!candidates.length) return { inapplicable: 'no word of its description has a near synonym in the table' };
    const uses = (w: string) => promptStems.filter((s) => s.has(stem(w))).length;
    const word = candidates.reduce((best, w) => (uses(w) > uses(best) ? w : best));
    const synonym = NEAR_SYNONYMS[word]!;
    const description = skill.description.replace(new RegExp(`\\b${word}\\b`, 'gi'), (m) =>
      m[0] === m[0]!.toUpperCase() ? synonym[0]!.toUpperCase() + synonym.slice(1) : synonym,
    );
    return {
      what: `"${word}" written "${synonym}" (${uses(word)} of ${prompts.length} positive prompts use it)`,
      edits: { [skill.dir]: { description } },
    };
  },
};
