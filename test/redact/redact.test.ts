import { describe, expect, it } from 'vitest';
import { isCredentialName, redactArgv, redactText } from '../../src/core/redact/index.js';

const SECRET = 'hunter2-s3cr3t-value';

describe('redactArgv: credential forms in an argv', () => {
  const forms: Array<[string, string[], string[]]> = [
    ['--api-key=X', ['agent', `--api-key=${SECRET}`], ['agent', '--api-key=[REDACTED]']],
    ['--token X', ['gh', '--token', SECRET, 'pr', 'list'], ['gh', '--token', '[REDACTED]', 'pr', 'list']],
    ['--github-token=X', ['tool', `--github-token=${SECRET}`], ['tool', '--github-token=[REDACTED]']],
    ['--password X', ['psql', '--password', SECRET], ['psql', '--password', '[REDACTED]']],
    ['--client-secret X', ['az', '--client-secret', SECRET], ['az', '--client-secret', '[REDACTED]']],
    ['mysql -p X', ['mysql', '-u', 'root', '-p', SECRET], ['mysql', '-u', 'root', '-p', '[REDACTED]']],
    ['mysql -pX', ['/usr/bin/mysql', `-p${SECRET}`, 'db'], ['/usr/bin/mysql', '-p[REDACTED]', 'db']],
    ['sshpass -p X', ['sshpass', '-p', SECRET, 'ssh', 'host'], ['sshpass', '-p', '[REDACTED]', 'ssh', 'host']],
    ['curl -u user:pass', ['curl', '-u', `me:${SECRET}`, 'https://x'], ['curl', '-u', 'me:[REDACTED]', 'https://x']],
    ['curl -H Authorization: Bearer X', ['curl', '-H', `Authorization: Bearer ${SECRET}`], ['curl', '-H', 'Authorization: Bearer [REDACTED]']],
    ['env KEY=value', ['env', `OPENAI_API_KEY=${SECRET}`, 'agent'], ['env', 'OPENAI_API_KEY=[REDACTED]', 'agent']],
    ['URL with user:pass@', ['git', 'clone', `https://me:${SECRET}@github.com/o/r.git`], ['git', 'clone', 'https://[REDACTED]@github.com/o/r.git']],
    ['URL with ?token=', ['curl', `https://api.example.com/v1?token=${SECRET}&page=2`], ['curl', 'https://api.example.com/v1?token=[REDACTED]&page=2']],
  ];
  for (const [name, argv, expected] of forms) {
    it(`redacts ${name}`, () => {
      const out = redactArgv(argv);
      expect(out).toEqual(expected);
      expect(out.join(' ')).not.toContain(SECRET);
    });
  }

  it('leaves ordinary argv alone: -p of other programs, flags without credentials, names that only look close', () => {
    const argv = ['mkdir', '-p', 'out/dir'];
    expect(redactArgv(argv)).toEqual(argv);
    expect(redactArgv(['git', 'commit', '--author', 'Ann <a@b.c>', '-m', 'fix'])).toEqual(['git', 'commit', '--author', 'Ann <a@b.c>', '-m', 'fix']);
    expect(redactArgv(['node', '--test', 'test/a.test.mjs', 'PASS_TO_PASS=all'])).toEqual(['node', '--test', 'test/a.test.mjs', 'PASS_TO_PASS=all']);
  });

  it('a credential flag followed by another flag redacts nothing it should not', () => {
    expect(redactArgv(['tool', '--token', '--verbose'])).toEqual(['tool', '--token', '--verbose']);
  });
});

