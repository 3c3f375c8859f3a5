#!/usr/bin/env node
// The CLI's entry (bin/crucible.js imports the bundle of this file): the program over the real
// process, its exit code set, nothing else. The program itself is src/cli/program.ts.
import { processIo } from './io.js';
import { createProgram } from './program.js';

// `crucible history | head` closes the pipe early: that is the reader being done, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await createProgram(processIo()).run(process.argv.slice(2));
