// bench/transcript-memory: peak memory of `skillprobe grade` and `report --reporter html` on one run folder holding two
// large transcripts (200 MB each by default, TRANSCRIPT_MB): a real trial's stream through the real CLI, with 1 MB
// lines spliced in before its result: 8 MB of the assistant's own text, then tool output and lines the parser does not
// know. The bound (src/util/shown-text.ts, src/util/file-lines.ts): a reader holds one line (at most 32 MB), the
// assistant's text and tool-call inputs (graded: kept whole), SHOWN_CHARS of each tool output or injected skill body,
// and a few hundred bytes an event; never the file.
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from './lib.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = join(ROOT, 'dist', 'cli.js');
const MB = Number(process.env.TRANSCRIPT_MB ?? 200);
const BLOCK = 1 << 20;

/** Assistant text a long trial holds: a model's own output is bounded by its output tokens, 8 MB is far past it. */
const ASSISTANT_BLOCKS = 8;

/**
 * The i-th 1 MB line: the assistant's own text first (graded, kept whole), then tool output (files the agent read)
 * alternating with lines the parser does not know.
 */
function blockLine(i) {
  const pad = 'x'.repeat(BLOCK);
  if (i < ASSISTANT_BLOCKS)
    return JSON.stringify({
      type: 'assistant',
      message: { id: `msg_big_${i}`, role: 'assistant', content: [{ type: 'text', text: pad }] },
    });
  if (i % 2) return JSON.stringify({ type: 'noise', pad });
  return JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_big_${i}`, content: pad }] },
  });
}

/** Writes the seed transcript with `mb` one-MB blocks before its last line (the result). */
function spliceLarge(seed, to, mb) {
  const lines = readFileSync(seed, 'utf8').trimEnd().split('\n');
  const fd = openSync(to, 'w');
  try {
    for (const l of lines.slice(0, -1)) writeSync(fd, `${l}\n`);
    for (let i = 0; i < mb; i++) writeSync(fd, `${blockLine(i)}\n`);
    writeSync(fd, `${lines.at(-1)}\n`);
  } finally {
    closeSync(fd);
  }
}

export async function benchTranscriptMemory() {
  const work = mkdtempSync(join(tmpdir(), 'sp-bench-transcript-'));
  try {
    const seed = await measure(
      'node',
      [
        CLI,
        'run',
        '--sim',
        'sim/demo.profile.yaml',
        '--mode',
        'fixed',
        '--trials',
        '2',
        '--arms',
        'skill',
        '--grep',
        '^jira-move-done$',
        '--transcripts',
        work,
      ],
      { cwd: ROOT },
    );
    if (![0, 1, 3, 4].includes(seed.code)) throw new Error(`seed run failed: ${seed.stderr}`);
    const run = join(work, readdirSync(work)[0]);
    const trials = join(run, 'trials', 'jira-move-done', 'skill');
    for (const n of [1, 2]) {
      const file = join(trials, `${n}.jsonl`);
      spliceLarge(file, `${file}.big`, MB);
      renameSync(`${file}.big`, file);
    }
    const bytes = [1, 2].map((n) => statSync(join(trials, `${n}.jsonl`)).size);
    const grade = await measure('node', [CLI, 'grade', run, '--json'], { cwd: ROOT });
    if (![0, 1, 3, 4].includes(grade.code)) throw new Error(`grade failed: ${grade.stderr}`);
    const graded = JSON.parse(grade.stdout).outcomes.map((o) => o.passed);
    const html = await measure('node', [CLI, 'report', run, `--reporter=html=${join(work, 'report.html')}`], { cwd: ROOT });
    if (![0, 1, 3, 4].includes(html.code)) throw new Error(`report failed: ${html.stderr}`);
    return { transcriptMb: bytes.map((b) => b / 2 ** 20), graded, gradeMb: grade.peakMb, gradeS: grade.ms / 1000, htmlMb: html.peakMb };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function printTranscriptMemory(r) {
  const sizes = r.transcriptMb.map((m) => `${m.toFixed(0)} MB`).join(' + ');
  console.log(
    `transcripts ${sizes}: grade peak RSS ${r.gradeMb.toFixed(0)} MB in ${r.gradeS.toFixed(1)} s (passed: ${r.graded.join(', ')}); report --reporter html peak RSS ${r.htmlMb.toFixed(0)} MB (target < 300 MB whatever the size)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) printTranscriptMemory(await benchTranscriptMemory());