describe('redactText: credential forms inside one string (a shell command, a URL)', () => {
  const forms: Array<[string, string, string]> = [
    ['--api-key=X', `agent --api-key=${SECRET} run`, 'agent --api-key=[REDACTED] run'],
    ['--token X', `gh --token ${SECRET} pr list`, 'gh --token [REDACTED] pr list'],
    ['mysql -p X', `mysql -u root -p ${SECRET} db`, 'mysql -u root -p [REDACTED] db'],
    ['mysql -pX', `mysqldump -p${SECRET} db`, 'mysqldump -p[REDACTED] db'],
    ['Authorization: Bearer X', `curl -H "Authorization: Bearer ${SECRET}" https://x`, 'curl -H "Authorization: Bearer [REDACTED]" https://x'],
    ['Authorization: token X', `Authorization: token ${SECRET}`, 'Authorization: token [REDACTED]'],
    ['a bare Bearer X', `header Bearer ${SECRET}`, 'header Bearer [REDACTED]'],
    ['KEY=value assignment', `GITHUB_TOKEN=${SECRET} npm publish`, 'GITHUB_TOKEN=[REDACTED] npm publish'],
    ['export KEY="value"', `export DB_PASSWORD="${SECRET}"; make`, 'export DB_PASSWORD=[REDACTED]; make'],
    ['SECRET in a pipeline', `echo ok && AWS_SECRET_ACCESS_KEY=${SECRET} aws s3 ls`, 'echo ok && AWS_SECRET_ACCESS_KEY=[REDACTED] aws s3 ls'],
    ['URL with user:pass@', `https://user:${SECRET}@registry.example.com/npm`, 'https://[REDACTED]@registry.example.com/npm'],
    ['URL with a token as user', `https://${SECRET}@github.com/o/r.git`, 'https://[REDACTED]@github.com/o/r.git'],
    ['?token=', `https://x.test/a?token=${SECRET}`, 'https://x.test/a?token=[REDACTED]'],
    ['&api_key= after another param', `https://x.test/a?page=1&api_key=${SECRET}#top`, 'https://x.test/a?page=1&api_key=[REDACTED]#top'],
    ['?key= (short name)', `https://maps.test/api?key=${SECRET}`, 'https://maps.test/api?key=[REDACTED]'],
    ['X-Api-Key: X', `curl -H 'X-Api-Key: ${SECRET}' https://x`, "curl -H 'X-Api-Key: [REDACTED]' https://x"],
    ['Private-Token: X', `Private-Token:${SECRET}`, 'Private-Token:[REDACTED]'],
    ['Cookie: a=b; c=d', `curl -H "Cookie: sid=${SECRET}; theme=${SECRET}" https://x`, 'curl -H "Cookie: [REDACTED]" https://x'],
    ['Basic X', `Proxy: Basic ${SECRET}`, 'Proxy: Basic [REDACTED]'],
    ['curl -u user:pass', `curl -u me:${SECRET} https://x`, 'curl -u me:[REDACTED] https://x'],
    ['curl --user=user:pass', `curl --user=me:${SECRET} https://x`, 'curl --user=me:[REDACTED] https://x'],
    ['a token a detector knows, with no name', `echo ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`, 'echo [REDACTED]'],
    ['an OpenRouter key, with no name', `echo sk-or-v1-${'0123456789abcdef'.repeat(4)}`, 'echo [REDACTED]'],
    ['a Bedrock API key, with no name', 'echo ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLTAxMjM0NTY3ODk=', 'echo [REDACTED]'],
    ['a Google access token, with no name', 'echo ya29.a0AfH6SMBexample-token_0123456789', 'echo [REDACTED]'],
  ];
  for (const [name, text, expected] of forms) {
    it(`redacts ${name}`, () => {
      expect(redactText(text)).toBe(expected);
    });
  }

  it('leaves commands without credentials byte for byte', () => {
    const command = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/*.test.mjs && AUTHOR=me make';
    expect(redactText(command)).toBe(command);
    expect(redactText('https://github.com/o/r.git')).toBe('https://github.com/o/r.git');
    expect(redactText('git@github.com:o/r.git')).toBe('git@github.com:o/r.git');
    expect(redactText('git commit -m "tokenizer: split on spaces" && passes=3')).toBe('git commit -m "tokenizer: split on spaces" && passes=3');
    expect(redactText('useradd -u 1000 builder')).toBe('useradd -u 1000 builder');
  });
});

describe('isCredentialName', () => {
  it('knows the usual names and not their look-alikes', () => {
    for (const name of [
      'TOKEN',
      'GH_TOKEN',
      'api_key',
      'API-KEY',
      'apikey',
      'SECRET',
      'client_secret',
      'PASSWORD',
      'passwd',
      'AUTH',
      'NPM_AUTH',
      'x-auth-token',
      'PRIVATE_KEY',
      'AWS_ACCESS_KEY_ID',
    ])
      expect(isCredentialName(name), name).toBe(true);
    for (const name of ['AUTHOR', 'PATH', 'HOME', 'PASS_TO_PASS', 'keyboard', 'CI']) expect(isCredentialName(name), name).toBe(false);
  });
});
