import { describe, expect, it } from 'vitest';
import { DOLLAR_PROBLEMS, estimateCost, formatUsd, parseDollars, PriceSchema } from '../../src/engine/cost';

describe('estimateCost', () => {
  it('is tokens in millions times the price per million, input and output apart', () => {
    expect(estimateCost({ tokensIn: 1_000_000, tokensOut: 0 }, { inputPerMTok: 0.15, outputPerMTok: 0.6 })).toBe(0.15);
    expect(estimateCost({ tokensIn: 0, tokensOut: 2_000_000 }, { inputPerMTok: 0.15, outputPerMTok: 0.6 })).toBe(1.2);
    expect(estimateCost({ tokensIn: 12_345, tokensOut: 678 }, { inputPerMTok: 3, outputPerMTok: 15 })).toBeCloseTo((12_345 * 3 + 678 * 15) / 1e6, 15);
    expect(estimateCost({ tokensIn: 5000, tokensOut: 5000 }, { inputPerMTok: 0, outputPerMTok: 0 })).toBe(0);
  });
});

describe('parseDollars', () => {
  it('reads plain decimals, with or without a dollar sign and spaces', () => {
    expect(['0.15', ' 3 ', '$2.50', '$ 0.6', '.5', '1e-1', '0'].map((t) => parseDollars(t))).toEqual(
      [0.15, 3, 2.5, 0.6, 0.5, 0.1, 0].map((value) => ({ ok: true, value })),
    );
  });

  it('refuses empty, negative, non-numeric and infinite text, each with its code and the text as typed', () => {
    const refusal = (text: string) => {
      const r = parseDollars(text);
      return r.ok ? null : { code: r.error.code, data: r.error.data };
    };
    expect(refusal('')).toEqual({ code: 'no-price', data: {} });
    expect(refusal(' $ ')).toEqual({ code: 'no-price', data: {} });
    expect(refusal(' -1 ')).toEqual({ code: 'negative-price', data: { value: '-1' } });
    expect(refusal('abc')).toEqual({ code: 'price-not-decimal', data: { value: 'abc' } });
    for (const text of ['0,15', '1.2.3', 'NaN', 'Infinity', '0x10', '1 2', '--1'])
      expect(refusal(text), text).toEqual({ code: 'price-not-decimal', data: { value: text } });
    expect(refusal('1e400')).toEqual({ code: 'price-too-large', data: { value: '1e400' } });
  });

  it('words each refusal as one phrase, from its table', () => {
    const r = parseDollars('-1');
    expect(r.ok ? null : r.error.message).toBe(DOLLAR_PROBLEMS['negative-price']({ value: '-1' }));
    expect([
      DOLLAR_PROBLEMS['no-price'](),
      DOLLAR_PROBLEMS['negative-price']({ value: '-1' }),
      DOLLAR_PROBLEMS['price-not-decimal']({ value: 'abc' }),
      DOLLAR_PROBLEMS['price-too-large']({ value: '1e400' }),
    ]).toEqual([
      'no price given; write US dollars per million tokens (0 if free)',
      'a price cannot be negative, got -1',
      '"abc" is not a number; write dollars per million tokens, e.g. 0.15',
      '"1e400" is too large',
    ]);
  });
});

describe('PriceSchema', () => {
  it('takes finite prices of 0 or more only', () => {
    expect(PriceSchema.safeParse({ inputPerMTok: 0, outputPerMTok: 1.5 }).success).toBe(true);
    for (const bad of [
      { inputPerMTok: -1, outputPerMTok: 1 },
      { inputPerMTok: 1, outputPerMTok: Infinity },
      { inputPerMTok: '1', outputPerMTok: 1 },
      { inputPerMTok: 1 },
    ])
      expect(PriceSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });
});

describe('formatUsd', () => {
  it('shows small costs to a hundredth of a cent and large ones to the cent', () => {
    expect([0, 0.00004, 0.0001234, 0.0456, 0.99994, 1, 1234.5].map(formatUsd)).toEqual([
      '$0.00',
      '< $0.0001',
      '$0.0001',
      '$0.0456',
      '$0.9999',
      '$1.00',
      '$1,234.50',
    ]);
  });
});
