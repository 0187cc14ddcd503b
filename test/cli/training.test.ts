import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args';
import type { Io } from '../../src/cli/main';
import { serveEnvCommand } from '../../src/cli/commands/serve-env';
import { sftCommand } from '../../src/cli/commands/sft';
import { validationPath } from '../../src/cli/training';
import { readRunFile } from '../../src/storage/run-file';
import { seatMoves, SftExampleSchema, validationScenarios, type SftExample } from '../../src/training/sft';
import { promptOf, start, type ChatServer } from '../support/chat-server';
import { policyAnswer as serverPolicy } from '../support/policy-model';
import { runCli } from './helpers';

const KEY = 'sk-test-training-never-printed-0123456789';

function capture(env: Record<string, string> = {}, signal?: AbortSignal) {
  const io: Io & { stdout: string; stderr: string } = {
    stdout: '',
    stderr: '',
    out: (t) => void (io.stdout += t),
    err: (t) => void (io.stderr += t),
    now: () => 0,
    env,
    ...(signal && { signal }),
  };
  return io;
}

const lines = (text: string): SftExample[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const parsed = SftExampleSchema.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message);
      return parsed.data;
    });

/** The scenario an example came from, as far as its system prompt tells: the item and the seat's own number. */
const scenarioKey = (ex: SftExample): string => {
  const system = (ex.messages[0] as { content: string }).content;
  return `${/over one item: (.*), list price/.exec(system)?.[1]}|${/Your private (?:value for it|cost): (\$[\d.]+)/.exec(system)?.[1]}`;
};

describe('parley sft', () => {
  let dir: string;
  let run: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-sft-'));
    run = join(dir, 'run.jsonl');
    const r = await runCli(['tournament', '--agents', 'boulware,conceder,tit-for-tat,random', '--scenarios', '20', '--samples', '0', '--jsonl', run]);
    expect(r.status).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes train and validation files in the chat format, split by scenario, and prints a summary', async () => {
    const out = join(dir, 'sft.jsonl');
    const io = capture();
    expect(await sftCommand.run(['--from', run, '--out', out, '--validation', '0.2'], io)).toBe(0);
    const train = lines(readFileSync(out, 'utf8'));
    const validation = lines(readFileSync(validationPath(out), 'utf8'));
    // One example per move: 12 ordered pairs × 20 scenarios × both seats' moves.
    const checked = readRunFile(readFileSync(run, 'utf8'));
    if (!checked.ok) throw new Error(checked.error.message);
    const moves = (row: (typeof checked.value.rows)[number], scenarios?: Set<string>) =>
      !scenarios || scenarios.has(row.scenario.id) ? (['buyer', 'seller'] as const).reduce((n, seat) => n + seatMoves(row, seat), 0) : 0;
    const examples = checked.value.rows.reduce((n, row) => n + moves(row), 0);
    expect(examples).toBeGreaterThan(2000);
    expect(train.length + validation.length).toBe(examples);
    expect(train.every((ex) => ex.messages.length === 3)).toBe(true);
    // 4 of the 20 scenarios are held out, every example of theirs.
    const held = validationScenarios(
      checked.value.rows.map((r) => r.scenario.id),
      0.2,
    );
    expect(held.size).toBe(4);
    expect(validation.length).toBe(checked.value.rows.reduce((n, row) => n + moves(row, held), 0));
    expect(train.every((ex) => ex.tools !== undefined)).toBe(true);
    const trainKeys = new Set(train.map(scenarioKey));
    expect(validation.some((ex) => trainKeys.has(scenarioKey(ex)))).toBe(false);
    expect(io.stdout).toContain(
      `sft: ${examples} examples (one per move) from 240 negotiations, moves as tool calls; train ${train.length} (16 scenarios), validation ${validation.length} (4 scenarios)`,
    );
    const boulwareBuyer = checked.value.rows.filter((r) => r.buyer === 'boulware').reduce((n, r) => n + seatMoves(r, 'buyer'), 0);
    expect(io.stdout).toMatch(new RegExp(`^ {2}boulware \\(buyer\\) +${boulwareBuyer}$`, 'm'));
    expect(io.stdout).toMatch(/^by tier: 1: \d+/m);
    expect(io.stdout).toMatch(/^surplus share over \d+ deals with gains from trade: mean 0\.\d\d/m);
    expect(io.stdout).toContain(`validation: ${validationPath(out)}`);
  });

  it('filters by seat, agent, deals and share, and writes multi-turn JSON moves to stdout with --interface json --format multi-turn', async () => {
    const io = capture();
    // The agent is read as a spec and named by its label, as the run names it.
    const args = ['--from', run, '--seat', 'seller', '--agent', ' conceder ', '--deals-only', '--min-share', '0.3', '--interface', 'json'];
    expect(await sftCommand.run([...args, '--format', 'multi-turn'], io)).toBe(0);
    const examples = lines(io.stdout);
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.length).toBeLessThan(60);
    for (const ex of examples) {
      expect(ex.tools).toBeUndefined();
      expect((ex.messages[0] as { content: string }).content).toContain('You are the seller');
      const last = JSON.parse((ex.messages.at(-1) as { content: string }).content);
      // A deal with the seller's share of at least 0.3 closed by the seller's accept, or by the buyer accepting the seller's offer.
      expect(['accept', 'offer']).toContain(last.action.type);
    }
    expect(io.stderr).toMatch(/^ {2}conceder \(seller\) +\d+$/m);
    expect(io.stderr).not.toContain('(buyer)');
    expect(io.stderr).toContain(`sft: ${examples.length} examples (one per seat and negotiation)`);
    // Per move (the default), the same moves one example each.
    const perMove = capture();
    expect(await sftCommand.run(args, perMove)).toBe(0);
    const each = lines(perMove.stdout);
    expect(each.map((ex) => (ex.messages[2] as { content: string }).content)).toEqual(
      examples.flatMap((ex) => ex.messages.filter((m) => m.role === 'assistant').map((m) => (m as { content: string }).content)),
    );
  });

  it('refuses bad arguments and bad files in one line', async () => {
    await expect(sftCommand.run([], capture())).rejects.toThrow(UsageError);
    await expect(sftCommand.run(['--from', run, '--validation', '0.1'], capture())).rejects.toThrow(/--validation needs --out/);
    await expect(sftCommand.run(['--from', run, '--seat', 'broker'], capture())).rejects.toThrow(/choose one of: buyer, seller, both/);
    await expect(sftCommand.run(['--from', run, '--format', 'chat'], capture())).rejects.toThrow(/choose one of: per-move, multi-turn/);
    await expect(sftCommand.run(['--from', run, '--min-share', '2'], capture())).rejects.toThrow(/between 0 and 1/);
    await expect(sftCommand.run(['--from', run, '--out', join(dir, 'no-such-folder', 'x.jsonl')], capture())).rejects.toThrow(/--out: cannot write .*ENOENT/);
    const io = capture();
    expect(await sftCommand.run(['--from', join(dir, 'missing.jsonl')], io)).toBe(2);
    expect(io.stderr).toMatch(/^parley: error: .*missing\.jsonl: cannot read it \(ENOENT\)\n$/);
  });
});

