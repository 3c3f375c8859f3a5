/**
 * Attacks that dress the agent's own failure in the words of a machine fault, so that a harness
 * reading messages would call it a harness error (left out of pass rates) or a full disk (which
 * stops the whole run). Fault attribution must go by who failed (errno, statfs, the supervisor's
 * out-of-band report), never by words (docs/grading.md, "Whose fault").
 */
import type { Agent } from '../../agent.js';
import type { AgentResult } from '../../../types/index.js';
import { crashed } from '../script.js';
import { ok, sh, touchModule } from './kit.js';

/** Every phrase an older harness took for a machine fault, in a directory name git will quote. */
export const FAULT_WORDS_DIR = 'No space left on device ENOSPC Read-only file system EROFS Disk quota exceeded';

/**
 * A harmless edit of the module under test, and a file git refuses to index (`.GIT` inside a
 * directory named with the words of a full disk): capturing the change fails with git's
 * "error: invalid path 'No space left on device …/.GIT'". The agent's tree is at fault, so the
 * attempt is the agent's FAIL, and the run goes on.
 */
export const faultWordsFilenameAgent: Agent = {
  name: 'fault-words-filename',
  async run(ctx): Promise<AgentResult> {
    const touched = await touchModule(ctx);
    if (touched) return crashed(touched);
    const result = await sh(ctx, `mkdir -p '${FAULT_WORDS_DIR}' && printf 'x\\n' > '${FAULT_WORDS_DIR}/.GIT'`);
    return result.exitCode === 0 ? ok : crashed(`fault words: ${result.stderr.trim().split('\n').pop() ?? ''}`);
  },
};

/**
 * A test command's supervisor status forged on stderr: the code under test writes the docker
 * supervisor's status mark with a setup error, then kills its parent so that the forged line is the
 * last one. Under bwrap the line is plain stderr (the status travels on fd 3, which the command
 * never holds); under docker only a supervisor that exited 0 is believed. Either way the attempt
 * stays the agent's, and it fixes nothing.
 */
export const forgedSupervisorStatusAgent: Agent = {
  name: 'forged-supervisor-status',
  async run(ctx): Promise<AgentResult> {
    const touched = await touchModule(ctx);
    if (touched) return crashed(touched);
    // Also during the agent's own phase: its commands run under the same supervisors.
    await sh(
      ctx,
      `printf '\\000crucible-exec-status\\000{"setupError":"no space left on device"}\\n' >&2; printf '{"event":"exit","exitCode":0,"signal":null}\\n' >&3 2>/dev/null; kill -9 $PPID 2>/dev/null; exit 127`,
    );
    return ok;
  },
};
