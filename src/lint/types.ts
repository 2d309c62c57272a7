import type { InputProblem } from '../util/input-error.js';
import type { Skill, SkillLink } from '../load/skills.js';
import type { Case } from '../load/cases.js';

export type Severity = 'error' | 'warning';

/** Which check produced a finding (kept in --json so tools can filter). */
export type CheckId =
  | 'load'
  | 'description-length'
  | 'listing-budget'
  | 'overlap'
  | 'balance'
  | 'prompt'
  | 'allowed-tools'
  | 'profile'
  | 'symlink'
  | 'suite-health';

export interface Finding extends InputProblem {
  severity: Severity;
  check: CheckId;
}

export interface Position {
  file: string;
  line: number;
  col: number;
}

/** A loaded SKILL.md, with where its frontmatter keys were written. */
export interface LintSkill {
  dir: string;
  name: string;
  description: string;
  allowedTools?: string;
  /** Symlinks inside the folder. */
  links: SkillLink[];
  at: { name: Position; description: Position; allowedTools: Position };
}

/** A loaded case, with where its fields were written. */
export interface LintCase {
  id: string;
  prompt: string;
  /** The expected skill, or `none`. */
  expect: string;
  against: string[];
  tags: string[];
  at: { id: Position; prompt: Position };
}

/** A loaded skill as the rules read it. */
export const lintSkill = (s: Skill): LintSkill => {
  const at = (key: keyof Skill['source']['at']) => ({ file: s.source.file, ...s.source.at[key] });
  return {
    dir: s.dir,
    name: s.name,
    description: s.description,
    allowedTools: s.allowedTools,
    links: s.links,
    at: { name: at('name'), description: at('description'), allowedTools: at('allowedTools') },
  };
};

/** A loaded case as the rules read it. */
export const lintCase = (c: Case): LintCase => {
  const at = (key: keyof Case['source']['at']) => ({ file: c.source.file, ...c.source.at[key] });
  return {
    id: c.id,
    prompt: c.prompt,
    expect: c.expect.skill,
    against: c.against ?? [],
    tags: c.tags,
    at: { id: at('id'), prompt: at('prompt') },
  };
};

export function finding(check: CheckId, severity: Severity, at: Position, what: string, todo: string): Finding {
  return { severity, check, ...at, what, todo };
}

/** A skill is named by its folder or its frontmatter name, as cases and the Skill tool may do. */
export const namesSkill = (s: Pick<LintSkill, 'dir' | 'name'>, name: string) => name === s.dir || name === s.name;
