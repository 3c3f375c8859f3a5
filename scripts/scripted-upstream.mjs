/**
 * A SCRIPTED stand-in for a model, NOT a model. It serves the OpenAI Responses API
 * (POST /v1/responses, JSON, no streaming) on 127.0.0.1 and answers the built-in agent with a fixed
 * script per example task: which tools to call, with which arguments, in which order. It exists
 * because no real model is reachable where Crucible is developed, and the quick start needs a
 * model-driven session to replay (scripts/record-quickstart.mjs records one through the gateway).
 *
 * What is real in such a recording: every request the agent sent, every tool the agent ran in the
 * sandbox, every test result and the grading. What is not: the answers (written here by hand) and
 * the token counts, which are estimated from the request and answer sizes (about 4 characters a
 * token; cached = the part of the prompt the previous request already sent, in 128-token blocks
 * from 1024 tokens, as OpenAI's prompt caching counts) so that the cost table has realistic shape.
 *
 * The script reacts to the agent in one way: a step may `expect` a pattern in the previous tool
 * results; when it is missing (a tool failed unexpectedly), the script says so in plain text and
 * stops calling tools, so a broken recording shows up as `end_turn`, not as a fake success.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

export const SCRIPTED_MODEL = 'gpt-4.1-mini-2025-04-14';

/** @typedef {{ text?: string, calls?: Array<{ name: string, args: Record<string, unknown> }>, expect?: RegExp }} Step */

