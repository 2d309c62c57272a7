import { fencedCommands } from '../../util/markdown.js';
import { siblingsOf, type MutableSkill, type MutationOperator } from '../operator.js';

/** A body's first command as words: the program, its subcommand, the rest. */
const firstCommand = (s: MutableSkill) => fencedCommands(s.body)[0]?.split(/\s+/);

const isWord = (token: string | undefined): token is string => token !== undefined && /^[a-z][\w-]*$/i.test(token);

/**
 * The command in the body changed to a wrong subcommand: the sibling's subcommand of the same program where there is
 * one (a copy-paste slip: `atl jira` written `atl confluence`), else the subcommand abbreviated at its first hyphen
 * (`create-issue` written `create`, which such CLIs reject). The model plans the call the body shows, so the plan is
 * wrong while triggering is not.
 */
export const wrongSubcommand: MutationOperator = {
  title: 'the command in the body changed to a wrong subcommand',
  // A verb check reads only calls behind the skill's command prefix, and Claude Code's skill call carries args that the
  // grader plans behind that prefix: there the wrong call the body leads to is seen only by a check against it.
  killedBy:
    'a plan check naming the subcommand (`expect.plan.verb`) on a positive case, and where the skill call carries args ' +
    '(Claude Code) a check against the wrong call itself (`expect.plan.mustNot`) or a judge item on the answer',
  mutate(t) {
    const words = firstCommand(t.skill);
    const [program, sub] = [words?.[0], words?.[1]];
    if (!words || program === undefined || !isWord(sub)) return { inapplicable: 'its body shows no command with a subcommand' };
    const sibling = siblingsOf(t)
      .map(firstCommand)
      .find((w) => w?.[0] === program && isWord(w[1]) && w[1] !== sub);
    const wrong = sibling?.[1] ?? (sub.includes('-') ? sub.slice(0, sub.indexOf('-')) : undefined);
    if (wrong === undefined) return { inapplicable: `its command's subcommand \`${sub}\` has no plausible wrong spelling` };
    const line = words.join(' ');
    const mutated = [program, wrong, ...words.slice(2)].join(' ');
    const body = t.skill.body.replace(fencedLine(t.skill.body, line), (l) => l.replace(`${program} ${sub}`, `${program} ${wrong}`));
    return { what: `body's command \`${line}\` written \`${mutated}\``, edits: { [t.skill.dir]: { body } } };
  },
};

/** The body's line holding the command (as fencedCommands trimmed it), matched whole. */
const fencedLine = (body: string, command: string) =>
  new RegExp(`^[ \\t]*(?:\\$\\s+)?${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ +/g, '\\s+')}[ \\t]*$`, 'm');
