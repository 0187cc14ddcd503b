import { afterEach, describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import App from '../../src/ui/App.svelte';
import { cleanup, must, render } from './helpers.svelte';

afterEach(() => {
  cleanup();
  location.hash = '';
});

describe('App', () => {
  it('"Skip to content" moves focus to the main content and keeps the route', async () => {
    location.hash = '#/runs';
    const target = render(App, {});
    const skip = must([...target.querySelectorAll('a')].find((a) => a.textContent === 'Skip to content'), 'skip link');
    skip.focus();
    skip.click();
    flushSync();
    await new Promise((r) => setTimeout(r, 50));
    expect(location.hash).toBe('#/runs');
    expect(document.activeElement).toBe(must(target.querySelector('main')));
    expect(target.textContent).not.toContain('Page not found');
  });
});
