import { afterEach, describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import App from '../../src/ui/App.svelte';
import { cleanup, must, render } from './helpers.svelte';

afterEach(() => {
  cleanup();
  location.hash = '';
});

describe('App', () => {
  it('"Skip to content" moves focus to the main content and keeps the route', () => {
    location.hash = '#/runs';
    const target = render(App, {});
    const skip = must(
      [...target.querySelectorAll('a')].find((a) => a.textContent === 'Skip to content'),
      'skip link',
    );
    skip.focus();
    // Followed, the link would navigate to "#main" (the router would then show "Page not found"):
    // its click's default, the navigation, must be prevented, so nothing is left to wait for.
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    skip.dispatchEvent(click);
    flushSync();
    expect(click.defaultPrevented).toBe(true);
    expect(location.hash).toBe('#/runs');
    expect(document.activeElement).toBe(must(target.querySelector('main')));
    expect(target.textContent).not.toContain('Page not found');
  });
});