/** @type {Record<string, { match: string, steps: Step[] }>} */
export const SCRIPTS = {
  'js-slugify': {
    match: 'slugify(',
    steps: [
      { text: "I'll start by looking at the repository layout.", calls: [{ name: 'list_files', args: {} }] },
      {
        calls: [
          { name: 'read_file', args: { path: 'src/slugify.mjs' } },
          { name: 'read_file', args: { path: 'test/slugify.test.mjs' } },
        ],
      },
      { text: 'Let me confirm the failure first.', calls: [{ name: 'run_tests', args: {} }] },
      {
        expect: /fail 1/,
        text: 'The replace turns leading and trailing punctuation into dashes; trimming dashes afterwards fixes it.',
        calls: [
          {
            name: 'edit_file',
            args: { path: 'src/slugify.mjs', old_string: ".replace(/[^a-z0-9]+/g, '-');", new_string: ".replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');" },
          },
        ],
      },
      { expect: /edited/, calls: [{ name: 'run_tests', args: {} }] },
      { expect: /fail 0/, calls: [{ name: 'submit', args: { summary: 'slugify now strips dashes left at either end by leading or trailing punctuation.' } }] },
    ],
  },
  'js-sortby': {
    match: 'sortBy(',
    steps: [
      { calls: [{ name: 'read_file', args: { path: 'src/sort-by.mjs' } }] },
      {
        text: 'Subtracting strings gives NaN, so the order never changes. Comparing as strings should fix it.',
        calls: [
          { name: 'edit_file', args: { path: 'src/sort-by.mjs', old_string: 'a[key] - b[key]', new_string: 'String(a[key]).localeCompare(String(b[key]))' } },
        ],
      },
      { expect: /edited/, calls: [{ name: 'run_tests', args: {} }] },
      {
        expect: /fail [1-9]/,
        text: 'That broke numeric sorting ("10" sorts before "9"). Numbers must keep comparing numerically.',
        calls: [
          {
            name: 'edit_file',
            args: {
              path: 'src/sort-by.mjs',
              old_string: '  return [...items].sort((a, b) => String(a[key]).localeCompare(String(b[key])));\n}',
              new_string:
                "  return [...items].sort((a, b) => compare(a[key], b[key]));\n}\n\nfunction compare(x, y) {\n  if (typeof x === 'number' && typeof y === 'number') return x - y;\n  return String(x).localeCompare(String(y));\n}",
            },
          },
        ],
      },
      { expect: /edited/, calls: [{ name: 'run_tests', args: {} }] },
      { expect: /fail 0/, calls: [{ name: 'submit', args: { summary: 'sortBy compares numbers numerically and everything else as strings.' } }] },
    ],
  },
  'js-csv-quoting': {
    match: 'formatCsv',
    steps: [
      { calls: [{ name: 'search', args: { pattern: 'export function', path: 'src' } }] },
      {
        calls: [
          { name: 'read_file', args: { path: 'src/core/format.mjs' } },
          { name: 'read_file', args: { path: 'src/parse.mjs' } },
        ],
      },
      {
        text: 'formatCsv must quote fields that contain a comma, a quote or a newline.',
        calls: [
          { name: 'edit_file', args: { path: 'src/core/format.mjs', old_string: "return rows.map((row) => row.join(', ')).join('\\n');", new_string: '' } },
        ],
      },
      {
        expect: /not found/,
        text: 'My old_string had a stray space. Trying again with the exact text.',
        calls: [
          {
            name: 'edit_file',
            args: {
              path: 'src/core/format.mjs',
              old_string: "  return rows.map((row) => row.join(',')).join('\\n');\n}",
              new_string:
                "  return rows.map((row) => row.map(quote).join(',')).join('\\n');\n}\n\nfunction quote(field) {\n  return /[\",\\n]/.test(field) ? `\"${field.replaceAll('\"', '\"\"')}\"` : field;\n}",
            },
          },
        ],
      },
      {
        expect: /edited/,
        text: 'parseCsv needs a small state machine to read quoted fields.',
        calls: [
          {
            name: 'write_file',
            args: {
              path: 'src/parse.mjs',
              content: [
                '/** Reads CSV text into rows (arrays of strings); fields may be quoted as in RFC 4180. */',
                'export function parseCsv(text) {',
                "  if (text === '') return [];",
                '  const rows = [[]];',
                "  let field = '';",
                '  let quoted = false;',
                '  for (let i = 0; i < text.length; i++) {',
                '    const ch = text[i];',
                '    if (quoted) {',
                "      if (ch === '\"' && text[i + 1] === '\"') {",
                "        field += '\"';",
                '        i++;',
                "      } else if (ch === '\"') {",
                '        quoted = false;',
                '      } else {',
                '        field += ch;',
                '      }',
                "    } else if (ch === '\"') {",
                '      quoted = true;',
                "    } else if (ch === ',' || ch === '\\n') {",
                '      rows[rows.length - 1].push(field);',
                "      field = '';",
                "      if (ch === '\\n') rows.push([]);",
                '    } else {',
                '      field += ch;',
                '    }',
                '  }',
                '  rows[rows.length - 1].push(field);',
                '  return rows;',
                '}',
                '',
              ].join('\n'),
            },
          },
        ],
      },
      { expect: /wrote/, calls: [{ name: 'run_tests', args: {} }] },
      {
        expect: /fail 0/,
        calls: [{ name: 'submit', args: { summary: 'formatCsv quotes fields per RFC 4180 and parseCsv reads quoted fields, so rows round-trip.' } }],
      },
    ],
  },
  'ts-lru-recency': {
    match: 'LruCache',
    steps: [
      { calls: [{ name: 'read_file', args: { path: 'src/lru-cache.ts' } }] },
      {
        text: 'get() reads without touching the order. Re-inserting the entry makes it the most recently used.',
        calls: [
          {
            name: 'edit_file',
            args: {
              path: 'src/lru-cache.ts',
              old_string: '    return this.entries.get(key);',
              new_string:
                '    if (!this.entries.has(key)) return undefined;\n    const value = this.entries.get(key) as V;\n    this.entries.delete(key);\n    this.entries.set(key, value);\n    return value;',
            },
          },
        ],
      },
      { expect: /edited/, calls: [{ name: 'run_tests', args: {} }] },
      { expect: /fail 0/, calls: [{ name: 'submit', args: { summary: 'LruCache.get moves the entry to the most recently used position.' } }] },
    ],
  },
  'py-median': {
    match: 'median()',
    steps: [
      { calls: [{ name: 'read_file', args: { path: 'stats.py' } }] },
      { text: 'Reproducing the bug:', calls: [{ name: 'bash', args: { command: 'python3 -c "from stats import median; print(median([4, 1, 3, 2]))"' } }] },
      {
        expect: /^3\b/m,
        calls: [
          {
            name: 'edit_file',
            args: {
              path: 'stats.py',
              old_string: '    return ordered[len(ordered) // 2]',
              new_string:
                '    middle = len(ordered) // 2\n    if len(ordered) % 2 == 0:\n        return (ordered[middle - 1] + ordered[middle]) / 2\n    return ordered[middle]',
            },
          },
        ],
      },
      { expect: /edited/, calls: [{ name: 'run_tests', args: {} }] },
      // A text-only reply: the agent nudges once, and the script then submits.
      { expect: /^\d+ passed in/m, text: 'Fixed: for an even number of values, median() now returns the mean of the two middle values, and all tests pass.' },
      { calls: [{ name: 'submit', args: { summary: 'median() averages the two middle values for even-length input.' } }] },
    ],
  },
  'py-roman-subtractive': {
    match: 'to_roman',
    steps: [
      { calls: [{ name: 'list_files', args: {} }] },
      { calls: [{ name: 'read_file', args: { path: 'roman.py' } }] },
      {
        text: 'Adding the six subtractive pairs to the table makes the greedy loop produce them.',
        calls: [
          {
            name: 'write_file',
            args: {
              path: 'roman.py',
              content: [
                '"""Roman numerals."""',
                '',
                '_NUMERALS = [',
                '    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),',
                '    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),',
                '    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),',
                ']',
                '',
                '',
                'def to_roman(number):',
                '    """Writes 1..3999 as a Roman numeral."""',
                '    if not 0 < number < 4000:',
                '        raise ValueError("only 1..3999 can be written")',
                '    out = []',
                '    for value, letters in _NUMERALS:',
                '        while number >= value:',
                '            out.append(letters)',
                '            number -= value',
                '    return "".join(out)',
                '',
              ].join('\n'),
            },
          },
        ],
      },
      { expect: /wrote/, calls: [{ name: 'run_tests', args: {} }] },
      { expect: /^\d+ passed in/m, calls: [{ name: 'submit', args: { summary: 'to_roman uses subtractive notation for 4, 9, 40, 90, 400 and 900.' } }] },
    ],
  },
};

