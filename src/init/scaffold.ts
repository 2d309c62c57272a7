import { Document, isCollection, isScalar, visit } from 'yaml';
import { adapterFor, AGENT_IDS } from '../agents/registry.js';
import { configSchema } from '../run/config-schema.js';
import { NO_SKILL } from '../load/cases.js';
import { resolveDecision } from '../load/decision.js';
import { buildDesign, caseDesign } from '../stats/case-design.js';
import { decideSequential } from '../stats/sequential-design.js';
import { confusablePairs, type DescribedSkill } from '../lint/overlap.js';

/** What the config points at (relative to the project), and where each file finds its JSON Schema. */
export interface ScaffoldPaths {
  skillsDir: string;
  /** The config's `cases` glob; it must match the case file written beside it. */
  cases: string;
  /** Relative path from each file's folder to its schema, for the `yaml-language-server` line. */
  schema: { config: string; cases: string; profile: string };
}

export interface ScaffoldFiles {
  config: string;
  cases: string;
  profile: string;
}

const schemaLine = (path: string) => `# yaml-language-server: $schema=${path}\n`;

/** The description's first clause: enough to remind the author what the skill is for. */
export function gist(description: string): string {
  const first = description
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s|;\s/)[0]!
    .trim()
    .replace(/[.!?]$/, '');
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

/** The siblings a prompt could pull between, each way round: the pairs lint asks a trap each way for. */
const trapPairs = (family: readonly DescribedSkill[]): [DescribedSkill, DescribedSkill][] =>
  confusablePairs(family).flatMap(({ a, b }): [DescribedSkill, DescribedSkill][] => [
    [family[a]!, family[b]!],
    [family[b]!, family[a]!],
  ]);

interface ScaffoldCase {
  id: string;
  prompt: string;
  expect: { skill: string };
  against?: string;
  tags: string[];
}

/** Per skill a happy case and a near-miss negative, then a trap each way for every pair of siblings sharing vocabulary. */
export function scaffoldCases(family: readonly DescribedSkill[]): ScaffoldCase[] {
  const perSkill = family.flatMap((s): ScaffoldCase[] => [
    {
      id: `${s.dir}-happy`,
      prompt: `TODO: a request a user would type that needs ${s.dir} — ${gist(s.description)}`,
      expect: { skill: s.dir },
      tags: ['happy'],
    },
    {
      id: `${s.dir}-near-miss`,
      prompt: `TODO: a request close to ${s.dir}'s topic that no skill should act on (a question about it, not a task)`,
      expect: { skill: NO_SKILL },
      tags: ['near-miss'],
    },
  ]);
  const traps = trapPairs(family).map(([a, b]): ScaffoldCase => ({
    id: `trap-${a.dir}-not-${b.dir}`,
    prompt: `TODO: a request in ${b.dir}'s words that really needs ${a.dir}`,
    expect: { skill: a.dir },
    against: b.dir,
    tags: ['trap'],
  }));
  return [...perSkill, ...traps];
}

/**
 * Decision overrides for the tags `init` scaffolds: a vague request may fairly go either way, a near-miss must
 * stay quiet almost always. The repo's own config ships the same two.
 */
export const TAG_PRESETS = { vague: { threshold: 0.5, delta: 0.3 }, 'near-miss': { threshold: 0.95, delta: 0.2 } } as const;
const TAG_PRESET_NOTES: Record<keyof typeof TAG_PRESETS, string> = {
  vague: 'a vague request: firing half the time is enough',
  'near-miss': 'a near-miss negative must stay quiet',
};

/** `key: value`, with its comment aligned with the others. */
const setting = (key: string, value: unknown, comment?: string) => {
  const line = `${key}: ${String(value)}`;
  return comment ? `${line.padEnd(27)} # ${comment}` : line;
};

