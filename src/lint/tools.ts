import { finding, type Finding, type LintSkill } from './types.js';

/** Tool names in an `allowed-tools` value: `Bash(git add:*) Read, Grep` → Bash, Read, Grep (each once). */
export function allowedToolNames(value: string): string[] {
  const names = [...value.matchAll(/([A-Za-z_][\w-]*)(?:\([^)]*\))?/g)].map((m) => m[1]!);
  return [...new Set(names)];
}

/** A warning per tool a skill grants itself that the trial's tool lock takes away. */
export function allowedToolsFindings(skills: readonly LintSkill[], trialTools: readonly string[]): Finding[] {
  return skills.flatMap((s) =>
    allowedToolNames(s.allowedTools ?? '')
      .filter((tool) => !trialTools.includes(tool))
      .map((tool) =>
        finding(
          'allowed-tools',
          'warning',
          s.at.allowedTools,
          `${s.dir} allows ${tool}, but trials offer only ${trialTools.join(', ')}, so the skill cannot use ${tool} in a trial`,
          `expect what needs ${tool} to show up only as a plan, or drop ${tool} from allowed-tools if the skill does not need it`,
        ),
      ),
  );
}
