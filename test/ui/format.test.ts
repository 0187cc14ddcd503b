import { describe, expect, it } from 'vitest';
import { money, pct } from '../../src/ui/components/format';

describe('the app’s money and percentages', () => {
  it('show a non-finite figure as "–"', () => {
    for (const x of [NaN, Infinity, -Infinity]) {
      expect(money(x)).toBe('–');
      expect(pct(x)).toBe('–');
      expect(pct(x, 1)).toBe('–');
    }
  });

  it('show ordinary figures as before', () => {
    expect([money(1234.5), money(-3), pct(0.4567), pct(0.4567, 1), pct(-0.0001)]).toEqual(['$1,234.50', '-$3.00', '46%', '45.7%', '0%']);
  });

  it('show an absurd figure short, never as hundreds of digits', () => {
    expect(money(1e306)).toBe('$1.00E306');
    expect(money(-1.1e308)).toBe('-$1.10E308');
    expect(pct(-1.1e306)).toBe('<-1,000,000%');
    expect(pct(1e307, 1)).toBe('>1,000,000%');
    expect(pct(10_000)).toBe('1000000%');
  });
});
