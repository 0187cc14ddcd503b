import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { flagForm, helpText, intFlag, numberFlag, parseFlags, requiredFlag, UsageError } from '../../src/cli/args';
import { COMMANDS } from '../../src/cli/commands';
import { MAX_SEED } from '../../src/engine/rng';
import { TournamentConfigSchema } from '../../src/storage/schema';
import { RemoteLimitsSchema } from '../../src/agents/remote';
import { EnvServerLimitsSchema, startEnvServer } from '../../src/training/server';
import { SftFilterSchema, SftValidationSchema } from '../../src/training/sft';
import { makeAgent } from '../../src/games/bilateral/registry';
import type { z } from 'zod';
import { runCli } from './helpers';

const names = COMMANDS.map((c) => c.name);

describe.each(COMMANDS.map((c) => [c.name, c] as const))('%s', (name, command) => {
  const flags = Object.entries(command.flags);

  it('--help and -h exit 0 and print the usage, every flag the parser takes with its meaning, and an example', async () => {
    const help = await runCli([name, '--help']);
    expect(help.status).toBe(0);
    expect(help.err).toBe('');
    expect(help.out).toBe(helpText(command));
    expect(help.out.startsWith(`usage: npm run parley -- ${name}`)).toBe(true);
    const lines = help.out.split('\n');
    for (const [flag, def] of flags) {
      // The parser takes exactly the table's flags: each one is in the help, at the start of its line, with its meaning.
      const at = lines.findIndex((l) => l.trimStart().startsWith(`${flagForm(flag, def)} `) || l.trim() === flagForm(flag, def));
      expect(at, `--${flag} is not in ${name}'s help`).toBeGreaterThan(-1);
      // The flag's line and the lines its description wraps onto, as one line of words.
      const end = lines.findIndex((l, i) => i > at && !/^ {6,}\S/.test(l));
      const text = lines.slice(at, end).join(' ').replace(/\s+/g, ' ');
      expect(def.help.trim().length, `--${flag} has no meaning`).toBeGreaterThan(3);
      expect(text).toContain(def.help.replace(/\)$/, ''));
      if (def.kind !== 'switch' && def.default !== undefined) expect(text).toContain(`default ${def.default}`);
      if (def.kind === 'int' || def.kind === 'decimal') expect(text).toContain(`${def.min} to ${def.max}`);
      if (def.required !== undefined) expect(text).toContain(def.required === true ? 'required' : `required ${def.required}`);
    }
    expect(lines).toContain('example:');
    expect(lines[lines.indexOf('example:') + 1]).toMatch(new RegExp(`^  npm run parley -- ${name}( |$)`));
    expect((await runCli([name, '-h'])).out).toBe(help.out);
    expect((await runCli(['help', name])).out).toBe(help.out);
    // Asked among other flags, even wrong ones, help is still help.
    expect((await runCli([name, '--no-such-flag', 'x', '--help'])).status).toBe(0);
  });

  it('its example uses only flags it takes, with values its parser reads', () => {
    const example = helpText(command)
      .split('\n')
      .find((l) => l.startsWith(`  npm run parley -- ${name}`)) as string;
    const argv = example.trim().split(/\s+/).slice(5);
    const parsed = parseFlags(argv, command);
    for (const [flag, def] of flags) {
      if (!parsed.values.has(flag)) continue;
      if (def.kind === 'int') expect(() => intFlag(parsed, flag)).not.toThrow();
      if (def.kind === 'decimal') expect(() => numberFlag(parsed, flag)).not.toThrow();
      if (def.kind === 'choice') expect(def.choices).toContain(parsed.values.get(flag));
    }
  });

  it('the parser takes every flag of the table, and a value for each flag that needs one', () => {
    for (const [flag, def] of flags) {
      const argv = def.kind === 'switch' ? [`--${flag}`] : [`--${flag}`, 'x'];
      const parsed = parseFlags(argv, command);
      if (def.kind === 'switch') expect(parsed.switches.has(flag)).toBe(true);
      else
        expect(def.kind === 'text' && def.repeat ? parsed.lists.get(flag) : parsed.values.get(flag)).toEqual(def.kind === 'text' && def.repeat ? ['x'] : 'x');
      if (def.kind !== 'switch') expect(() => parseFlags([`--${flag}`], command)).toThrow(`--${flag} needs a value`);
      else expect(() => parseFlags([`--${flag}=1`], command)).toThrow(`--${flag} takes no value`);
    }
  });

  it('an unknown flag is one line naming it and where the flags are listed, exit status 2', async () => {
    for (const argv of [
      [name, '--colour', 'red'],
      [name, '--colour=red'],
      [name, '-q'],
    ]) {
      const r = await runCli(argv);
      const flag = (argv[1] as string).split('=')[0];
      expect(r.status).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toBe(`parley: error: unknown flag ${flag} for ${name}; npm run parley -- ${name} --help lists its flags\n`);
    }
  });
});

