import { describe, expect, it } from 'vitest';
import { REDACTED, redactArgv } from '../../src/core/redact/index.js';

const TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

describe('redactArgv: forms a trace meets', () => {
  // [form, argv, expected, the secret that must be gone]
  const forms: Array<[string, string[], string[], string]> = [
    ['--flag=value', ['mysql', '--password=hunter2', 'db'], ['mysql', `--password=${REDACTED}`, 'db'], 'hunter2'],
    ['--flag value', ['cli', '--api-key', 'k-123', 'run'], ['cli', '--api-key', REDACTED, 'run'], 'k-123'],
    ['--token value', ['gh', '--token', 'abc', 'x'], ['gh', '--token', REDACTED, 'x'], 'abc'],
    ['NAME=value', ['env', 'GITHUB_TOKEN=abc', 'node', 'x.js'], ['env', `GITHUB_TOKEN=${REDACTED}`, 'node', 'x.js'], 'abc'],
    ['header', ['curl', '-H', 'Authorization: Bearer abc.def', 'https://x'], ['curl', '-H', `Authorization: Bearer ${REDACTED}`, 'https://x'], 'abc.def'],
    ['URL user-info', ['git', 'clone', 'https://me:s3cret@host/repo.git'], ['git', 'clone', `https://${REDACTED}@host/repo.git`], 's3cret'],
    ['detected token', ['echo', TOKEN], ['echo', REDACTED], TOKEN],
    [
      'inside sh -c',
      ['sh', '-c', 'export API_KEY=abc && curl --password=pw x'],
      ['sh', '-c', `export API_KEY=${REDACTED} && curl --password=${REDACTED} x`],
      'pw ',
    ],
    ['inside sh -c, flag then value', ['sh', '-c', 'tool --secret abc --v'], ['sh', '-c', `tool --secret ${REDACTED} --v`], 'abc'],
  ];
  it.each(forms)('redacts %s', (_name, argv, expected, secret) => {
    const out = redactArgv(argv);
    expect(out).toEqual(expected);
    expect(out.join(' ')).not.toContain(secret);
  });

  it('keeps ordinary commands, paths and look-alike names as they are', () => {
    const argv = ['git', 'commit', '--author', 'A <a@b>', '-m', 'fix tokenizer', '--passes=3'];
    expect(redactArgv(argv)).toEqual(argv);
    expect(redactArgv(['rm', '-rf', '/etc/passwd'])).toEqual(['rm', '-rf', '/etc/passwd']);
  });
});
