import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gradePlans } from '../src/grade/plan.js';
import { hashFiles, loadSkills } from '../src/load/skills.js';
import { compileLinearRegex } from '../src/util/linear-regex.js';
import { createSealedWorkspace } from '../src/workspace/sealed.js';
import { baseProject, cleanup, makeProject, runInProcess, skillMd, spyBinary, testEnv, type Files } from './helpers.js';

/** Undoes what `make` set up once the CLI has finished (a socket lives only while its server listens). */
type Undo = () => Promise<void>;

/** A project: the base one, changed. */
interface Setup {
  name: string;
  change?: (f: Files) => void;
  /** What text files cannot express: symlinks, FIFOs, sockets; made inside the project folder. */
  make?: (dir: string) => void | Promise<Undo>;
  command?: 'run' | 'plan' | 'lint';
  args?: string[];
}

/** A bad input and the message it must get. */
interface Row extends Setup {
  /** The file[:line:col] (or flag) the message must name. */
  where: RegExp;
  /** A word of the explanation, on the same line. */
  says: RegExp;
}

const put = (rel: string, text: string) => (f: Files) => void (f[rel] = text);
const caseFile = (text: string) => put('cases/main.yaml', text);
const without = (rel: string) => (f: Files) => void delete f[rel];

const inside = (dir: string, rel: string) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  return join(dir, rel);
};
const link = (rel: string, target: string) => (dir: string) => symlinkSync(target, inside(dir, rel));
/** A file of `mb` megabytes that takes no disk (sparse): what a size cap must refuse without reading it. */
const sparse = (rel: string, mb: number) => (dir: string) => {
  writeFileSync(inside(dir, rel), '');
  truncateSync(join(dir, rel), mb * 1024 * 1024);
};
const fifo = (rel: string) => (dir: string) => void execFileSync('mkfifo', [inside(dir, rel)]);
const both =
  (...makers: ((dir: string) => void)[]) =>
  (dir: string) =>
    makers.forEach((m) => m(dir));
const socket = (rel: string) => async (dir: string) => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(inside(dir, rel), done));
  return () => new Promise<void>((done) => server.close(() => done()));
};

/** "Billion laughs": each level names the one before nine times, so six short lines stand for 9^6 values. */
const aliasBomb = (lineStart: string) =>
  Array.from(
    { length: 6 },
    (_, i) =>
      `${lineStart.replace('#', String(i))}&l${i} [${Array(9)
        .fill(i === 0 ? '"lol"' : `*l${i - 1}`)
        .join(', ')}]`,
  ).join('\n') + '\n';

const BOM = '\uFEFF';
const MAX_ARG_STRLEN = 131072;
const oneCase = (lines: string) => `- id: a\n${lines}`;
const planCheck = (key: 'matches' | 'mustNot', patterns: string[]) =>
  caseFile(`- id: a\n  prompt: do alpha\n  expect: { skill: alpha }\n  plan:\n    ${key}: [${patterns.map((p) => `'${p}'`).join(', ')}]\n`);

