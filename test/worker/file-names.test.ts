import { describe, expect, test } from 'vitest';
import { runFileName, runFileStem, safeFileName } from '../../src/worker/file-names';

describe('the one file-name rule, for the worker and the page alike', () => {
  test('a name keeps letters, digits, `.`, `_` and `-`; any other run of characters becomes one `-`', () => {
    expect(safeFileName('a "CSV", in parts')).toBe('a-CSV-in-parts');
    expect(safeFileName('Ada: human buys a blender')).toBe('Ada-human-buys-a-blender');
    expect(safeFileName('x'.repeat(70))).toBe('x'.repeat(60));
  });

  test('nothing left is `run`, or the name given for it', () => {
    expect(safeFileName('')).toBe('run');
    expect(safeFileName('', 'market')).toBe('market');
  });

  test("a run's files are `parley-<its name>-<part>`, both made safe", () => {
    expect(runFileStem('my run', 'deal rate')).toBe('parley-my-run-deal-rate');
    expect(runFileName('a "CSV", in parts', 'negotiations', 'csv')).toBe('parley-a-CSV-in-parts-negotiations.csv');
  });
});