/** @param {Record<string, unknown>} request a Responses API request body */
export function answer(request) {
  const input = Array.isArray(request.input) ? request.input : [];
  const task = Object.entries(SCRIPTS).find(([, s]) => firstUserText(input).includes(s.match));
  const step = nextStep(input);
  const taskId = task?.[0] ?? 'unknown';
  const script = task?.[1];
  /** @type {Step} */
  let planned = script?.steps[step] ?? { text: script ? 'I have nothing more to do.' : 'I have no script for this task.' };
  if (planned.expect && !planned.expect.test(lastToolOutputs(input))) {
    planned = { text: `The last tool result is not what this script expects (${planned.expect}); stopping here.` };
  }
  const output = [];
  if (planned.text) {
    output.push({
      type: 'message',
      id: `msg_${taskId}_s${step}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: planned.text, annotations: [] }],
    });
  }
  (planned.calls ?? []).forEach((call, i) => {
    output.push({
      type: 'function_call',
      id: `fc_${taskId}_s${step}_${i}`,
      call_id: `call_${taskId}_s${step}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.args),
      status: 'completed',
    });
  });
  return {
    id: `resp_${taskId}_s${step}`,
    object: 'response',
    created_at: 1767225600 + step,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: SCRIPTED_MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1.0,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1.0,
    truncation: 'disabled',
    usage: estimateUsage(request, output),
    user: null,
    metadata: {},
  };
}

function firstUserText(input) {
  const user = input.find((item) => item && item.role === 'user');
  if (!user) return '';
  return typeof user.content === 'string' ? user.content : (user.content ?? []).map((c) => c.text ?? '').join('');
}

/** How many answers came before: each is one run of assistant items (messages, function calls, references). */
function nextStep(input) {
  let answers = 0;
  let inAnswer = false;
  for (const item of input) {
    const fromModel = item?.role === 'assistant' || item?.type === 'function_call' || item?.type === 'item_reference';
    if (fromModel && !inAnswer) answers++;
    inAnswer = fromModel;
  }
  return answers;
}

/** The tool results sent since the last answer. */
function lastToolOutputs(input) {
  const outputs = [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item?.type !== 'function_call_output') break;
    outputs.unshift(typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
  }
  return outputs.join('\n');
}

function estimateUsage(request, output) {
  const tokens = (value) => Math.ceil(JSON.stringify(value ?? '').length / 4);
  const inputTokens = tokens(request.input) + tokens(request.tools) + tokens(request.instructions);
  // The prompt up to the newest items (tool results, a nudge) was sent before and is cached.
  const input = Array.isArray(request.input) ? request.input : [];
  let fresh = input.length;
  while (fresh > 0 && (input[fresh - 1]?.type === 'function_call_output' || input[fresh - 1]?.role === 'user')) fresh--;
  const previous = fresh === 0 ? 0 : tokens(input.slice(0, fresh)) + tokens(request.tools) + tokens(request.instructions);
  const cached = previous >= 1024 ? Math.floor(previous / 128) * 128 : 0;
  const outputTokens = tokens(output.map((o) => o.content?.[0]?.text ?? o.arguments ?? '')) + 6 * output.length;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: Math.min(cached, inputTokens) },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

/** Starts the scripted upstream on 127.0.0.1; its base URL (with /v1) is what `--base-url` takes. */
export function startScriptedUpstream(port = 0) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status, body) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json',
          'x-request-id': `req_scripted_${status}`,
          'x-crucible-scripted-upstream': 'scripts/scripted-upstream.mjs',
        });
        res.end(text);
      };
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: { message: 'request body is not JSON', type: 'invalid_request_error', param: null, code: null } });
      }
      if (req.method !== 'POST' || req.url !== '/v1/responses') {
        return send(404, {
          error: {
            message: `the scripted upstream serves POST /v1/responses only, not ${req.method} ${req.url}`,
            type: 'invalid_request_error',
            param: null,
            code: 'unknown_url',
          },
        });
      }
      if (body.stream === true) {
        return send(400, { error: { message: 'the scripted upstream does not stream', type: 'invalid_request_error', param: 'stream', code: null } });
      }
      send(200, answer(body));
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        baseUrl: `http://127.0.0.1:${address.port}/v1`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
