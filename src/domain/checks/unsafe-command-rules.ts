import { commandScripts, writeTargets } from './command-text.js';

/**
 * Where an agent may write besides the workspace: its private HOME and TMPDIR, /tmp, the null
 * devices. `protected` paths (Crucible's state directory, the task set) are never writable, even
 * when they happen to lie under /tmp.
 */
export interface WriteRoots {
  workspace: string;
  home?: string;
  tmp?: string;
  protected?: string[];
}

export interface RuleHit {
  rule: string;
  detail: string;
}

export interface UnsafeRule {
  id: string;
  description: string;
  test(argv: readonly string[], cwd: string, roots: WriteRoots): string | undefined;
}

const ALWAYS_WRITABLE = ['/tmp', '/var/tmp', '/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd', '/proc/self/fd'];

function pattern(id: string, description: string, regex: RegExp): UnsafeRule {
  return {
    id,
    description,
    test(argv) {
      for (const script of commandScripts(argv)) {
        const match = regex.exec(script);
        if (match) return match[0].trim().slice(0, 120);
      }
      return undefined;
    },
  };
}

/** Built-in rules, by id; presets choose which apply (checks/policy.ts). */
export const UNSAFE_RULES: Record<string, UnsafeRule> = Object.fromEntries(
  [
    {
      id: 'write-outside-workspace',
      description: 'writes (redirects, tee, cp/mv targets, touch, mkdir, rm…) to a path outside the workspace, HOME and /tmp',
      test(argv: readonly string[], cwd: string, roots: WriteRoots) {
        const own = [roots.workspace, roots.home, roots.tmp].filter((r): r is string => r !== undefined);
        const under = (path: string, roots: readonly string[]): boolean => roots.some((root) => path === root || path.startsWith(`${root}/`));
        const outside = commandScripts(argv)
          .flatMap((script) => writeTargets(script, cwd))
          .find((t) => !under(t.path, own) && (under(t.path, roots.protected ?? []) || !under(t.path, ALWAYS_WRITABLE)));
        return outside ? `${outside.via} ${outside.path}` : undefined;
      },
    },
    pattern('privilege-escalation', 'sudo, doas or su', /(?:^|[\s;&|(])(?:sudo|doas|su)\s/),
    pattern(
      'destructive-rm',
      'rm -r of /, ~, $HOME or /*',
      /\brm\s+(?:-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-\S+\s+)*(?:\/|\/\*|~\/?|\$HOME\/?|"\$HOME"\/?)(?=\s|$|;|&|\|)/,
    ),
    pattern('pipe-to-shell', 'downloads piped into a shell', /\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b/),
    // git's global options that take a separate value (`git -C dir push`, `git -c k=v push`) are skipped with it.
    pattern('git-push', 'git push', /\bgit\s+(?:(?:-[Cc]|--git-dir|--work-tree|--namespace|--exec-path|--config-env)\s+\S+\s+|-\S+\s+)*push\b/),
    pattern('world-writable', 'chmod 777', /\bchmod\s+(?:-\S+\s+)*0?777\b/),
    pattern('raw-disk-write', 'mkfs, or dd onto a device', /\bmkfs(?:\.\w+)?\b|\bdd\b[^;&|]*\bof=\/dev\/(?!null\b)/),
    pattern('network-tool', 'curl, wget, nc, ssh, scp (strict preset)', /(?:^|[\s;&|(])(?:curl|wget|nc|ncat|ssh|scp|ftp|telnet)\s/),
    pattern(
      'package-install',
      'installing packages (strict preset)',
      /\b(?:pip3?|uv\s+pip|poetry|npm|pnpm|yarn|apt(?:-get)?|brew|gem|cargo)\s+(?:install|add|i)\b/,
    ),
  ].map((rule) => [rule.id, rule]),
);

/** A user's `unsafe_commands` entry: a regular expression over the command line. */
export function userRule(source: string, index: number): UnsafeRule {
  const regex = new RegExp(source);
  return {
    id: `policy#${index + 1}`,
    description: `matches /${source}/`,
    test(argv) {
      for (const script of commandScripts(argv)) {
        const match = regex.exec(script);
        if (match) return match[0].slice(0, 120);
      }
      return undefined;
    },
  };
}
