import { Command } from 'commander';
import { jsonOption, stateDirOption } from '../options.js';
import type { CliIo } from '../io.js';

/** `crucible manifest`: its options, arguments and help; the action is imported only when it runs. */
export function defineManifest(io: CliIo): Command {
  return new Command('manifest').description("Check a run's execution manifests: what ran, and the SHA-256 of every artifact it kept.").addCommand(
    new Command('verify')
      .description("Recompute every hash a run's manifests record, running nothing; print OK or one line per file that differs.")
      .argument('<run>', 'run id or unique prefix, or a run directory')
      .addOption(jsonOption('print the result as JSON'))
      .addOption(stateDirOption("Crucible's state directory"))
      .addHelpText(
        'after',
        `
  Each problem names its file, relative to the run directory: changed, missing, unexpected (a file
  the manifest does not list) or schema. Reports (report.md, report.html, …) are derived from the
  files the manifest covers and are not checked. See docs/evidence.md.

  Exit codes: 0 every hash matches, 1 something differs, 2 no such run.

  Examples:
    crucible manifest verify 20261201-1002
    crucible manifest verify .crucible/runs/20261201-1002 --json`,
      )
      .action(async (run: string, opts) => (await import('./manifest.js')).manifestVerifyCommand(run, opts, io)),
  );
}
