import { describe, expect, it } from 'vitest';
import { formatPairs, money, pct } from '../../src/cli/format';

describe('CLI figures', () => {
  it('prints a non-finite amount or share as "–", never NaN or Infinity', () => {
    for (const x of [NaN, Infinity, -Infinity]) {
      expect(money(x)).toBe('–');
      expect(pct(x)).toBe('–');
    }
    expect(pct(null)).toBe('–');
  });

  it('prints ordinary figures as before, and absurd ones short', () => {
    expect([money(12.5), money(-3), money(999_999_999_999.99)]).toEqual(['$12.50', '$-3.00', '$999999999999.99']);
    expect([money(1e306), money(-1.1e308)]).toEqual(['$1.00e+306', '-$1.10e+308']);
    expect([pct(0.4567), pct(-1.31), pct(10_000)]).toEqual(['45.7%', '-131.0%', '1000000.0%']);
    expect([pct(-1.1e306), pct(1e300)]).toEqual(['<-1000000%', '>1000000%']);
  });

  it('keeps a table of broken figures narrow', () => {
    const table = formatPairs([{ buyer: 'a', seller: 'b', n: 1, errors: 0, dealRate: NaN, buyerShare: -1.1e306, sellerShare: Infinity } as never]);
    expect(table).not.toMatch(/NaN|Infinity|e\+/);
    expect(Math.max(...table.split('\n').map((l) => l.length))).toBeLessThan(80);
  });
});
