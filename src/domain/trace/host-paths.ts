/**
 * A trace names no host path: every absolute path under a directory the harness chose (the
 * attempt's, the state directory, the task set's) is written under a fixed stand-in root instead,
 * so the same attempt traces alike on any machine and a trace reveals no host layout. One mapping
 * is applied to every string of every event, so paths keep their relations to each other (a
 * command's cwd is still inside the write roots it was inside), which is all the checks compare.
 */

/** The stand-ins, longest host directory first when they nest. */
export const HOST_ROOTS = { attempt: '/crucible/attempt', state: '/crucible/state', taskset: '/crucible/taskset' } as const;

export interface HostDirs {
  attemptDir: string;
  stateDir?: string;
  tasksetDir?: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Replaces each host directory by its stand-in where it starts a path (never inside a longer name). */
export function hostPathMapper(dirs: HostDirs): (text: string) => string {
  const candidates: Array<[string | undefined, string]> = [
    [dirs.attemptDir, HOST_ROOTS.attempt],
    [dirs.stateDir, HOST_ROOTS.state],
    [dirs.tasksetDir, HOST_ROOTS.taskset],
  ];
  const pairs = candidates
    .flatMap(([dir, root]): Array<[string, string]> => (dir !== undefined && dir.length > 1 ? [[dir.replace(/\/+$/, ''), root]] : []))
    .sort((a, b) => b[0].length - a[0].length);
  if (pairs.length === 0) return (text) => text;
  const pattern = new RegExp(`(${pairs.map(([dir]) => escape(dir)).join('|')})(?=$|[/\\s'"=:;,)\\]}])`, 'g');
  const lookup = new Map(pairs);
  return (text) => text.replace(pattern, (dir) => lookup.get(dir) ?? dir);
}

/** A copy of `value` with `map` applied to every string in it, keys included. */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  return walk(value as Json, map) as T;
}

function walk(value: Json, map: (text: string) => string): Json {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, map));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [map(k), walk(v, map)]));
  return value;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