describe('parley sft never writes over its own input', () => {
  let dir: string;
  let run: string;
  let before: Buffer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-sft-own-'));
    run = join(dir, 'run.jsonl');
    expect((await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios', '4', '--samples', '0', '--jsonl', run])).status).toBe(0);
    before = readFileSync(run);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs sft through main (exit status and stderr as a user sees them) and checks nothing in the folder changed. */
  const refused = async (argv: string[], message: RegExp) => {
    const entries = readdirSync(dir).sort();
    const r = await runCli(['sft', ...argv]);
    expect(r.status, r.err).toBe(2);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.err).toMatch(message);
    expect(readFileSync(run).equals(before)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(entries);
  };

  it('refuses --out naming the --from file, however it is spelled, before anything is written', async () => {
    const itself = /^parley: error: --out .* is the --from file itself/;
    await refused(['--from', run, '--out', run], itself);
    // Relative to the working folder, through ./ and ..: the same file.
    const relativeRun = `./${relative(process.cwd(), run)}`;
    await refused(['--from', relativeRun, '--out', run], itself);
    await refused(['--from', run, '--out', join(dir, '..', basename(dir), '.', 'run.jsonl')], itself);
    // Through a symlink either way.
    symlinkSync(run, join(dir, 'link.jsonl'));
    await refused(['--from', run, '--out', join(dir, 'link.jsonl')], itself);
    await refused(['--from', join(dir, 'link.jsonl'), '--out', run], itself);
    // A hard link is the same file too.
    linkSync(run, join(dir, 'hard.jsonl'));
    await refused(['--from', run, '--out', join(dir, 'hard.jsonl')], itself);
  });

  it('refuses a validation file that would be the --from file, or the --out file', async () => {
    // --from is the validation twin of --out: `x.jsonl` holds out to `x.validation.jsonl`.
    const twin = join(dir, 'x.validation.jsonl');
    writeFileSync(twin, before);
    const entries = readdirSync(dir);
    const r = await runCli(['sft', '--from', twin, '--out', join(dir, 'x.jsonl'), '--validation', '0.25']);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/^parley: error: the validation file .*x\.validation\.jsonl is the --from file itself/);
    expect(readFileSync(twin).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(entries);
    rmSync(twin);
    // Without --validation nothing is held out, so nothing is written there: allowed.
    expect((await runCli(['sft', '--from', run, '--out', join(dir, 'run.validation.jsonl')])).status).toBe(0);
    rmSync(join(dir, 'run.validation.jsonl'));
    // The validation file a symlink to the --out file: both outputs one file.
    symlinkSync(join(dir, 'y.jsonl'), join(dir, 'y.validation.jsonl'));
    writeFileSync(join(dir, 'y.jsonl'), 'mine\n');
    const both = await runCli(['sft', '--from', run, '--out', join(dir, 'y.jsonl'), '--validation', '0.25']);
    expect(both.status).toBe(2);
    expect(both.err).toMatch(/^parley: error: the validation file .*y\.validation\.jsonl is the same file as --out .*y\.jsonl/);
    expect(readFileSync(join(dir, 'y.jsonl'), 'utf8')).toBe('mine\n');
  });

  it('tournament --jsonl naming its --scenarios-from file is refused too', async () => {
    const scenarios = join(dir, 'scenarios.jsonl');
    const line = JSON.stringify({ id: 's1', listPrice: 100, buyerValue: 110, sellerCost: 80, turns: 8, first: 'buyer' });
    writeFileSync(scenarios, line + '\n');
    const r = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios-from', scenarios, '--jsonl', `./${relative(process.cwd(), scenarios)}`]);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/^parley: error: --jsonl .* is the --scenarios-from file itself/);
    expect(readFileSync(scenarios, 'utf8')).toBe(line + '\n');
  });

  it('prints every file name escaped, as check does', async () => {
    const hostile = join(dir, 'x\u001b[31mred\u202e\u0007.jsonl');
    const escaped = (text: string) =>
      text
        .replace(/\u001b/g, '\\u001b')
        .replace(/\u202e/g, '\\u202e')
        .replace(/\u0007/g, '\\u0007');
    const controls = /[\u0000-\u0008\u000b-\u001f\u007f\u202e]/;
    writeFileSync(hostile, before);
    const out = `${hostile}.out.jsonl`;
    const made = await runCli(['sft', '--from', hostile, '--out', out, '--validation', '0.25']);
    expect(made.status).toBe(0);
    expect(made.out + made.err).not.toMatch(controls);
    expect(made.out).toContain(`train: ${escaped(out)}\n`);
    expect(made.out).toContain(`validation: ${escaped(validationPath(out))}\n`);
    // Errors that name the file: unreadable, refused, or the output's folder missing.
    const missing = await runCli(['sft', '--from', `${hostile}.missing`]);
    const check = await runCli(['check', `${hostile}.missing`]);
    expect(missing.err).toBe(check.err);
    expect(missing.err).toContain(escaped(hostile));
    const itself = await runCli(['sft', '--from', hostile, '--out', hostile]);
    const noFolder = await runCli(['sft', '--from', run, '--out', join(hostile, 'x.jsonl')]);
    const tournament = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios', '1', '--jsonl', join(`${hostile}.none`, 'r.jsonl')]);
    for (const r of [missing, itself, noFolder, tournament]) {
      expect(r.status).toBe(2);
      expect(r.err).not.toMatch(controls);
      expect(r.err).toContain(escaped(hostile));
    }
  });
});

describe('parley sft of a model-agent run', () => {
  let server: ChatServer;
  let dir: string;
  beforeAll(async () => {
    server = await start(serverPolicy);
    dir = mkdtempSync(join(tmpdir(), 'parley-sft-model-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const style of ['tools', 'json'] as const)
    it(`exports the prompts the model was actually sent, and its answers as its moves (${style})`, async () => {
      const before = server.requests.length;
      const run = join(dir, `${style}.jsonl`);
      const args = ['tournament', '--agents', 'openai:test-model,boulware,hardliner', '--scenarios', '2', '--samples', '0', '--interface', style];
      const r = await runCli([...args, '--base-url', `${server.url}/v1`, '--jsonl', run], { PARLEY_API_KEY: KEY });
      expect(r.status).toBe(0);
      const requests = server.requests.slice(before);
      const io = capture();
      expect(await sftCommand.run(['--from', run, '--agent', 'openai:test-model'], io)).toBe(0);
      const examples = lines(io.stdout);
      // One per request the model answered with a move; multi-turn, one per 2 scenarios × 2 opponents × 2 seats.
      expect(examples).toHaveLength(requests.length);
      const multi = capture();
      expect(await sftCommand.run(['--from', run, '--agent', 'openai:test-model', '--format', 'multi-turn'], multi)).toBe(0);
      expect(lines(multi.stdout)).toHaveLength(8);
      const sent = requests.map((req) => {
        const { system, user } = promptOf(req);
        return `${system}\n---\n${user}`;
      });
      const exported = examples.flatMap((ex) => {
        const system = (ex.messages[0] as { content: string }).content;
        return ex.messages.filter((m) => m.role === 'user').map((m) => `${system}\n---\n${(m as { content: string }).content}`);
      });
      expect(exported.sort()).toEqual(sent.sort());
      // The moves are the model's own answers.
      const answered = requests.map((req) => {
        const a = req.answer as { content: string; toolCalls?: { name: string; arguments: unknown }[] };
        return style === 'tools' ? `${a.toolCalls?.[0]?.name}(${JSON.stringify(a.toolCalls?.[0]?.arguments)})` : JSON.stringify(JSON.parse(a.content));
      });
      const moves = examples.flatMap((ex) =>
        ex.messages.flatMap((m) => {
          if (m.role !== 'assistant') return [];
          if ('tool_calls' in m) {
            const call = m.tool_calls[0]!.function;
            // Written as Python's json.dumps writes them (", ", ": "); the same JSON.
            return [`${call.name}(${JSON.stringify(JSON.parse(call.arguments))})`];
          }
          return [JSON.stringify(JSON.parse(m.content))];
        }),
      );
      expect(moves.sort()).toEqual(answered.sort());
      expect(examples.every((ex) => (ex.tools !== undefined) === (style === 'tools'))).toBe(true);
      expect(readFileSync(run, 'utf8')).not.toContain(KEY);
      expect(io.stdout + io.stderr).not.toContain(KEY);
    });
});

describe('parley serve-env', () => {
  it('serves episodes on loopback until stopped, and refuses a model opponent without its key', async () => {
    const stop = new AbortController();
    const io = capture({ OPENAI_API_KEY: KEY }, stop.signal);
    const done = serveEnvCommand.run(['--port', '0', '--idle-ms', '5000'], io);
    // The address is printed once the server listens.
    let url: string | undefined;
    for (let i = 0; i < 200 && url === undefined; i++) {
      url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.stdout)?.[1];
      if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(url).toBeDefined();
    const health = await (await fetch(`${url}/health`)).json();
    expect(health).toMatchObject({ ok: true, games: ['bilateral', 'market'], idleMs: 5000 });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: res.status, json: await res.json() };
    };
    const created = await post('/episodes', { game: 'bilateral', seat: 'buyer', opponent: 'linear', seed: 11, interface: 'json' });
    expect(created.status).toBe(201);
    let view = created.json;
    let steps = 0;
    while (!view.done && steps < 50) {
      view = (await post(`/episodes/${created.json.id}/step`, { completion: '{"message":"Deal?","action":{"type":"walk_away"}}' })).json;
      steps++;
    }
    expect(view).toMatchObject({ done: true, outcome: { kind: 'walk_away', by: 'buyer' } });
    const refused = await post('/episodes', { game: 'bilateral', seat: 'buyer', opponent: 'anthropic:claude-x', seed: 1 });
    expect([refused.status, refused.json.error.code]).toEqual([400, 'missing-key']);
    expect(refused.json.error.message).toContain('ANTHROPIC_API_KEY');
    stop.abort();
    expect(await done).toBe(0);
    expect(io.stdout + io.stderr).not.toContain(KEY);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('refuses a model opponent without its key in either game, naming the variable and never a key, before any episode is made', async () => {
    const stop = new AbortController();
    // A key for one provider only: the others' are missing.
    const io = capture({ OPENAI_API_KEY: KEY }, stop.signal);
    const done = serveEnvCommand.run(['--port', '0'], io);
    try {
      let url: string | undefined;
      for (let i = 0; i < 200 && url === undefined; i++) {
        url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.stdout)?.[1];
        if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const post = async (body: unknown) => {
        const res = await fetch(`${url}/episodes`, { method: 'POST', body: JSON.stringify(body) });
        return { status: res.status, json: await res.json() };
      };
      const cases = [
        [{ game: 'market', seed: 1, opponent: 'anthropic:claude-x' }, 'ANTHROPIC_API_KEY'],
        [{ game: 'market', seed: 1, opponent: 'gemini:gemini-x+think' }, 'GEMINI_API_KEY'],
        [{ game: 'market', seed: 1, opponent: 'openrouter:some/model' }, 'OPENROUTER_API_KEY'],
        [{ game: 'bilateral', seat: 'seller', seed: 1, opponent: 'groq:llama-x' }, 'GROQ_API_KEY'],
      ] as const;
      for (const [body, variable] of cases) {
        const r = await post(body);
        expect([r.status, r.json.error.code], body.opponent).toEqual([400, 'missing-key']);
        expect(r.json.error.message).toBe(
          `opponent: ${body.opponent} needs a key: start the server with ${variable} set (or with --base-url for your own server)`,
        );
      }
      // Nothing was started for them: no episode exists that could have called a provider.
      expect((await (await fetch(`${url}/health`)).json()).episodes).toEqual({ open: 0, done: 0 });
      // A market opponent the server cannot play at all is refused as such; a scripted one, or a model whose key is set, is served.
      const browser = await post({ game: 'market', seed: 1, opponent: 'webllm:Qwen3-0.6B-q4f32_1-MLC' });
      expect([browser.status, browser.json.error.code]).toEqual([400, 'bad-opponent']);
      const unknown = await post({ game: 'market', seed: 1, opponent: 'haggler' });
      expect([unknown.status, unknown.json.error.code]).toEqual([400, 'bad-opponent']);
      expect((await post({ game: 'market', seed: 1, opponent: 'margin' })).status).toBe(201);
      const keyed = await post({ game: 'market', seed: 1, opponent: 'openai:gpt-x' });
      expect(keyed.status).toBe(201);
      expect(JSON.stringify(keyed.json)).not.toContain(KEY);
    } finally {
      stop.abort();
      expect(await done).toBe(0);
    }
    expect(io.stdout + io.stderr).not.toContain(KEY);
  });

  it('plays a model opponent on the --base-url server, which is sent PARLEY_API_KEY and nothing else', async () => {
    const llm = await start(serverPolicy);
    const stop = new AbortController();
    const io = capture({ PARLEY_API_KEY: KEY, OPENAI_API_KEY: 'sk-openai-not-for-this-host-0000' }, stop.signal);
    const done = serveEnvCommand.run(['--port', '0', '--base-url', `${llm.url}/v1`, '--interface', 'json'], io);
    try {
      let url: string | undefined;
      for (let i = 0; i < 200 && url === undefined; i++) {
        url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.stdout)?.[1];
        if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const post = async (path: string, body: unknown) => (await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) })).json();
      let view = await post('/episodes', { game: 'bilateral', seat: 'seller', opponent: 'openai:test-model', seed: 3 });
      const id = view.id;
      // Seed 3: the buyer (the model) opens; the policy asks a high price, then accepts what is on the table.
      expect(view.messages[1].content).toContain('1. buyer: ');
      for (let i = 0; !view.done && i < 30; i++)
        view = await post(`/episodes/${id}/step`, {
          completion: JSON.stringify(i < 2 ? { action: { type: 'offer', price: 5000 } } : { action: { type: 'accept' } }),
        });
      expect(view).toMatchObject({ done: true, outcome: { kind: 'deal', acceptedBy: 'seller' } });
      expect(llm.requests.length).toBeGreaterThan(1);
      for (const req of llm.requests) {
        expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
        // The opponent model plays the JSON interface the server was started with.
        expect(req.body).not.toHaveProperty('tools');
      }
    } finally {
      stop.abort();
      expect(await done).toBe(0);
      await llm.close();
    }
    expect(io.stdout + io.stderr).not.toContain(KEY);
  });

  it('refuses bad flags, and warns when told to serve beyond loopback', async () => {
    await expect(serveEnvCommand.run(['--port', '70000'], capture())).rejects.toThrow(/--port must be between 0 and 65535/);
    await expect(serveEnvCommand.run(['--idle-ms', '5'], capture())).rejects.toThrow(/--idle-ms/);
    await expect(serveEnvCommand.run(['--base-url', 'ftp://x'], capture())).rejects.toThrow(/--base-url/);
    const stop = new AbortController();
    stop.abort();
    const io = capture({}, stop.signal);
    expect(await serveEnvCommand.run(['--port', '0', '--host', '0.0.0.0'], io)).toBe(0);
    expect(io.stderr).toContain('not loopback alone');
  });
});
