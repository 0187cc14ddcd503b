import { z } from 'zod';
import { RoleSchema, ZoneBinSchema } from './scenario';
import { RATE_NAMES, type RateName, type Standings } from './aggregate';
import { USAGE_ROLES } from './usage';
import type { Same } from '../../engine/types';

const rate = z.number().finite().nullable();
const interval = z.tuple([z.number(), z.number()]).nullable();
const perRate = <T extends z.ZodType>(schema: T) => Object.fromEntries(RATE_NAMES.map((name) => [name, schema])) as Record<RateName, T>;
const tier = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]);
const row = {
  agent: z.string().max(200),
  role: RoleSchema,
  n: z.int().nonnegative(),
  errors: z.int().nonnegative(),
  ...perRate(rate),
  ci: z.object(perRate(interval)),
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
  byTier: z.array(z.object({ ...row, tier })),
  byZone: z.array(z.object({ ...row, zone: ZoneBinSchema })),
  pairs: z.array(
    z.object({
      buyer: z.string().max(200),
      seller: z.string().max(200),
      n: z.int().nonnegative(),
      errors: z.int().nonnegative(),
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
  intervals: z
    .object({
      method: z.literal('paired-analytic'),
      unit: z.literal('scenario'),
      level: z.number().gt(0).lt(1),
      bootstrapBelow: z.int().positive(),
      samples: z.int().positive(),
      /** Absent where every scenario had one opener, and in standings made before strata. */
      strata: z.literal('opener').optional(),
      apart: z.int().nonnegative(),
    })
    .nullable(),
});

const sameStandings: Same<z.infer<typeof StandingsSchema>, Standings> = true;
void sameStandings;