describe('the top-level help', () => {
  it('help, --help, -h and no command exit 0 and name every command', async () => {
    const help = await runCli(['help']);
    expect(help.status).toBe(0);
    for (const argv of [['--help'], ['-h'], []]) expect((await runCli(argv)).out).toBe(help.out);
    for (const name of names) expect(help.out).toMatch(new RegExp(`^  ${name}( |$)`, 'm'));
    expect(help.out).toContain('--help');
  });

  it('help for a command that does not exist is a usage error', async () => {
    const r = await runCli(['help', 'haggle']);
    expect(r.status).toBe(2);
    expect(r.err).toBe(`parley: error: help takes one command, one of: ${names.join(', ')}\n`);
  });

  it('the process exits 0 on tournament --help (it exited 2, "unknown flag --help")', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'src/cli/parley.ts', 'tournament', '--help']);
    expect(stdout).toBe(helpText(COMMANDS.find((c) => c.name === 'tournament')!));
  }, 60_000);
});

describe('limits come from the schemas', () => {
  it('--seed stops at MAX_SEED and --scenarios at the stored config’s limit', async () => {
    const limit = TournamentConfigSchema.out.shape.scenariosPerPair.maxValue as number;
    const seed = await runCli(['run', '--buyer', 'boulware', '--seller', 'linear', '--seed', String(MAX_SEED + 1)]);
    expect(seed.err).toBe(`parley: error: --seed must be between 0 and ${MAX_SEED}, got ${MAX_SEED + 1}\n`);
    const many = await runCli(['tournament', '--agents', 'boulware,linear', '--scenarios', String(limit + 1)]);
    expect(many.err).toBe(`parley: error: --scenarios must be between 1 and ${limit}, got ${limit + 1}\n`);
  });

  it('a negative number is read as a value, and refused by its range', async () => {
    const r = await runCli(['run', '--buyer', 'boulware', '--seller', 'linear', '--seed', '-3']);
    expect(r.err).toBe('parley: error: --seed must be between 0 and 4294967295, got -3\n');
  });

  it("the parser's errors carry a code and the flag at fault", () => {
    const run = COMMANDS.find((c) => c.name === 'run')!;
    const failure = (read: () => unknown) => {
      try {
        read();
      } catch (e) {
        if (e instanceof UsageError) return { code: e.code, flag: (e.problem.data as { flag?: string }).flag };
        throw e;
      }
      throw new Error('no usage error');
    };
    expect(failure(() => parseFlags(['--colour'], run))).toEqual({ code: 'unknown-flag', flag: '--colour' });
    expect(failure(() => parseFlags(['-q'], run))).toEqual({ code: 'unknown-flag', flag: '-q' });
    expect(failure(() => parseFlags(['--seed', '1', '--seed=2'], run))).toEqual({ code: 'given-twice', flag: '--seed' });
    expect(failure(() => parseFlags(['--seed', '--json'], run))).toEqual({ code: 'needs-value', flag: '--seed' });
    expect(failure(() => parseFlags(['--json=yes'], run))).toEqual({ code: 'takes-no-value', flag: '--json' });
    expect(failure(() => parseFlags(['boulware'], run))).toEqual({ code: 'unexpected-argument', flag: undefined });
    expect(failure(() => intFlag(parseFlags(['--seed', 'x'], run), 'seed'))).toEqual({ code: 'not-a-number', flag: '--seed' });
    expect(failure(() => numberFlag(parseFlags(['--temperature', 'hot'], run), 'temperature'))).toEqual({ code: 'not-a-decimal', flag: '--temperature' });
    expect(failure(() => intFlag(parseFlags(['--seed', '-1'], run), 'seed'))).toEqual({ code: 'out-of-range', flag: '--seed' });
    expect(failure(() => numberFlag(parseFlags(['--temperature', '9'], run), 'temperature'))).toEqual({ code: 'out-of-range', flag: '--temperature' });
    expect(failure(() => requiredFlag(parseFlags([], run), 'buyer', 'a spec'))).toEqual({ code: 'required', flag: '--buyer' });
  });

  const command = (name: string) => COMMANDS.find((c) => c.name === name)!;
  /** Each flag whose limit the command line reads from a schema of the layer that owns the value, with that schema. */
  const LIMITED: [command: string, flag: string, schema: z.ZodNumber, step: number][] = [
    ['serve-env', 'port', EnvServerLimitsSchema.shape.port, 1],
    ['serve-env', 'idle-ms', EnvServerLimitsSchema.shape.idleMs, 1],
    ['serve-env', 'max-episodes', EnvServerLimitsSchema.shape.maxEpisodes, 1],
    ['serve-env', 'concurrency', RemoteLimitsSchema.shape.concurrency, 1],
    ['serve-env', 'timeout-ms', RemoteLimitsSchema.shape.timeoutMs, 1],
    ['tournament', 'concurrency', RemoteLimitsSchema.shape.concurrency, 1],
    ['tournament', 'timeout-ms', RemoteLimitsSchema.shape.timeoutMs, 1],
    ['sft', 'tier', SftFilterSchema.shape.tier.unwrap(), 1],
    ['sft', 'min-share', SftFilterSchema.shape.minShare.unwrap(), 0.01],
    ['sft', 'validation', SftValidationSchema, 0.01],
  ];

  it.each(LIMITED)('%s --%s takes the schema’s limits, refuses one past either with its code, and its help shows them', (name, flag, schema, step) => {
    const cmd = command(name);
    const read = (value: number) => {
      const args = parseFlags([`--${flag}`, String(value)], cmd);
      return cmd.flags[flag]?.kind === 'int' ? intFlag(args, flag) : numberFlag(args, flag);
    };
    const failure = (value: number) => {
      try {
        read(value);
      } catch (e) {
        if (e instanceof UsageError) return { code: e.code, data: e.problem.data };
        throw e;
      }
      return null;
    };
    const min = schema.minValue as number;
    const max = schema.maxValue as number;
    expect([read(min), read(max)]).toEqual([min, max]);
    const over = Math.round((max + step) * 100) / 100;
    const under = Math.round((min - step) * 100) / 100;
    expect(failure(over)).toEqual({ code: 'out-of-range', data: { flag: `--${flag}`, value: over, min, max } });
    // A decimal flag takes no sign: below a limit of 0 the value is no decimal number there.
    if (under < 0 && cmd.flags[flag]?.kind === 'decimal') expect(failure(under)?.code).toBe('not-a-decimal');
    else expect(failure(under)).toEqual({ code: 'out-of-range', data: { flag: `--${flag}`, value: under, min, max } });
    // The schema itself agrees at both ends, for the server and the export that check with it.
    expect([schema.safeParse(max).success, schema.safeParse(over).success]).toEqual([true, false]);
    expect(helpText(cmd).replace(/\s+/g, ' ')).toContain(`${min} to ${max}`);
  });

  it('sft --zone takes exactly the zone bins the filter schema knows', () => {
    const zones = SftFilterSchema.shape.zone.unwrap().options.map((o) => o.value);
    const sft = command('sft');
    for (const zone of zones) expect(intFlag(parseFlags(['--zone', String(zone)], sft), 'zone')).toBe(zone);
    for (const zone of [Math.min(...zones) - 1, Math.max(...zones) + 1])
      expect(() => intFlag(parseFlags(['--zone', String(zone)], sft), 'zone')).toThrow(UsageError);
  });

  it('the environment server refuses a limit past its schema at start, as the flags do', async () => {
    const { idleMs, maxEpisodes } = EnvServerLimitsSchema.shape;
    await expect(startEnvServer({ makeAgent, idleMs: (idleMs.minValue as number) - 1, sweepMs: 0 })).rejects.toThrow();
    await expect(startEnvServer({ makeAgent, maxEpisodes: (maxEpisodes.maxValue as number) + 1, sweepMs: 0 })).rejects.toThrow();
    const server = await startEnvServer({ makeAgent, idleMs: idleMs.minValue as number, maxEpisodes: maxEpisodes.maxValue as number, sweepMs: 0 });
    await server.close();
  });
});
