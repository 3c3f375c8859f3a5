import { InputError, OptionError } from '../../core/errors.js';
import type { Task } from '../../core/types/index.js';
import { nearestId } from '../../core/format/index.js';

/** Which tasks of a task set to run. Each given filter narrows the selection; empty lists do not filter. */
export interface TaskSelection {
  /** Exact task ids; an unknown id is an error. */
  taskIds?: string[];
  /** A task matches when it has any of these tags. */
  tags?: string[];
  categories?: string[];
  difficulties?: string[];
}

/**
 * Applies the filters, keeping the task set's order. Unknown ids and a selection that matches
 * nothing are OptionErrors that name the selection's field (`taskIds`, `tags`, …; the CLI names
 * its flags) and the values that would work.
 */
export function selectTasks(tasks: readonly Task[], selection: TaskSelection, file: string): Task[] {
  const { taskIds, tags, categories, difficulties } = selection;
  const given = (list: string[] | undefined): list is string[] => list !== undefined && list.length > 0;
  if (given(taskIds)) {
    const unknown = taskIds.find((id) => !tasks.some((t) => t.id === id));
    if (unknown !== undefined) {
      const ids = tasks.map((t) => t.id);
      const guess = nearestId(unknown, ids);
      throw new OptionError(
        [{ field: 'taskIds', value: unknown }],
        `no such task in ${file}`,
        `${guess !== undefined ? `did you mean ${guess}? ` : ''}use one of ${list(ids)}`,
      );
    }
  }
  const selected = tasks.filter(
    (t) =>
      (!given(taskIds) || taskIds.includes(t.id)) &&
      (!given(tags) || t.metadata.tags.some((tag) => tags.includes(tag))) &&
      (!given(categories) || (t.metadata.category !== undefined && categories.includes(t.metadata.category))) &&
      (!given(difficulties) || (t.metadata.difficulty !== undefined && difficulties.includes(t.metadata.difficulty))),
  );
  if (selected.length === 0) {
    const filters = [
      ...(given(taskIds) ? [{ field: 'taskIds', value: taskIds.join(',') }] : []),
      ...(given(tags) ? [{ field: 'tags', value: tags.join(',') }] : []),
      ...(given(categories) ? [{ field: 'categories', value: categories.join(',') }] : []),
      ...(given(difficulties) ? [{ field: 'difficulties', value: difficulties.join(',') }] : []),
    ];
    if (filters.length === 0) throw new InputError(`${file}: the task set has no tasks (fix: add tasks to it)`);
    throw new OptionError(filters, `no task in ${file} matches`, available(tasks));
  }
  return selected;
}

function available(tasks: readonly Task[]): string {
  const uniq = (values: Array<string | undefined>): string[] => [...new Set(values.filter((v): v is string => v !== undefined))].sort();
  const parts = [
    `tags: ${list(uniq(tasks.flatMap((t) => t.metadata.tags)))}`,
    `categories: ${list(uniq(tasks.map((t) => t.metadata.category)))}`,
    `difficulties: ${list(uniq(tasks.map((t) => t.metadata.difficulty)))}`,
  ];
  return `the task set has ${parts.join('; ')}`;
}

function list(values: readonly string[]): string {
  if (values.length === 0) return 'none';
  return values.length > 12 ? `${values.slice(0, 12).join(', ')}, …` : values.join(', ');
}