const BAD: Row[] = [
  // 1. alias bombs, in every YAML input
  {
    name: 'alias bomb in the config',
    change: put('skillprobe.config.yaml', aliasBomb('l#: ')),
    where: /skillprobe\.config\.yaml:3:10:/,
    says: /alias cannot be expanded.*Excessive alias count/,
  },
  { name: 'alias bomb in a case file', change: caseFile(aliasBomb('- ')), where: /cases\/main\.yaml:3:8:/, says: /Excessive alias count/ },
  {
    name: 'an unknown YAML tag in a case file',
    change: caseFile('- id: a\n  prompt: !!python/object:os.system hi\n  expect: { skill: alpha }\n'),
    where: /cases\/main\.yaml:2:11:/,
    says: /unknown YAML tag !!python\/object:os\.system — remove the tag/,
  },
  {
    name: 'an unknown YAML tag in the config',
    change: put('skillprobe.config.yaml', 'trials: !custom 3\n'),
    where: /skillprobe\.config\.yaml:1:9:/,
    says: /unknown YAML tag !custom/,
  },
  {
    name: 'alias bomb in SKILL.md frontmatter',
    change: put('skills/alpha/SKILL.md', `---\nname: alpha\ndescription: Handle alpha.\n${aliasBomb('x#: ')}---\nbody\n`),
    where: /skills\/alpha\/SKILL\.md:6:10:/,
    says: /Excessive alias count/,
  },
  {
    name: 'alias bomb in a simulator profile (--sim)',
    change: put('sim.yaml', aliasBomb('l#: ')),
    args: ['--sim', 'sim.yaml'],
    where: /sim\.yaml:3:10:/,
    says: /Excessive alias count/,
  },
  {
    name: 'alias bomb in a case file (plan)',
    command: 'plan',
    change: caseFile(aliasBomb('- ')),
    where: /cases\/main\.yaml:3:8:/,
    says: /Excessive alias count/,
  },
  {
    name: 'alias bomb in the config (lint)',
    command: 'lint',
    change: put('skillprobe.config.yaml', aliasBomb('l#: ')),
    where: /skillprobe\.config\.yaml:3:10:/,
    says: /Excessive alias count/,
  },
  {
    name: 'alias bomb in frontmatter (lint)',
    command: 'lint',
    change: put('skills/alpha-beta/SKILL.md', `---\nname: alpha-beta\ndescription: Beta.\n${aliasBomb('x#: ')}---\n`),
    where: /skills\/alpha-beta\/SKILL\.md:6:10:/,
    says: /Excessive alias count/,
  },
  {
    name: 'alias bomb in a profile (lint --sim)',
    command: 'lint',
    change: put('sim.yaml', aliasBomb('l#: ')),
    args: ['--sim', 'sim.yaml'],
    where: /sim\.yaml:3:10:/,
    says: /Excessive alias count/,
  },
  {
    name: 'a hundred and one flat aliases to one anchor',
    change: caseFile(oneCase(`  prompt: &p do alpha\n  expect: { skill: alpha }\n  tags: [${Array(101).fill('*p').join(', ')}]\n`)),
    where: /cases\/main\.yaml:4:10:/,
    says: /Excessive alias count/,
  },
  {
    name: 'alias with no anchor',
    change: caseFile(oneCase('  prompt: *nothing\n  expect: { skill: alpha }\n')),
    where: /cases\/main\.yaml:2:11:/,
    says: /Unresolved alias/,
  },

  // 2. a byte order mark is accepted, and does not shift columns
  {
    name: 'BOM case file: a bad id is still at column 7',
    change: caseFile(`${BOM}- id: "a/b"\n  prompt: hello\n  expect: { skill: none }\n`),
    where: /cases\/main\.yaml:1:7:/,
    says: /letters, digits/,
  },
  {
    name: 'BOM config: a wrong type is still at column 9',
    change: put('skillprobe.config.yaml', `${BOM}trials: many\n`),
    where: /skillprobe\.config\.yaml:1:9:/,
    says: /should be number/,
  },
  {
    name: 'BOM SKILL.md: a bad name is still at 2:7',
    change: put('skills/alpha/SKILL.md', BOM + skillMd('Alpha_Tool', 'Does alpha.')),
    where: /skills\/alpha\/SKILL\.md:2:7:/,
    says: /breaks the Agent Skills rule/,
  },

  // 3. dangling and looping symlinks
  {
    name: 'dangling symlink to a missing folder',
    make: link('skills/gamma', '../missing-folder'),
    where: /skills\/gamma:/,
    says: /dangling symlink.*\.\.\/missing-folder/,
  },
  {
    name: 'dangling symlink to a missing file inside a skill',
    make: link('skills/alpha/ref.md', '../../nowhere.md'),
    where: /skills\/alpha\/ref\.md:/,
    says: /dangling symlink.*nowhere\.md/,
  },
  {
    name: 'SKILL.md that is a dangling symlink',
    change: without('skills/alpha/SKILL.md'),
    make: link('skills/alpha/SKILL.md', '/no/such/SKILL.md'),
    where: /skills\/alpha\/SKILL\.md:/,
    says: /dangling symlink.*\/no\/such/,
  },
  {
    name: 'dangling symlink deep inside a skill',
    make: link('skills/alpha-beta/scripts/lib/tool.sh', '../../gone.sh'),
    where: /skills\/alpha-beta\/scripts\/lib\/tool\.sh:/,
    says: /dangling symlink/,
  },
  { name: 'symlink to itself', make: link('skills/alpha/loop', 'loop'), where: /skills\/alpha\/loop:/, says: /symlink loop/ },
  {
    name: 'symlink up to a folder holding it',
    make: link('skills/alpha/up', '..'),
    where: /skills\/alpha\/up:/,
    says: /symlink loop.*holds the link itself/,
  },
  { name: 'symlink to the root folder', make: link('skills/alpha/root', '/'), where: /skills\/alpha\/root:/, says: /symlink loop/ },
  {
    name: 'dangling symlink (plan)',
    command: 'plan',
    make: link('skills/gamma', 'missing'),
    where: /skills\/gamma:/,
    says: /dangling symlink/,
  },
  {
    name: 'dangling symlink (lint)',
    command: 'lint',
    make: link('skills/alpha/ref.md', 'missing.md'),
    where: /skills\/alpha\/ref\.md:/,
    says: /dangling symlink/,
  },

  // 4. FIFOs, sockets and devices inside a skill (never opened: the checks must not block)
  { name: 'FIFO at the top of a skill', make: fifo('skills/alpha/pipe'), where: /skills\/alpha\/pipe:/, says: /FIFO/ },
  {
    name: 'FIFO nested in a skill',
    make: fifo('skills/alpha/scripts/deep/pipe'),
    where: /skills\/alpha\/scripts\/deep\/pipe:/,
    says: /FIFO/,
  },
  {
    name: 'SKILL.md that is a FIFO',
    change: without('skills/alpha/SKILL.md'),
    make: fifo('skills/alpha/SKILL.md'),
    where: /skills\/alpha\/SKILL\.md:/,
    says: /FIFO/,
  },
  {
    name: 'symlink to a FIFO outside the skills',
    make: both(fifo('elsewhere/pipe'), link('skills/alpha/tool', '../../elsewhere/pipe')),
    where: /skills\/alpha\/tool:/,
    says: /FIFO.*through a symlink/,
  },
  { name: 'socket in a skill', make: socket('skills/alpha/agent.sock'), where: /skills\/alpha\/agent\.sock:/, says: /socket/ },
  {
    name: 'socket nested in a skill',
    make: socket('skills/alpha-beta/run/s.sock'),
    where: /skills\/alpha-beta\/run\/s\.sock:/,
    says: /socket/,
  },
  {
    name: 'symlink to /dev/null in a skill',
    make: link('skills/alpha/null', '/dev/null'),
    where: /skills\/alpha\/null:/,
    says: /device file.*\/dev\/null/,
  },
  // 4b. links out of the skill folder would hand what they name to the model in every trial
  {
    name: 'symlink to a secret outside the project',
    make: both((dir) => writeFileSync(inside(dir, '../secret.txt'), 'key\n'), link('skills/alpha/ref.md', '../../../secret.txt')),
    where: /skills\/alpha\/ref\.md:/,
    says: /leads outside the skill folder.*secret\.txt/,
  },
  {
    name: "symlink to a sibling skill's SKILL.md",
    make: link('skills/alpha/ref.md', '../alpha-beta/SKILL.md'),
    where: /skills\/alpha\/ref\.md:/,
    says: /leads outside the skill folder/,
  },
  {
    name: 'symlink to a common folder beside the skills',
    make: both((dir) => writeFileSync(inside(dir, 'common/x.sh'), 'echo\n'), link('skills/alpha/common', '../../common')),
    where: /skills\/alpha\/common:/,
    says: /leads outside the skill folder/,
  },
  {
    name: 'symlink out of the skill folder (lint)',
    command: 'lint',
    make: link('skills/alpha/home', '/etc/hostname'),
    where: /skills\/alpha\/home:/,
    says: /leads outside the skill folder/,
  },
  {
    name: 'SKILL.md linked to /dev/null',
    change: without('skills/alpha/SKILL.md'),
    make: link('skills/alpha/SKILL.md', '/dev/null'),
    where: /skills\/alpha\/SKILL\.md:/,
    says: /device file/,
  },
  { name: 'FIFO in a skill (plan)', command: 'plan', make: fifo('skills/alpha/pipe'), where: /skills\/alpha\/pipe:/, says: /FIFO/ },
  {
    name: 'FIFO in a skill (lint)',
    command: 'lint',
    make: fifo('skills/alpha-beta/pipe'),
    where: /skills\/alpha-beta\/pipe:/,
    says: /FIFO/,
  },
  {
    name: 'config file that is a FIFO',
    make: fifo('pipe.yaml'),
    args: ['--config', 'pipe.yaml'],
    where: /pipe\.yaml:/,
    says: /config file is a FIFO/,
  },
  {
    name: 'config file that is a folder',
    make: (dir) => mkdirSync(join(dir, 'conf.yaml')),
    args: ['--config', 'conf.yaml'],
    where: /conf\.yaml/,
    says: /is a folder/,
  },
  {
    name: 'simulator profile that is a device',
    args: ['--sim', '/dev/null'],
    where: /\/dev\/null:/,
    says: /simulator profile is a device file/,
  },

  // 5. a skill folder called `none`
  {
    name: 'skill folder named none',
    change: put('skills/none/SKILL.md', skillMd('none', 'Does nothing.')),
    where: /skills\/none:/,
    says: /clashes with `expect: \{ skill: none \}`/,
  },
  {
    name: 'skill folder named none (plan)',
    command: 'plan',
    change: put('skills/none/SKILL.md', skillMd('none', 'Does nothing.')),
    where: /skills\/none:/,
    says: /clashes/,
  },
  {
    name: 'skill folder named none (lint)',
    command: 'lint',
    change: put('skills/none/SKILL.md', skillMd('none', 'Does nothing.')),
    where: /skills\/none:/,
    says: /clashes/,
  },

  // 6. prompts and ids the OS cannot take
  {
    name: 'NUL in a prompt ("\\0")',
    change: caseFile(oneCase('  prompt: "before\\0after"\n  expect: { skill: alpha }\n')),
    where: /cases\/main\.yaml:2:11:/,
    says: /NUL character/,
  },
  {
    name: 'NUL in the second case\'s prompt ("\\x00")',
    change: caseFile(`- id: a\n  prompt: fine\n  expect: { skill: alpha }\n- id: b\n  prompt: "x\\x00"\n  expect: { skill: none }\n`),
    where: /cases\/main\.yaml:5:11:/,
    says: /case "b".*NUL/,
  },
  {
    name: 'prompt of 131072 bytes',
    change: caseFile(oneCase(`  prompt: ${'x'.repeat(MAX_ARG_STRLEN)}\n  expect: { skill: alpha }\n`)),
    where: /cases\/main\.yaml:2:11:/,
    says: /131072 bytes.*at most 131071/,
  },
  {
    name: 'prompt of 43691 three-byte characters (bytes, not characters)',
    change: caseFile(oneCase(`  prompt: ${'€'.repeat(43691)}\n  expect: { skill: alpha }\n`)),
    where: /cases\/main\.yaml:2:11:/,
    says: /131073 bytes/,
  },
  {
    name: 'too long a prompt in a block scalar',
    change: caseFile(oneCase(`  expect: { skill: none }\n  prompt: |\n    ${'y'.repeat(MAX_ARG_STRLEN)}\n`)),
    where: /cases\/main\.yaml:3:11:/,
    says: /bytes/,
  },
  {
    name: 'too long a prompt (plan)',
    command: 'plan',
    change: caseFile(oneCase(`  prompt: ${'x'.repeat(200_000)}\n  expect: { skill: alpha }\n`)),
    where: /cases\/main\.yaml:2:11:/,
    says: /200000 bytes/,
  },
  {
    name: 'case id of 300 characters',
    change: caseFile(`- id: ${'a'.repeat(300)}\n  prompt: hi\n  expect: { skill: none }\n`),
    where: /cases\/main\.yaml:1:7:/,
    says: /300 bytes.*at most 255/,
  },
  {
    name: 'case id of 256 characters',
    change: caseFile(`- id: ${'b'.repeat(256)}\n  prompt: hi\n  expect: { skill: none }\n`),
    where: /cases\/main\.yaml:1:7:/,
    says: /256 bytes/,
  },

  // 7. regular expressions the linear-time engine cannot run
  {
    name: 'backreference in plan.matches',
    change: planCheck('matches', ['(a)\\1']),
    where: /cases\/main\.yaml:5:15:/,
    says: /syntax the linear-time engine does not support/,
  },
  {
    name: 'lookahead in plan.mustNot',
    change: planCheck('mustNot', ['(?=x)']),
    where: /cases\/main\.yaml:5:15:/,
    says: /does not support/,
  },
  {
    name: 'negative lookahead',
    change: planCheck('matches', ['create(?!-issue)']),
    where: /cases\/main\.yaml:5:15:/,
    says: /does not support/,
  },
  { name: 'lookbehind', change: planCheck('matches', ['(?<=--project )OPS']), where: /cases\/main\.yaml:5:15:/, says: /does not support/ },
  {
    name: 'negative lookbehind',
    change: planCheck('mustNot', ['(?<!no-)force']),
    where: /cases\/main\.yaml:5:15:/,
    says: /does not support/,
  },
  {
    name: 'named backreference',
    change: planCheck('matches', ['(?<q>["])x\\k<q>']),
    where: /cases\/main\.yaml:5:15:/,
    says: /does not support/,
  },
  {
    name: 'the second pattern of a list',
    change: planCheck('matches', ['create', '(a)\\1']),
    where: /cases\/main\.yaml:5:25:/,
    says: /"\(a\)\\\\1" uses syntax/,
  },
  {
    name: 'broken pattern (plan)',
    command: 'plan',
    change: planCheck('matches', ['[unclosed']),
    where: /cases\/main\.yaml:5:15:/,
    says: /invalid regular expression.*missing closing \]/,
  },
  { name: 'backreference in --grep', args: ['--grep', '(a)\\1'], where: /--grep:/, says: /does not support/ },
  { name: 'lookahead in --grep (plan)', command: 'plan', args: ['--grep', 'pos(?=-)'], where: /--grep:/, says: /does not support/ },
  { name: 'broken --grep', args: ['--grep', '['], where: /--grep:/, says: /invalid regular expression/ },

  // 7. a case's tune split, and skill-creator trigger eval sets (JSON) among the case files
  {
    name: 'a split that is not a tune split',
    change: caseFile(oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  split: train\n')),
    where: /cases\/main\.yaml:4:10:/,
    says: /split.*"train".*use one of "tune", "select", "holdout"/,
  },
  {
    name: 'a trigger eval set entry without should_trigger',
    change: put('cases/alpha.json', '[\n  {"query": "do alpha", "should_trigger": true},\n  {"query": "weather"}\n]\n'),
    args: ['--cases', 'cases/*'],
    where: /cases\/alpha\.json:3:3:/,
    says: /entry 2 has no "should_trigger"/,
  },
  {
    name: 'a trigger eval set that is not JSON',
    change: put('cases/alpha.json', '- query: do alpha\n  should_trigger: true\n'),
    args: ['--cases', 'cases/*'],
    where: /cases\/alpha\.json:1:2:/,
    says: /not valid JSON/,
  },
  {
    name: 'a trigger eval set that names no skill',
    change: put('cases/evals.json', '[{"query": "do alpha", "should_trigger": true}]'),
    args: ['--cases', 'cases/*'],
    where: /cases\/evals\.json:/,
    says: /cannot tell which skill/,
  },
  {
    name: 'a workspace folder outside the project',
    change: put('skillprobe.config.yaml', 'workspace: ../elsewhere\n'),
    where: /^skillprobe: skillprobe\.config\.yaml:1:12: /,
    says: /: \.\.\/elsewhere leads outside the project \(to .*\) — keep the folder inside the project, and name it relative to skillprobe\.config\.yaml$/,
  },
  {
    name: 'a workspace folder given as an absolute path',
    change: put('skillprobe.config.yaml', 'workspace: /etc\n'),
    where: /^skillprobe: skillprobe\.config\.yaml:1:12: /,
    says: /: \/etc is an absolute path — name the folder relative to skillprobe\.config\.yaml, inside the project$/,
  },
  {
    name: 'a workspace folder that does not exist',
    change: put('skillprobe.config.yaml', 'workspace: fixtures\n'),
    where: /^skillprobe: skillprobe\.config\.yaml:1:12: /,
    says: /: fixtures does not exist — create the folder, or fix the path$/,
  },
  {
    name: 'a workspace folder that is a symlink out of the project',
    change: put('skillprobe.config.yaml', 'workspace: fixtures\n'),
    make: link('fixtures', '/usr'),
    where: /^skillprobe: skillprobe\.config\.yaml:1:12: /,
    says: /: fixtures is a symlink leading outside the project \(to \/usr\) — copy the folder into the project, or fix the path$/,
  },
  {
    name: "a case's instruction file that does not exist",
    change: caseFile(oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  instructions: notes/CLAUDE.md\n')),
    where: /^skillprobe: cases\/main\.yaml:4:17: /,
    says: /: notes\/CLAUDE\.md does not exist — create the file, or fix the path$/,
  },
  {
    name: 'a symlink leaving the fixture folder',
    change: put('skillprobe.config.yaml', 'workspace: fixtures\n'),
    make: both((dir) => writeFileSync(inside(dir, 'fixtures/data.csv'), 'a,b\n'), link('fixtures/secret', '/etc/hostname')),
    where: /^skillprobe: fixtures\/secret: /,
    says: /symlink to \/etc\/hostname leads outside the fixture folder \(to \/etc\/hostname\), and a trial would hand what it names to the model — copy the file into the fixture folder if a trial needs it, or remove the link$/,
  },
  {
    name: 'a fixture folder over the size cap',
    change: put('skillprobe.config.yaml', 'workspace: fixtures\n'),
    make: sparse('fixtures/big.bin', 11),
    where: /^skillprobe: skillprobe\.config\.yaml:1:12: /,
    says: /: the fixture folder holds 11\.0 MB, over the 10\.0 MB a trial may be handed — keep only the files the prompts need$/,
  },
  {
    name: "a case whose files and the suite's pass the size cap together",
    change: (f) => {
      f['skillprobe.config.yaml'] = 'workspace: fixtures\n';
      f['cases/main.yaml'] = oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  files: ../more\n');
    },
    make: both(sparse('fixtures/a.bin', 6), sparse('more/b.bin', 6)),
    where: /^skillprobe: cases\/main\.yaml:4:10: /,
    says: /: this case's fixtures \(the suite's workspace, its own files and the instruction file\) come to 12\.0 MB, over the 10\.0 MB a trial may be handed — keep only the files its prompt needs$/,
  },
  {
    name: 'an inline fixture path leaving the workspace',
    change: caseFile(oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  files: { "../escape.txt": "x" }\n')),
    where: /^skillprobe: cases\/main\.yaml:4:29: /,
    says: /: "\.\.\/escape\.txt" leads outside the trial's workspace — name the file by a path relative to the workspace root, like `data\/report\.csv`$/,
  },
  {
    name: 'an inline fixture given as an absolute path',
    change: caseFile(oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  files: { "/tmp/x.txt": "x" }\n')),
    where: /^skillprobe: cases\/main\.yaml:4:26: /,
    says: /: "\/tmp\/x\.txt" is an absolute path — /,
  },
  {
    name: "an inline fixture in a CLI's skills folder",
    change: caseFile(oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  files: { ".claude/skills/evil/SKILL.md": "x" }\n')),
    where: /^skillprobe: cases\/main\.yaml:4:44: /,
    says: /: \.claude\/skills\/evil\/SKILL\.md lands in \.claude, a folder an agent CLI reads skills or settings from — rename or move it \(the instruction file is `instructions:`, the skills are the family\)$/,
  },
  {
    name: "a fixture folder holding another CLI's skills folder",
    change: put('skillprobe.config.yaml', 'workspace: fixtures\n'),
    make: (dir) => writeFileSync(inside(dir, 'fixtures/.agents/skills/x/SKILL.md'), skillMd('x', 'Handle x.')),
    where: /^skillprobe: skillprobe\.config\.yaml:1:12: /,
    says: /: \.agents\/skills\/x\/SKILL\.md lands in \.agents, a folder an agent CLI reads skills or settings from — /,
  },
  {
    name: 'a fixture named like an instruction file',
    change: put('skillprobe.config.yaml', 'workspace:\n  docs/agents.md: "be brief"\n'),
    where: /^skillprobe: skillprobe\.config\.yaml:2:19: /,
    says: /: docs\/agents\.md is named like AGENTS\.md, an instruction file an agent CLI reads — rename or move it \(the instruction file is `instructions:`/,
  },
  {
    name: "a case's fixture under a path the suite's fixtures hold as a file",
    change: (f) => {
      f['skillprobe.config.yaml'] = 'workspace: { data: "x" }\n';
      f['cases/main.yaml'] = oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  files: { data/a.csv: "1" }\n');
    },
    where: /^skillprobe: cases\/main\.yaml:4:24: /,
    says: /: data\/a\.csv needs data to be a folder, but data is a file of the fixtures too — rename one of them$/,
  },
];

/** Rows that must get through loading: the spy agent is spawned. */
const GOOD: Setup[] = [
  { name: 'BOM in SKILL.md', change: put('skills/alpha/SKILL.md', BOM + skillMd('alpha', 'Handle alpha.')) },
  { name: 'BOM in a case file', change: (f) => void (f['cases/main.yaml'] = BOM + f['cases/main.yaml']!) },
  { name: 'BOM in the config', change: put('skillprobe.config.yaml', `${BOM}model: sonnet\n`) },
  { name: 'BOM in a simulator profile', change: put('sim.yaml', `${BOM}seed: 3\n`), args: ['--sim', 'sim.yaml'] },
  {
    name: 'prompt of 131071 bytes',
    change: caseFile(oneCase(`  prompt: ${'x'.repeat(MAX_ARG_STRLEN - 1)}\n  expect: { skill: alpha }\n`)),
  },
  { name: 'case id of 255 characters', change: caseFile(`- id: ${'c'.repeat(255)}\n  prompt: hi\n  expect: { skill: none }\n`) },
  { name: 'catastrophic-for-backtracking pattern', change: planCheck('matches', ['^(a+)+$']) },
  {
    name: 'a case pinned to a tune split',
    change: caseFile(oneCase('  prompt: do alpha\n  expect: { skill: alpha }\n  split: holdout\n')),
  },
  {
    name: 'a trigger eval set beside the YAML cases',
    change: put('cases/alpha.evals.json', '[{"query": "do alpha", "should_trigger": true}, {"query": "weather", "should_trigger": false}]'),
    args: ['--cases', 'cases/*'],
  },
  {
    name: 'symlinked file and folder inside a skill',
    make: both(
      (dir) => writeFileSync(inside(dir, 'skills/alpha/docs/x.sh'), 'echo\n'),
      link('skills/alpha/ref.md', 'docs/x.sh'),
      link('skills/alpha/scripts', 'docs'),
    ),
  },
  {
    name: 'fixtures: a folder with links inside it, inline files, an instruction file, a case replacing a suite file',
    change: (f) => {
      f['skillprobe.config.yaml'] = 'workspace: fixtures\ninstructions: { text: "Answer briefly." }\n';
      f['cases/main.yaml'] = oneCase(
        '  prompt: do alpha\n  expect: { skill: alpha }\n  files: { data.csv: "x,y\\n" }\n  instructions: ../NOTES.md\n',
      );
      f['NOTES.md'] = 'Use the team conventions.\n';
    },
    make: both((dir) => writeFileSync(inside(dir, 'fixtures/data.csv'), 'a,b\n'), link('fixtures/copy.csv', 'data.csv')),
  },
  {
    name: 'a skill folder that is itself a symlink',
    make: both(
      (dir) => writeFileSync(inside(dir, 'elsewhere/gamma/SKILL.md'), skillMd('gamma', 'Handle gamma.')),
      link('skills/gamma', '../elsewhere/gamma'),
    ),
  },
];

const EXIT = { run: 2, plan: 2, lint: 1 } as const; // lint reports findings and exits 1 on any error

/** Every path in the project, symlinks not followed (readdir's `recursive` follows them): what must still be there after a refused run. */
const listing = (dir: string, rel = ''): string[] =>
  readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? [join(rel, d.name), ...listing(dir, join(rel, d.name))] : [join(rel, d.name)],
  );

async function runRow(row: Setup, dirs: string[]) {
  const files = baseProject();
  row.change?.(files);
  const dir = makeProject(files);
  dirs.push(dir);
  const undo = await row.make?.(dir);
  const spy = spyBinary(dir);
  const before = listing(dir);
  const command = row.command ?? 'run';
  const args =
    command === 'run' ? ['run', '--agent-binary', spy.path, '--transcripts', 'runs', '--trials', '1', '--arms', 'skill'] : [command];
  try {
    const r = await runInProcess([...args, ...(row.args ?? [])], { cwd: dir, env: testEnv({ ANTHROPIC_API_KEY: 'dummy' }) });
    return { r, dir, spy, before, after: listing(dir), command };
  } finally {
    await undo?.();
  }
}

describe('bad input files: one clear line, refused before anything is created or started', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('covers at least 45 kinds of bad input', () => {
    expect(BAD.length).toBeGreaterThanOrEqual(45);
  });

  it.each(BAD)('$name', async (row) => {
    const { r, dir, spy, before, after, command } = await runRow(row, dirs);
    const out = command === 'lint' ? r.stdout : r.stderr;
    expect(r.exitCode, out).toBe(EXIT[command]);
    const line = out.split('\n').find((l) => row.where.test(l));
    expect(line, out).toBeDefined();
    expect(line).toMatch(row.says);
    expect(r.stderr + r.stdout).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack trace
    expect(existsSync(spy.marker)).toBe(false);
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    expect(after).toEqual(expect.arrayContaining(before));
  });

  it.each(GOOD)('accepted: $name (the agent is spawned)', async (row) => {
    const { r, spy } = await runRow(row, dirs);
    expect(r.exitCode, r.stderr).not.toBe(2);
    expect(existsSync(spy.marker), r.stderr + r.stdout).toBe(true);
  });
});

describe('patterns run on a linear-time engine', () => {
  it('a pattern that backtracks exponentially grades at once', () => {
    const started = Date.now();
    const g = gradePlans(['a'.repeat(5000) + 'b', 'a'.repeat(40)], { matches: ['^(a+)+$'], mustNot: ['^(a|aa)+b$'] });
    expect(g.checks.map((c) => c.pass)).toEqual([true, false]);
    expect(g.checks[0]!.detail).toBe('a'.repeat(40));
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a stored pattern the engine cannot compile fails its check, saying why', () => {
    const g = gradePlans(['atl jira create'], { matches: ['(a)\\1'], mustNot: ['(?=x)'] });
    expect(g.checks).toEqual([
      { check: 'matches /(a)\\1/', pass: false, detail: expect.stringMatching(/does not support/) },
      { check: 'mustNot /(?=x)/', pass: false, detail: expect.stringMatching(/does not support/) },
    ]);
  });

  it.each([
    ['(a)\\1', /uses syntax the linear-time engine does not support \(invalid escape sequence/],
    ['x(?!y)', /does not support/],
    ['create (issue', /^invalid regular expression "create \(issue": missing closing \)/],
  ])('%s: %s', (source, what) => {
    const c = compileLinearRegex(source);
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.what).toMatch(what);
  });
});

describe('the skills hash and the trial copy', () => {
  const root = mkdtempSync(join(tmpdir(), 'sp-hash-'));
  afterAll(() => cleanup(root));
  /** A one-skill folder with `extra` files (raw bytes) and symlinks; its loaded skill. */
  const skill = (name: string, extra: Record<string, Buffer | { link: string }>) => {
    const folder = join(root, name, 'skills', 'alpha');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'SKILL.md'), skillMd('alpha', 'Handle alpha.'));
    for (const [rel, v] of Object.entries(extra)) {
      if (Buffer.isBuffer(v)) writeFileSync(join(folder, rel), v);
      else symlinkSync(v.link, join(folder, rel));
    }
    return loadSkills(join(root, name, 'skills'))[0]!;
  };

  it('covers raw bytes: files differing only in invalid UTF-8 hash differently', () => {
    // Both decode to the same text (U+FFFD then "1"), so hashing decoded text could not tell them apart.
    const a = skill('bytes-a', { 'data.bin': Buffer.from([0xff, 0x31]) });
    const b = skill('bytes-b', { 'data.bin': Buffer.from([0xfe, 0x31]) });
    expect(Buffer.from([0xff, 0x31]).toString('utf8')).toBe(Buffer.from([0xfe, 0x31]).toString('utf8'));
    expect(a.hash).not.toBe(b.hash);
  });

  it('a symlink hashes as a link, unlike a file with the same content or naming its target', () => {
    const body = Buffer.from('shared notes\n');
    const linked = skill('link', { 'notes.md': body, 'ref.md': { link: 'notes.md' } });
    const copied = skill('copy', { 'notes.md': body, 'ref.md': body });
    const named = skill('named', { 'notes.md': body, 'ref.md': Buffer.from('notes.md') });
    expect(new Set([linked.hash, copied.hash, named.hash]).size).toBe(3);
    expect(hashFiles(linked.path, [join(linked.path, 'ref.md')])).not.toBe(hashFiles(copied.path, [join(copied.path, 'ref.md')]));
  });

  it('the trial copy of a symlinked file is a regular file, not a live link', async () => {
    const s = skill('copy-in', { 'notes.md': Buffer.from('original\n'), 'ref.md': { link: 'notes.md' } });
    expect(s.links).toEqual([{ file: expect.stringMatching(/ref\.md$/), target: 'notes.md' }]);
    const ws = await createSealedWorkspace({ skills: [s], skillsFolder: '.claude/skills', root });
    try {
      const copy = join(ws.dir, '.claude/skills/alpha/ref.md');
      expect(lstatSync(copy).isSymbolicLink()).toBe(false);
      expect(readFileSync(copy, 'utf8')).toBe('original\n');
      writeFileSync(copy, 'changed by a trial\n');
      expect(readFileSync(join(s.path, 'notes.md'), 'utf8')).toBe('original\n');
    } finally {
      await ws.cleanup();
    }
  });

  it('a link out of the folder made after loading is not copied into a trial', async () => {
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'key\n');
    const s = skill('late-link', {});
    symlinkSync(secret, join(s.path, 'ref.md'));
    const ws = await createSealedWorkspace({ skills: [s], skillsFolder: '.claude/skills', root });
    try {
      expect(existsSync(join(ws.dir, '.claude/skills/alpha/SKILL.md'))).toBe(true);
      expect(existsSync(join(ws.dir, '.claude/skills/alpha/ref.md'))).toBe(false);
    } finally {
      await ws.cleanup();
    }
  });
});
