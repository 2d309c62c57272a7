import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeInitOf } from './claude-stream.js';
import type { Results, RunManifest } from '../src/run/schema.js';
import { baseProject, projectsRemovedAfterAll, runCli, skillMd } from './helpers.js';

describe('neighbours through the real Claude Code CLI against the simulator', () => {
  const newProject = projectsRemovedAfterAll(() => ({
    ...baseProject(),
    'others/pdf-tool/SKILL.md': skillMd('pdf-tool', 'Read, split, merge and fill PDF files and their pages.'),
    'skillprobe.config.yaml': 'neighbours: others\ntrials: 1\ndecision: { mode: fixed }\nablation: always\n',
    'more/form-filler/SKILL.md': skillMd('form-filler', 'Fill in tax forms, application forms and survey forms field by field.'),
    'cases/main.yaml':
      '- id: merge-pdfs\n  prompt: "merge the PDF files report.pdf and annex.pdf into one PDF"\n  expect: { skill: alpha }\n' +
      '- id: tax-form\n  prompt: "fill in the tax form field by field"\n  expect: { skill: alpha }\n  neighbours: ../more\n',
    // The description router alone, decisive: the prompt's words are the neighbour's, so it takes the call.
    'sim.yaml': 'seed: 1\nrouter: { temperature: 0.05 }\n',
  }));

  it("lists the neighbour beside the family, routes a prompt matching it there, grades the trial as going to it, and the ablation arm lists it without the family; a case's own neighbour is listed and graded in that case's trials only", async () => {
    const project = newProject();
    const r = await runCli(['run', '--sim', 'sim.yaml', '--draw-seed', '1', '--transcripts', 'runs'], { cwd: project });
    // One failed trial decides nothing (INCONCLUSIVE, exit 3): a verdict, never an input error (2).
    expect(r.exitCode, r.stderr).toBe(3);
    const runDir = join(project, 'runs', readdirSync(join(project, 'runs'))[0]!);
    const trial = (arm: string, id = 'merge-pdfs') => readFileSync(join(runDir, 'trials', id, arm, '1.jsonl'), 'utf8');

    const skillArm = claudeInitOf(trial('skill'));
    expect(skillArm.skills).toEqual(expect.arrayContaining(['alpha', 'alpha-beta', 'pdf-tool']));
    const ablation = claudeInitOf(trial('ablation'));
    expect(ablation.skills).toContain('pdf-tool');
    expect(ablation.skills.filter((s) => ['alpha', 'alpha-beta'].includes(s))).toEqual([]);
    // The case's own neighbour: in its trials of both arms, beside the suite's; in no other case's.
    expect(skillArm.skills).not.toContain('form-filler');
    expect(claudeInitOf(trial('skill', 'tax-form')).skills).toEqual(expect.arrayContaining(['alpha', 'pdf-tool', 'form-filler']));
    expect(claudeInitOf(trial('ablation', 'tax-form')).skills).toEqual(expect.arrayContaining(['pdf-tool', 'form-filler']));

    const { outcomes } = JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')) as Results;
    expect(outcomes.find((o) => o.arm === 'skill' && o.caseId === 'tax-form')).toMatchObject({
      status: 'ok',
      fired: 'neighbour',
      firedColumn: 'neighbour:form-filler',
    });
    expect(outcomes.filter((o) => o.caseId === 'tax-form').map((o) => o.status)).toEqual(['ok', 'ok']);
    expect(outcomes.find((o) => o.arm === 'skill' && o.caseId === 'merge-pdfs')).toMatchObject({
      status: 'ok',
      fired: 'neighbour',
      firedColumn: 'neighbour:pdf-tool',
      passed: false,
      firings: [{ neighbour: 'pdf-tool', via: 'invoke', status: 'loaded' }],
    });
    expect(outcomes.find((o) => o.arm === 'ablation' && o.caseId === 'merge-pdfs')?.status).toBe('ok');

    // Recorded and snapshotted as the family is, and said in the report.
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.neighbours?.map((n) => n.dir)).toEqual(['pdf-tool']);
    expect(existsSync(join(runDir, 'neighbours', 'pdf-tool', 'SKILL.md'))).toBe(true);
    expect(manifest.cases.defs.find((c) => c.id === 'tax-form')?.neighbours?.map((n) => n.dir)).toEqual(['form-filler']);
    expect(manifest.caseNeighboursHash).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(runDir, 'neighbours', 'form-filler', 'SKILL.md'))).toBe(true);
    expect(r.stdout).toContain('neighbour pdf-tool fired in 1 of 1');
  }, 120_000);
});
