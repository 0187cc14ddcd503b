/**
 * A student's hand-in, from the game's own page (the debrief reopens there), at 390 × 844 and
 * 1366 × 768, from the keyboard: the name is asked for this game, prefilled with the one it is stored
 * under; "Not you?" puts it back to ask; the result link holds the game under the name confirmed,
 * and its QR code, read back from the page's own drawing, is that link.
 */
import { afterAll, afterEach, beforeAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import decodeQR from 'qr/decode.js';
import '../../src/ui/theme.css';
import NegotiationPage from '../../src/ui/pages/NegotiationPage.svelte';
import ShareLink from '../../src/ui/components/ShareLink.svelte';
import { lessonById } from '../../src/ui/lessons';
import { lessonHref } from '../../src/ui/share-link';
import { database } from '../../src/ui/state/sim';
import { PLAYER_KEY, player } from '../../src/ui/state/player.svelte';
import { deleteRun } from '../../src/storage/runs';
import { importRun } from '../../src/storage/transfer';
import { handInKey } from '../../src/storage/hand-in-records';
import { HAND_IN_PATH, payloadsIn, readResultPayload } from '../../src/storage/result-link';
import { readRunFile } from '../../src/storage/run-file';
import { studentGame } from '../support/class-games';
import { cleanup, control, must, render, text } from './helpers.svelte';

const DAY = new Date(2031, 4, 20, 9).getTime();
const mine = (createdAt: number) => createdAt >= DAY && createdAt < DAY + 3_600_000;
async function clearMine(): Promise<void> {
  for (const run of await database().runs.toArray()) if (mine(run.createdAt)) await deleteRun(database(), run.id);
}
beforeAll(clearMine);
afterEach(cleanup);
afterAll(async () => {
  await clearMine();
  player.set('');
  localStorage.removeItem(PLAYER_KEY);
});

const button = (root: Element, name: string) =>
  must(
    [...root.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );
async function tabTo(el: Element): Promise<void> {
  for (let i = 0; i < 300 && document.activeElement !== el; i++) await userEvent.keyboard('{Tab}');
  expect(document.activeElement).toBe(el);
}

/** What a phone's camera would read from the QR code as the page drew it (its SVG, rasterised at 6 px a module). */
async function readQr(svg: SVGSVGElement): Promise<string> {
  const modules = svg.viewBox.baseVal.width;
  const scale = 6;
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = modules * scale;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d canvas');
  context.imageSmoothingEnabled = false;
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return decodeQR(context.getImageData(0, 0, canvas.width, canvas.height));
}

describe.each([
  [390, 844],
  [1366, 768],
])('at %i × %i', (width, height) => {
  beforeAll(async () => {
    await page.viewport(width, height);
  });

  test('the debrief reopens from the game page, asks the name for this game, and hands the game in as a link and its QR code', async () => {
    onTestFinished(clearMine);
    // Played in this browser by Student 03; the browser remembers another student's name.
    player.set('Last Student');
    const game = await studentGame('Student 03', 2, DAY + width);
    const stored = await importRun(database(), game.file, { now: DAY });
    if (!stored.ok) throw new Error(stored.error.message);
    await database().settings.delete(handInKey(stored.value.id));
    const runId = stored.value.id;

    const target = render(NegotiationPage, { runId, jobId: '0' });
    const reopen = await vi.waitFor(() => button(target, 'Reopen the debrief'), { timeout: 15_000 });
    expect(text(target.querySelector('h1'))).toMatch(/^Student 03 buys .+ from linear$/);
    await tabTo(reopen);
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => must(target.querySelector('[data-testid="debrief-headline"]')), { timeout: 15_000 });
    // A phone reads the debrief's table as cards: nothing pans sideways, every figure labelled.
    expect(must(document.scrollingElement).scrollWidth).toBeLessThanOrEqual(innerWidth);
    // The scripted strategies' replays run in the worker first.
    const you = await vi.waitFor(() => must(target.querySelector('tr.you'), 'the debrief table'), { timeout: 15_000 });
    expect(you.getBoundingClientRect().right).toBeLessThanOrEqual(innerWidth);

    // The name this game is stored under, not the one the browser remembered.
    const name = control<HTMLInputElement>(target, 'Your name');
    await vi.waitFor(() => expect(name.value).toBe('Student 03'));
    await tabTo(name);
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(text(target.querySelector('[data-testid="handed-in-as"]'))).toBe('Student 03'), { timeout: 10_000 });
    const box = control<HTMLInputElement>(target, 'Result link');
    expect(new URL(box.value).origin).toBe(location.origin);
    expect(new URL(box.value).hash.startsWith(HAND_IN_PATH)).toBe(true);
    const svg = must(target.querySelector<SVGSVGElement>('.hand-in svg[role="img"]'));
    expect(await readQr(svg)).toBe(box.value);
    expect(svg.getBoundingClientRect().right).toBeLessThanOrEqual(innerWidth);

    // "Not you?": the name is asked again, empty, with the focus in it; the game goes in under the new one.
    await tabTo(button(target, 'Not you?'));
    await userEvent.keyboard('{Enter}');
    const again = control<HTMLInputElement>(target, 'Your name');
    await vi.waitFor(() => expect(document.activeElement).toBe(again));
    expect(again.value).toBe('');
    expect(target.querySelector('[data-testid="handed-in-as"]')).toBeNull();
    await userEvent.keyboard('Ada Lovelace{Enter}');
    await vi.waitFor(() => expect(text(target.querySelector('[data-testid="handed-in-as"]'))).toBe('Ada Lovelace'), { timeout: 10_000 });
    const link = control<HTMLInputElement>(target, 'Result link').value;
    const code = must(target.querySelector<SVGSVGElement>('.hand-in svg[role="img"]'));
    expect(await readQr(code)).toBe(link);
    expect((await database().runs.get(runId))?.name).toBe(game.run.name.replace('Student 03', 'Ada Lovelace'));
    expect(player.name).toBe('Ada Lovelace');

    // The link holds this very game, under the name confirmed, and passes the file check.
    const payloads = payloadsIn(link);
    expect(payloads).toHaveLength(1);
    const read = await readResultPayload(payloads[0] ?? '');
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.name).toBe(game.run.name.replace('Student 03', 'Ada Lovelace'));
    const file = readRunFile(read.value.text);
    expect(file.ok && file.value.rows[0]?.events).toEqual(game.row.events);
    expect(text(code.closest('figure')?.querySelector('figcaption'))).toMatch(/^QR code, version \d+ \(\d+ × \d+ modules, (low|medium) error correction\)$/);
  });
});

describe('the share link of a lesson', () => {
  test('comes with its QR code, which reads back as the link', async () => {
    await page.viewport(390, 844);
    const lesson = lessonById('anchoring');
    if (!lesson) throw new Error('no anchoring lesson');
    const target = render(ShareLink, { hash: lessonHref(lesson), what: 'play this lesson' });
    expect(target.querySelector('svg[role="img"]')).toBeNull();
    await tabTo(button(target, 'Copy link'));
    await userEvent.keyboard('{Enter}');
    const link = await vi.waitFor(() => control<HTMLInputElement>(target, 'Link').value);
    const code = must(target.querySelector<SVGSVGElement>('svg[role="img"][aria-label="QR code of this link"]'));
    expect(await readQr(code)).toBe(link);
    expect(new URL(link).hash).toBe(lessonHref(lesson));
    expect(code.getBoundingClientRect().right).toBeLessThanOrEqual(innerWidth);
  });
});
