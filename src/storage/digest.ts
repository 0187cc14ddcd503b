import type { DigestRow, NegotiationRow } from './schema';

/** Rows per digest when rows are digested in bulk (version 2's upgrade). */
export const DIGEST_SIZE = 500;

/** One digest of consecutive rows of one run, in the order given. */
export function digestOf(
  runId: string,
  rows: readonly Pick<NegotiationRow, 'index' | 'jobId' | 'buyer' | 'seller' | 'outcome' | 'tier'>[],
): DigestRow {
  const first = rows[0]?.index ?? 0;
  return {
    id: `${runId}:${first}`,
    runId,
    first,
    jobIds: rows.map((r) => r.jobId),
    indexes: rows.map((r) => r.index),
    buyers: rows.map((r) => r.buyer),
    sellers: rows.map((r) => r.seller),
    outcomes: rows.map((r) => r.outcome),
    tiers: rows.map((r) => r.tier),
  };
}

export function digestsOf(runId: string, rows: readonly NegotiationRow[]): DigestRow[] {
  const out: DigestRow[] = [];
  for (let i = 0; i < rows.length; i += DIGEST_SIZE) out.push(digestOf(runId, rows.slice(i, i + DIGEST_SIZE)));
  return out;
}
