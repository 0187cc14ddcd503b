import { describe, expect, test } from 'vitest';
import { planTournament, type TournamentConfig } from '../../src/games/bilateral/tournament';
import { fullTournamentConfig, NegotiationRowSchema, RunConfigSchema, TournamentConfigSchema } from '../../src/storage/schema';
import { TOURNAMENT, tournamentRows } from './helpers';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';

describe('storage schemas', () => {
  test('a tournament config is checked against its limits', () => {
    const ok = (patch: object) => TournamentConfigSchema.safeParse({ ...TOURNAMENT, ...patch }).success;
    expect(ok({})).toBe(true);
    expect(ok({ agents: [] })).toBe(false);
    expect(ok({ agents: Array.from({ length: 65 }, (_, i) => `a${i}`) })).toBe(false);
    expect(ok({ agents: [''] })).toBe(false);
    expect(ok({ agents: ['x'.repeat(201)] })).toBe(false);
    expect(ok({ scenariosPerPair: 0 })).toBe(false);
    expect(ok({ scenariosPerPair: 1_000_001 })).toBe(false);
    expect(ok({ seed: 2 ** 32 - 1 })).toBe(true);
    expect(ok({ seed: 2 ** 32 })).toBe(false);
    expect(ok({ seed: -1 })).toBe(false);
    expect(ok({ deadline: { kind: 'fixed', turns: 1001 } })).toBe(false);
    expect(ok({ deadline: { kind: 'uncertain', min: 24, max: 16 } })).toBe(false);
    expect(ok({ deadline: { kind: 'uncertain', min: 16, max: 24 } })).toBe(true);
    expect(ok({ deadline: undefined })).toBe(false);
    expect(ok({ firstMover: 'broker' })).toBe(false);
    expect(ok({ preset: 'huge' })).toBe(false);
  });

  test('fullTournamentConfig writes out core defaults, and plans the same tournament', () => {
    const core: TournamentConfig = { agents: ['boulware', 'linear'], scenariosPerPair: 2, preset: 'wide', seed: 3, selfPlay: true };
    const stored = fullTournamentConfig(core);
    expect(stored).toEqual({ ...core, deadline: { kind: 'uncertain', min: 16, max: 24 }, firstMover: 'alternate', llm: DEFAULT_LLM_SETTINGS });
    expect(TournamentConfigSchema.parse(stored)).toEqual(stored);
    expect(planTournament(stored)).toEqual(planTournament(core));
  });

  test('a config stored before deadlines had a kind reads as a fixed deadline', () => {
    const { deadline: _, llm: __, ...rest } = TOURNAMENT;
    const legacy = { ...rest, turnLimit: 14, firstMover: 'seller' };
    expect(TournamentConfigSchema.parse(legacy)).toEqual({ ...rest, deadline: { kind: 'fixed', turns: 14 }, firstMover: 'seller', llm: DEFAULT_LLM_SETTINGS });
    expect(TournamentConfigSchema.safeParse({ ...rest, turnLimit: 1001, firstMover: 'seller' }).success).toBe(false);
  });

  test('a config stored before the model settings were recorded reads with today’s defaults; new ones keep theirs', () => {
    const { llm: _, ...old } = TOURNAMENT;
    expect(TournamentConfigSchema.parse(old)).toEqual({ ...old, llm: DEFAULT_LLM_SETTINGS });
    const chosen = { interface: 'json', temperature: 0, maxTokens: 800, thinking: true } as const;
    expect(TournamentConfigSchema.parse({ ...old, llm: chosen }).llm).toEqual(chosen);
    for (const llm of [
      { ...chosen, interface: 'auto' },
      { ...chosen, temperature: 2.5 },
      { ...chosen, maxTokens: 10 },
    ])
      expect(TournamentConfigSchema.safeParse({ ...old, llm }).success).toBe(false);
  });

  test('a run config is a tournament or an arena game', () => {
    expect(RunConfigSchema.safeParse({ kind: 'tournament', tournament: TOURNAMENT }).success).toBe(true);
    expect(RunConfigSchema.safeParse({ kind: 'market' }).success).toBe(false);
  });

  test('every negotiation the core plays is a valid row', async () => {
    for (const row of await tournamentRows('r')) expect(NegotiationRowSchema.parse(row)).toEqual(row);
  });
});
