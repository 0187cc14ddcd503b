import { describe, expect, it } from 'vitest';
import { appForTests, reopenOffline, storedRuns } from './pages';

const REMOTE = 'openai:gpt-4o-mini';

describe('the Arena offline', () => {
  const app = appForTests({ serviceWorkers: 'allow' });

  it('refuses a game with a remote seat before it starts, and plays one with scripted seats', async () => {
    const { browser, page, url, errors } = app;
    await reopenOffline(browser, page, url);
    const buyer = page.getByRole('group', { name: 'Buyer' });
    await buyer.getByLabel('Agent', { exact: true }).selectOption('remote model…');
    await buyer.getByLabel('Remote model', { exact: true }).fill(REMOTE);
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'You are offline' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`${REMOTE} needs the network`);
    expect(await storedRuns(page)).toHaveLength(0);
    await buyer.getByLabel('Agent', { exact: true }).selectOption('boulware');
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.getByRole('region', { name: 'Outcome' }).waitFor({ timeout: 30_000 });
    expect(await alert.count()).toBe(0);
    await expect.poll(async () => (await storedRuns(page)).length).toBe(1);
    expect(errors).toEqual([]);
  });
});
