import { expect, test } from 'vitest';

test('runs in Chromium with IndexedDB and module workers', () => {
  expect(navigator.userAgent).toContain('Chrome');
  expect(typeof indexedDB.open).toBe('function');
});
