import { describe, expect, test } from 'vitest';
import { balanceBidi, CHART_LABEL_LENGTH, chartLabel, isolateText } from '../../src/ui/names';

const [LRE, RLE, PDF, RLO, RLI, FSI, PDI] = ['\u202A', '\u202B', '\u202C', '\u202E', '\u2067', '\u2068', '\u2069'];

describe('balanceBidi', () => {
  test('leaves a name without bidi controls as it is, right-to-left letters included', () => {
    expect(balanceBidi('boulware:beta=0.2')).toBe('boulware:beta=0.2');
    expect(balanceBidi('סוכן:קשוח')).toBe('סוכן:קשוח');
  });

  test('closes what a name leaves open, innermost first', () => {
    expect(balanceBidi(`hard${RLO}liner`)).toBe(`hard${RLO}liner${PDF}`);
    expect(balanceBidi(`a${RLI}b${LRE}c`)).toBe(`a${RLI}b${LRE}c${PDF}${PDI}`);
  });

  test('drops a closer with nothing to close, so nothing escapes an isolate around the name', () => {
    expect(balanceBidi(`a${PDI}${RLO}b`)).toBe(`a${RLO}b${PDF}`);
    expect(balanceBidi(`a${PDF}b`)).toBe('ab');
    // A PDF inside an isolate cannot close an embedding opened outside it.
    expect(balanceBidi(`${RLE}a${FSI}b${PDF}c${PDI}d${PDF}`)).toBe(`${RLE}a${FSI}bc${PDI}d${PDF}`);
  });

  test('a PDI closes its isolate and the embeddings opened inside it', () => {
    expect(balanceBidi(`${FSI}a${RLO}b${PDI}c`)).toBe(`${FSI}a${RLO}b${PDI}c`);
  });
});

describe('isolateText', () => {
  test('a plain left-to-right name is left as it is', () => {
    expect(isolateText('openai:gpt-4o-mini')).toBe('openai:gpt-4o-mini');
  });

  test('a name with a right-to-left letter or a bidi control comes between FSI and PDI, balanced', () => {
    expect(isolateText('סוכן')).toBe(`${FSI}סוכן${PDI}`);
    expect(isolateText(`hard${RLO}liner`)).toBe(`${FSI}hard${RLO}liner${PDF}${PDI}`);
    expect(isolateText(`x${PDI}`)).toBe(`${FSI}x${PDI}`);
  });
});

describe('chartLabel', () => {
  test('a short name is kept; bidi controls are removed', () => {
    expect(chartLabel('boulware:beta=0.2')).toBe('boulware:beta=0.2');
    expect(chartLabel(`hard${RLO}liner${PDF}`)).toBe('hardliner');
  });

  test('a long name is cut in the middle to the label length, keeping both ends', () => {
    const name = `openrouter:${'x'.repeat(150)}-70b-instruct`;
    const label = chartLabel(name);
    expect([...label]).toHaveLength(CHART_LABEL_LENGTH);
    expect(label.startsWith('openrouter:')).toBe(true);
    expect(label.endsWith('-70b-instruct')).toBe(true);
    expect(label).toContain('…');
  });

  test('cuts between characters, not inside a surrogate pair, and isolates a right-to-left name', () => {
    const label = chartLabel('😀'.repeat(40), 10);
    expect([...label]).toHaveLength(10);
    expect(() => encodeURIComponent(label)).not.toThrow(); // no lone surrogate
    expect(chartLabel('סוכן')).toBe(`${FSI}סוכן${PDI}`);
  });
});
