/**
 * The app after one visit, with the network gone: the real build and its real service worker
 * (the other browser tests block it). It opens, says it is offline, plays an Arena game and a small
 * tournament with scripted agents and stores both, opens the pages it never opened online, and refuses a run with a remote model or a
 * WebLLM model not yet downloaded before it starts, naming them.
 */
import { describe, expect, it } from 'vitest';
import { appForTests, configureTournament, reopenOffline, screenshot, storedRows, storedRuns } from './pages';

const REMOTE = 'openai:gpt-4o-mini';
/** Headless Chromium's adapter has no shader-f16, so the q4f32 builds are offered; none is in the cache. */
const UNCACHED = 'webllm:Qwen3-0.6B-q4f32_1-MLC';

describe('offline, after one visit', () => {
  const app = appForTests({ serviceWorkers: 'allow' });

  it('opens with no network, plays an Arena game and a tournament of scripted agents, stores them, and opens the pages never opened online', async () => {
    const { browser, page, url, errors } = app;
    await reopenOffline(browser, page, url);
    // The page itself came from the service worker's cache: the network is really gone.
    expect(
      await page.evaluate(() =>
        fetch(`favicon.svg?${Math.random()}`).then(
          () => 'reached',
          () => 'unreachable',
        ),
      ),
    ).toBe('unreachable');

    await page.getByLabel('Speed').selectOption({ label: 'Instant' });
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const outcome = page.getByRole('region', { name: 'Outcome', exact: true });
    await outcome.waitFor({ timeout: 30_000 });
    await expect.poll(() => outcome.textContent()).toMatch(/Deal at \$\d+\.\d\d|No deal|walked away|turn limit/i);
    // The first stored run asks for persistent storage, once, and says why in one line.
    const note = page.getByTestId('persist-note');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/Saved in this browser\. To keep a copy|Saved: this browser keeps your games/);
    expect((await storedRows<{ key: string }>(page, 'settings')).map((r) => r.key)).toContain('storage.persist-asked');

    await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
    await configureTournament(page, ['boulware', 'hardliner'], 2);
    await page.getByRole('button', { name: /^Run \d+ negotiations$/ }).click();
    await page.getByRole('region', { name: 'Progress', exact: true }).getByText('Finished.').waitFor({ timeout: 60_000 });
    await screenshot(page, 'offline-tournament');

    const runs = await storedRuns(page);
    expect(runs.map((r) => ({ status: r.status, done: r.done, negotiations: r.negotiations })).toSorted((a, b) => a.done - b.done)).toEqual([
      { status: 'done', done: 1, negotiations: 1 },
      { status: 'done', done: 4, negotiations: 4 },
    ]);

    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('tr[data-run-id]').count()).toBe(2);
    await page
      .getByTestId('storage-estimate')
      .getByText(/Storage used: .+ of .+ available/)
      .waitFor();

    // The Models page (a chunk of its own, and WebLLM's engine worker behind it) opens too, says
    // which models play offline, and offers no download while the network is gone.
    await page.getByRole('navigation').getByRole('link', { name: 'Models' }).click();
    await expect.poll(() => page.getByTestId('offline-models').textContent(), { timeout: 30_000 }).toMatch(/No model is downloaded yet/);
    const download = page.getByRole('button', { name: /^Download Qwen3/ });
    expect(await download.count()).toBeGreaterThan(0);
    for (const button of await download.all()) expect(await button.isDisabled()).toBe(true);

    // Each page's code is loaded when the page is first opened: those never opened online come from the cache too.
    for (const [link, title] of [
      ['Learn', 'Learn'],
      ['Market', 'Market'],
      ['Class', 'Class'],
      ['Home', 'Parley'],
    ]) {
      await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
    }
    await page.evaluate((id) => (location.hash = `#/runs/${encodeURIComponent(id)}`), runs[0]?.id ?? '');
    await expect.poll(() => page.locator('main h1').first().textContent()).not.toMatch(/not found|cannot be read/i);
    expect(await page.getByText(/could not be loaded/).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('marks a remote model unavailable, and refuses a run with it or an undownloaded WebLLM model before the run starts', async () => {
    const { browser, page, errors } = app;
    const before = (await storedRuns(page)).length;
    await page.getByRole('navigation').getByRole('link', { name: 'Tournament' }).click();
    await configureTournament(page, ['boulware'], 2);
    await page.getByLabel('Agent', { exact: true }).selectOption('remote model…');
    await page.getByLabel('Remote model', { exact: true }).fill(REMOTE);
    // The form's own parts, by their names: the results of the run before (below the form, drawn a
    // section per task on a busy machine) hold alerts and controls of their own.
    const form = page.getByRole('form', { name: 'Tournament setup' });
    const listed = form.getByRole('group', { name: 'Agents', exact: true }).getByRole('listitem');
    await form.getByTestId('unavailable-offline').waitFor();
    await form.getByRole('button', { name: `Add ${REMOTE}`, exact: true }).click();
    await expect.poll(() => listed.count()).toBe(2);
    await form.getByRole('button', { name: /^Run \d+ negotiations$/ }).click();
    const alert = form.getByRole('alert').filter({ hasText: 'You are offline' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`${REMOTE} needs the network`);
    // A WebLLM model that was never downloaded needs the network too: the worker's WebLLM cache says so.
    await page.getByLabel('Agent', { exact: true }).selectOption(UNCACHED);
    await form.getByRole('button', { name: `Add ${UNCACHED}`, exact: true }).click();
    // The run is asked for with the agent listed, not at whatever moment the click lands.
    await expect.poll(() => listed.count()).toBe(3);
    await form.getByRole('button', { name: /^Run \d+ negotiations$/ }).click();
    await expect.poll(() => alert.textContent()).toContain(`${REMOTE}, ${UNCACHED} need the network`);
    await screenshot(page, 'offline-refused');
    // Nothing was started, so nothing failed part way and nothing new was stored.
    expect(await storedRuns(page)).toHaveLength(before);
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);

    // Back online, the badge and the mark go.
    await browser.context.setOffline(false);
    await expect.poll(() => page.getByTestId('offline-indicator').count()).toBe(0);
    expect(await page.getByTestId('unavailable-offline').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
