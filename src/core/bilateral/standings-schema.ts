import { z } from 'zod';
import { RoleSchema } from '../scenario';
import type { Standings } from './aggregate';
import { USAGE_ROLES } from './usage';

const rate = z.number().finite().nullable();
const interval = z.tuple([z.number(), z.number()]).nullable();
const rates = {
  dealRate: rate,
  walkAwayRateNoGft: rate,
  surplusShare: rate,
  expectedSurplusShare: rate,
  irViolationRate: rate,
  invalidMoveRate: rate,
};
const row = {
  agent: z.string().max(200),
  role: RoleSchema,
  n: z.int().nonnegative(),
  ...rates,
  ci: z.object({
    dealRate: interval,
    walkAwayRateNoGft: interval,
    surplusShare: interval,
    expectedSurplusShare: interval,
    irViolationRate: interval,
    invalidMoveRate: interval,
  }),
};

const usage = {
  negotiations: z.int().nonnegative(),
  calls: z.int().nonnegative(),
  tokensIn: z.int().nonnegative(),
  tokensOut: z.int().nonnegative(),
  latencyMs: z.number().finite().nonnegative(),
  meanLatencyMs: z.number().finite().nonnegative().nullable(),
};

/**
 * Standings as they cross a thread boundary. Stored standings are not parsed with it: runs stored
 * before usage was counted have none (storage's StoredStandings says so).
 */
export const StandingsSchema = z.object({
  leaderboard: z.array(z.object(row)),
  byTier: z.array(z.object({ ...row, tier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]) })),
  pairs: z.array(
    z.object({
      buyer: z.string().max(200),
      seller: z.string().max(200),
      n: z.int().nonnegative(),
      dealRate: rate,
      buyerShare: rate,
      sellerShare: rate,
    }),
  ),
  dealPositions: z.object({ bins: z.array(z.int().nonnegative()), below: z.int().nonnegative(), above: z.int().nonnegative() }),
  usage: z.object({
    byAgent: z.array(z.object({ agent: z.string().max(200), role: z.enum(USAGE_ROLES), ...usage })),
    total: z.object(usage),
  }),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameStandings: Same<z.infer<typeof StandingsSchema>, Standings> = true;
void sameStandings;
