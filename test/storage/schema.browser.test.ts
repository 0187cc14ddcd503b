import { describe, expect, test } from 'vitest';
import { planTournament, type TournamentConfig } from '../../src/core/bilateral/tournament';
import {
  fullTournamentConfig,
  NegotiationRowSchema,
  RunConfigSchema,
  TournamentConfigSchema,
} from '../../src/storage/schema';
import { TOURNAMENT, tournamentRows } from './helpers';

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
    expect(ok({ turnLimit: 1001 })).toBe(false);
    expect(ok({ turnLimit: undefined })).toBe(false);
    expect(ok({ firstMover: 'broker' })).toBe(false);
    expect(ok({ preset: 'huge' })).toBe(false);
  });

  test('fullTournamentConfig writes out core defaults, and plans the same tournament', () => {
    const core: TournamentConfig = { agents: ['boulware', 'linear'], scenariosPerPair: 2, preset: 'wide', seed: 3, selfPlay: true };
    const stored = fullTournamentConfig(core);
    expect(stored).toEqual({ ...core, turnLimit: 20, firstMover: 'seller' });
    expect(TournamentConfigSchema.parse(stored)).toEqual(stored);
    expect(planTournament(stored)).toEqual(planTournament(core));
  });

  test('a run config is a tournament or an arena game', () => {
    expect(RunConfigSchema.safeParse({ kind: 'tournament', tournament: TOURNAMENT }).success).toBe(true);
    expect(RunConfigSchema.safeParse({ kind: 'market' }).success).toBe(false);
  });

  test('every negotiation the core plays is a valid row', async () => {
    for (const row of await tournamentRows('r')) expect(NegotiationRowSchema.parse(row)).toEqual(row);
  });
});
