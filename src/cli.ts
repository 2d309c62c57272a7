#!/usr/bin/env node
import { main } from './cli/main.js';
import { EXIT } from './run/exit-codes.js';

// A reader that went away (`skillprobe run | head`) stops what is printed, never the command.
let outputLost = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') outputLost = true;
  });
}

const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
void main(process.argv.slice(2), io).then((code) => {
  process.exitCode = outputLost && code === EXIT.pass ? EXIT.internal : code;
});
