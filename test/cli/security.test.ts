/**
 * The command line's side of the security rules: keys reach only the host they were given for,
 * and agent specs take only their strategy's own parameters as plain decimal numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { move, start, type ChatServer } from '../support/chat-server';
import { runCli } from './helpers';

const PROVIDER_KEYS = {
  OPENAI_API_KEY: 'sk-openai-env-key-1111111111',
  ANTHROPIC_API_KEY: 'sk-ant-env-key-22222222222',
  GEMINI_API_KEY: 'AIza-env-key-333333333333333',
  VLLM_API_KEY: 'vllm-env-key-44444444444444',
};
const SERVER_KEY = 'parley-env-key-5555555555555';

describe('--base-url and keys', () => {
  let other: ChatServer;
  beforeAll(async () => {
    // "Another host": answers every model call by walking away, so each game is short.
    other = await start(() => move({ message: 'No.', action: { type: 'walk_away' } }));
  });
  afterAll(async () => {
    await other.close();
  });

  const seen = () => JSON.stringify(other.requests.map((r) => [r.headers, r.body])) + JSON.stringify(other.preflights);

  it('sends the --base-url server no provider key from the environment, only PARLEY_API_KEY', async () => {
    const before = other.requests.length;
    const r = await runCli(
      ['tournament', '--agents', 'openai:a,anthropic:b,vllm:c', '--scenarios', '1', '--samples', '0', '--base-url', `${other.url}/v1`, '--json'],
      { ...PROVIDER_KEYS, PARLEY_API_KEY: SERVER_KEY },
    );
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const asked = other.requests.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    for (const req of asked) expect(req.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
    for (const key of Object.values(PROVIDER_KEYS)) expect(seen()).not.toContain(key);
    for (const key of [...Object.values(PROVIDER_KEYS), SERVER_KEY]) expect(r.out + r.err).not.toContain(key);
  });

  it('sends it no key at all without PARLEY_API_KEY, whatever provider keys are set', async () => {
    const before = other.requests.length;
    const r = await runCli(['run', '--buyer', 'openai:a', '--seller', 'vllm:c', '--base-url', `${other.url}/v1`], PROVIDER_KEYS);
    expect(r.status).toBe(0);
    const asked = other.requests.slice(before);
    expect(asked.length).toBeGreaterThan(0);
    for (const req of asked) expect(req.headers.authorization).toBeUndefined();
    for (const key of Object.values(PROVIDER_KEYS)) expect(seen()).not.toContain(key);
  });
});

describe('agent specs on the command line', () => {
  const refused = async (argv: string[]) => {
    const r = await runCli(argv);
    expect(r.status).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    return r.err.trim();
  };

  it('refuses a parameter every object inherits, naming the valid ones, with status 2', async () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(await refused(['run', '--buyer', `boulware:${key}=1`, '--seller', 'linear'])).toBe(
        `parley: error: --buyer: unknown parameter "${key}" for boulware; boulware takes: beta (0.01 to 100), kappa (0 to 0.99)`,
      );
    expect(await refused(['tournament', '--agents', 'linear,conceder:constructor=1', '--scenarios', '1'])).toBe(
      'parley: error: --agents: unknown parameter "constructor" for conceder; conceder takes: beta (0.01 to 100), kappa (0 to 0.99)',
    );
  });

  it('refuses a value that is not a plain decimal number, as it refuses --seed 0x10', async () => {
    for (const value of ['0x1', '0b1', '0o1', 'Infinity', 'NaN', ''])
      expect(await refused(['run', '--buyer', `boulware:beta=${value}`, '--seller', 'linear'])).toBe(
        `parley: error: --buyer: boulware parameter beta=${JSON.stringify(value)} is not a decimal number (such as 0.25); boulware takes: beta (0.01 to 100), kappa (0 to 0.99)`,
      );
    expect(await refused(['run', '--buyer', 'boulware', '--seller', 'linear', '--seed', '0x10'])).toMatch(/--seed must be a whole number/);
  });

  it('plays decimal parameters, exponents included', async () => {
    const r = await runCli(['run', '--buyer', 'boulware:beta=1e-1', '--seller', 'linear:kappa=.05', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.out).agents).toEqual({ buyer: 'boulware:beta=0.1', seller: 'linear:kappa=0.05' });
  });
});
