// Loaded with `node --import`: appends the URL of every module the process loads to $CRUCIBLE_LOAD_LOG.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.CRUCIBLE_LOAD_LOG) appendFileSync(process.env.CRUCIBLE_LOAD_LOG, url + '\\n');
  return next(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
