/**
 * The test page as Vitest first opened it, read once (this module is evaluated once per page: the
 * chromium project shares one page between its files), and a reset to it. See browser-setup.ts.
 */
import { vi } from 'vitest';
import { page, server } from 'vitest/browser';
import { cleanup } from '../ui/helpers.svelte';

const attributes = (el: Element): [string, string][] => [...el.attributes].map((a) => [a.name, a.value]);

const PRISTINE = {
  url: location.href,
  title: document.title,
  html: attributes(document.documentElement),
  body: attributes(document.body),
};

function restoreAttributes(el: Element, to: [string, string][]): void {
  for (const name of el.getAttributeNames()) el.removeAttribute(name);
  for (const [name, value] of to) el.setAttribute(name, value);
}

/**
 * Gives the page back as a fresh tab would have it: nothing mounted, no hash, the default viewport,
 * <html> and <body> without the classes and styles a file put there (the App's `presenting`), no
 * focus, no scroll, no stubbed global or spy. Stylesheets a file imported stay: a module, once
 * evaluated, would never add its style again.
 */
export async function resetPage(): Promise<void> {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  cleanup();
  document.body.replaceChildren();
  restoreAttributes(document.documentElement, PRISTINE.html);
  restoreAttributes(document.body, PRISTINE.body);
  document.title = PRISTINE.title;
  if (location.href !== PRISTINE.url) history.replaceState(null, '', PRISTINE.url);
  (document.activeElement as HTMLElement | null)?.blur?.();
  window.scrollTo(0, 0);
  const { width, height } = server.config.browser.viewport;
  await page.viewport(width, height);
}
