import { expect, test } from 'vitest';

const sources = import.meta.glob('../../src/ui/**/*.svelte', { query: '?raw', import: 'default', eager: true });

test('no component renders text as HTML', () => {
  expect(Object.keys(sources).length).toBeGreaterThan(5);
  for (const [path, source] of Object.entries(sources)) expect(source, path).not.toMatch(/\{@html\b/);
});
