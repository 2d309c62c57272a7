import type { InputProblem } from '../util/input-error.js';
import type { SkillLink } from '../load/skills.js';

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

export function finding(check: CheckId, severity: Severity, at: Position, what: string, todo: string): Finding {
  return { severity, check, ...at, what, todo };
}

/** A skill is named by its folder or its frontmatter name, as cases and the Skill tool may do. */
export const namesSkill = (s: Pick<LintSkill, 'dir' | 'name'>, name: string) => name === s.dir || name === s.name;
