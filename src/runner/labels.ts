import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { loadYamlFile } from '../load/yaml-file.js';
import { ARMS } from '../run/config-schema.js';
import type { TrialOutcome } from '../run/schema.js';
import { agreementTable, cohenKappa, labelsMoreNeeded, type LabelPair } from '../stats/cohen-kappa.js';
import type { LabelAgreement } from '../report/rejudge.js';
import { writeFileWhole } from '../util/atomic-file.js';
import { fromFolder } from '../util/paths.js';

/**
 * Human verdicts on the judge's items: the file `rejudge --labels` reads, and the one `view` writes in the transcripts
 * folder (LABELS_FILE), each label with the run it is of, who gave it and when.
 */

/** The labels file `view` keeps in the transcripts folder. */
export const LABELS_FILE = 'labels.yaml';

/** The labels file of a transcripts folder. */
export const labelsFile = (transcriptsDir: string): string => join(transcriptsDir, LABELS_FILE);

const labelSchema = z
  .object({
    /** The run the trial is of (its run.json `runId`); absent: whichever run the file is read with. */
    run: z.string().min(1).optional(),
    case: z.string().min(1),
    arm: z.enum(ARMS).default('skill'),
    n: z.number().int().min(1),
    item: z.string().min(1),
    label: z.enum(['yes', 'no']),
    note: z.string().optional(),
    by: z.string().optional(),
    at: z.string().optional(),
  })
  .strict();
export type Label = z.output<typeof labelSchema>;

export const labelsSchema = z
  .array(labelSchema)
  .min(1, 'the labels file holds no labels — list `- { case, n, item, label: yes|no }` entries');

/** The labels of a file (an InputError naming its line when it is damaged); none when it does not exist. */
export function readLabels(file: string, cwd: string): Label[] {
  return existsSync(fromFolder(cwd, file)) ? loadYamlFile(file, labelsSchema, 'labels file', cwd).value : [];
}

const sameItem = (a: Label, b: Label) => a.run === b.run && a.case === b.case && a.arm === b.arm && a.n === b.n && a.item === b.item;

/** The labels with `given` in place of any earlier label of the same items (a person changing their mind). Pure. */
export const withLabels = (labels: readonly Label[], given: readonly Label[]): Label[] => [
  ...labels.filter((l) => !given.some((g) => sameItem(l, g))),
  ...given,
];

// One write at a time per process: two labels posted at once must not each rewrite the file without the other's.
let writing: Promise<unknown> = Promise.resolve();

/** Adds `given` to the transcripts folder's labels file, whole or not at all. */
export function writeLabels(transcriptsDir: string, cwd: string, given: readonly Label[]): Promise<void> {
  const file = labelsFile(transcriptsDir);
  const next = writing.then(() => writeFileWhole(fromFolder(cwd, file), stringify(withLabels(readLabels(file, cwd), given))));
  writing = next.catch(() => undefined);
  return next;
}

/** The labels a run's trials answer to: its own, and those naming no run. Pure. */
export const labelsOfRun = (labels: readonly Label[], runId: string) => labels.filter((l) => l.run === undefined || l.run === runId);

/** The judge's stored verdicts against human labels: κ over the items both gave a yes/no verdict on, and the labels it still needs. Pure. */
export function labelAgreement(labels: readonly Label[], outcomes: readonly TrialOutcome[], confidence: number): LabelAgreement {
  const verdict = new Map(
    outcomes.flatMap((o) => (o.judge?.items ?? []).map((i) => [`${o.caseId}\u0000${o.arm}\u0000${o.n}\u0000${i.item}`, i.verdict])),
  );
  const pairs: LabelPair[] = [];
  for (const l of labels) {
    const v = verdict.get(`${l.case}\u0000${l.arm}\u0000${l.n}\u0000${l.item}`);
    if (v === 'yes' || v === 'no') pairs.push({ judge: v, human: l.label });
  }
  const table = agreementTable(pairs);
  return {
    kappa: cohenKappa(table, confidence),
    pairs: pairs.length,
    unmatched: labels.length - pairs.length,
    moreNeeded: labelsMoreNeeded(table, confidence),
  };
}
