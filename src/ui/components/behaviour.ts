/** Whether an agent's opening or patience went with its surplus share, said in words. */
import type { Role } from '../../games/bilateral/scenario';

/** Spearman's rank correlation (ties share their mean rank); null with fewer than three pairs or no spread. */
export function rankCorrelation(pairs: readonly (readonly [number, number])[]): number | null {
  if (pairs.length < 3) return null;
  const ranks = (values: number[]): number[] => {
    const order = values.map((value, at) => ({ value, at })).sort((a, b) => a.value - b.value);
    const out = new Array<number>(values.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (order[j + 1]?.value === order[i]?.value && j + 1 < order.length) j++;
      for (let k = i; k <= j; k++) out[(order[k] as { at: number }).at] = (i + j) / 2;
      i = j + 1;
    }
    return out;
  };
  const x = ranks(pairs.map((p) => p[0]));
  const y = ranks(pairs.map((p) => p[1]));
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((xi, i) => {
    const dx = xi - mx;
    const dy = (y[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  });
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

export type BehaviourMeasure = 'opening' | 'patience';

/**
 * One sentence on one role: did a harder opening (lower for a buyer, higher for a seller) or more
 * patience go with a higher share across agents? |ρ| below 0.3 reads as no clear relation.
 */
export function describeRelation(measure: BehaviourMeasure, role: Role, pairs: readonly (readonly [number, number])[]): string {
  const who = `As ${role} (${pairs.length} agent${pairs.length === 1 ? '' : 's'})`;
  const rho = rankCorrelation(pairs);
  if (rho === null) return `${who}: too few agents, or no spread, to tell.`;
  // A buyer anchors hard by opening low, so its ranks run the other way.
  const signed = measure === 'opening' && role === 'buyer' ? -rho : rho;
  const what = measure === 'opening' ? 'harder openings' : 'more patience';
  const text =
    signed >= 0.3 ? `${what} went with a higher share` : signed <= -0.3 ? `${what} went with a lower share` : `no clear relation between ${measure} and share`;
  return `${who}: ${text} (rank correlation ${signed.toFixed(2)}).`;
}
