import type { RegisteredCommand } from './command.js';
import { compareCommand } from './compare.js';
import { doctorCommand } from './doctor.js';
import { gradeCommand } from './grade.js';
import { historyCommand } from './history.js';
import { importCommand } from './import.js';
import { initCommand } from './init.js';
import { lintCommand } from './lint.js';
import { mergeCommand } from './merge.js';
import { mutateCommand } from './mutate.js';
import { planCommand } from './plan.js';
import { rejudgeCommand } from './rejudge.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { simCommand } from './sim.js';
import { tuneCommand } from './tune.js';
import { viewCommand } from './view.js';

/** Every command, in the order help lists them: the only list of their names. */
export const COMMANDS: readonly RegisteredCommand[] = [
  runCommand,
  gradeCommand,
  rejudgeCommand,
  reportCommand,
  compareCommand,
  mergeCommand,
  historyCommand,
  viewCommand,
  planCommand,
  tuneCommand,
  mutateCommand,
  initCommand,
  importCommand,
  lintCommand,
  simCommand,
  doctorCommand,
];