function configText(paths: ScaffoldPaths): string {
  const c = configSchema.parse({});
  const d = c.decision;
  const { params, design } = buildDesign(resolveDecision(d, [], undefined), d.mode);
  const alwaysPassingDecidedAfter = decideSequential(
    Array<boolean>(params.maxTrials).fill(true),
    caseDesign({ decision: params, design }),
  ).trials;
  return [
    schemaLine(paths.schema.config) +
      '# skillprobe configuration, written by `skillprobe init`. Flags on `skillprobe run` override these values.',
    setting('agent', c.agent, `or run several: --agent ${AGENT_IDS.join(',')}`),
    "# No model named: each agent asks for its CLI's own default. To choose one, name it per agent:",
    '# models:',
    ...AGENT_IDS.map((id) => `#   ${id}: ${adapterFor(id).defaultModel}`),
    setting('skillsDir', paths.skillsDir),
    setting('cases', paths.cases, 'every case file (a glob, or a list of globs)'),
    setting('transcriptsDir', c.transcriptsDir, 'one folder per run: raw transcripts, results.json'),
    setting('concurrency', c.concurrency, 'trials running at once'),
    '# How each case is decided: the sequential test stops a case as soon as the evidence decides it, and decides',
    `# every case by ${design.maxTrials} trials. A skill that always passes is decided after ${alwaysPassingDecidedAfter}; \`skillprobe plan\` shows the rest.`,
    'decision:',
    setting('  mode', d.mode, "sprt: Wald's test; fixed: `trials` per case"),
    setting('  threshold', d.threshold, 'p0: the pass rate a case must reach'),
    setting('  delta', d.delta, 'p1 = p0 - delta: the rate the test must tell apart from p0'),
    setting('  alpha', d.alpha, 'chance of failing a case whose true rate is p0'),
    setting('  beta', d.beta, 'chance of passing a case whose true rate is p1'),
    setting('  minTrials', d.minTrials, 'no decision before this many trials'),
    setting(`  # maxTrials`, design.maxTrials, "a cap: below the design's maximum, a case can end INCONCLUSIVE"),
    '  tags:                     # per-tag overrides; the first matching tag of a case wins',
    ...Object.entries(TAG_PRESETS).map(([tag, o]) =>
      setting(
        `    ${tag}`,
        `{ ${Object.entries(o)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')} }`,
        TAG_PRESET_NOTES[tag as keyof typeof TAG_PRESETS],
      ),
    ),
    "# Command prefix per skill, so plan checks can read the Skill tool's args as full commands, e.g.",
    '# commands:',
    '#   my-skill: my-cli sub',
    '',
  ].join('\n');
}

/**
 * YAML with short collections on one line: the values under `flow` (`expect: { skill: x }`, `tags: [happy]`) and
 * the items of the lists under `flowItems` (`- { p: 0.95, skill: x }`).
 */
function yamlText(value: unknown, keys: { flow: readonly string[]; flowItems: readonly string[] }): string {
  const doc = new Document(value);
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || !isCollection(pair.value)) return;
      const key = String(pair.key.value);
      if (keys.flow.includes(key)) pair.value.flow = true;
      if (keys.flowItems.includes(key)) for (const item of pair.value.items) if (isCollection(item)) item.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

function casesText(paths: ScaffoldPaths, family: readonly DescribedSkill[]): string {
  return (
    schemaLine(paths.schema.cases) +
    `# A starter suite written by \`skillprobe init\`: replace every TODO prompt with a request a user would type.
# Per skill a happy case and a near-miss negative; a trap each way for every pair of siblings whose descriptions share
# vocabulary (\`against\`: the sibling the prompt is built to be mistaken for). Add \`plan:\` checks where a skill's
# command matters (see docs/files.md in skillprobe's package).
` +
    yamlText(scaffoldCases(family), { flow: ['expect', 'tags'], flowItems: [] })
  );
}

/**
 * A profile with no rule of its own: its description router plays every case, scaffolded or added later, from the
 * prompt and the family's descriptions as the CLI lists them, so editing either changes what the simulator does.
 */
function profileText(paths: ScaffoldPaths): string {
  return (
    schemaLine(paths.schema.profile) +
    `# SIMULATOR profile written by \`skillprobe init\`: a seeded stand-in for a model, NOT a model. Its numbers test
# skillprobe and the suite's wiring, never a skill: run the real model for that.
# It has no rule per case: its description router picks a skill for each prompt in proportion to how well the skill's
# description matches it (BM25), or answers without one, so a TODO prompt plays as a TODO prompt. Write the prompts,
# and a case's verdict follows them. Add \`rules:\` (\`case: <id>\` or \`prompt: <regex>\`) to script a behaviour.
` +
    yamlText({ name: 'starter', seed: 1, router: {}, default: [{ p: 1, answer: true }] }, { flow: ['router'], flowItems: ['default'] })
  );
}

/** The texts of the three files `init` writes. Pure. */
export function scaffold(family: readonly DescribedSkill[], paths: ScaffoldPaths): ScaffoldFiles {
  return { config: configText(paths), cases: casesText(paths, family), profile: profileText(paths) };
}
