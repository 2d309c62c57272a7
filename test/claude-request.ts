/** Claude Code's skill listing as it sends it: a reminder of `- name: description` lines in the first user message. */
export const claudeListing = (family: readonly { name: string; description: string }[]): string =>
  [
    '<system-reminder>',
    'The following skills are available for use with the Skill tool:',
    '',
    ...family.map((s) => `- ${s.name}: ${s.description}`),
    '</system-reminder>',
  ].join('\n');
