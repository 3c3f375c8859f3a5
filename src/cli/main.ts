#!/usr/bin/env node
// The CLI's entry (bin/crucible.js imports the bundle of this file): the program over the real
// process, its exit code set, nothing else. The program itself is src/cli/program.ts.
import { SignalLatch } from './signal-latch.js';

// First, before the program loads: a signal at any moment ends in the documented code, 130.
const signals = new SignalLatch(process, (signal) => {
  process.stderr.write(`interrupted (${signal})\n`);
  process.exit(130);
});

// `crucible history | head` closes the pipe early: that is the reader being done, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// `crucible --version` alone is answered before the program (commander and every command's
// declaration) loads: it is what scripts and CI call to probe the tool, and it stays within 2x a
// bare `node` (docs/BENCHMARKS.md). The line is the one commander prints for it.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { version } = await import('../core/version.js');
  process.stdout.write(`${version()}\n`);
  process.exitCode = 0;
} else {
  const { processIo } = await import('./io.js');
  const { createProgram } = await import('./program.js');
  process.exitCode = await createProgram(processIo(signals)).run(args);
}
