/**
 * Driving the Arena's seat as a class does, from the keyboard or by touch: a real touch tap (a
 * touch pointer, then a click, through Chromium's input pipeline) and text as a phone's on-screen
 * keyboard inserts it; where an element is on screen; the blender of issue 22.
 */
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { cdp, userEvent } from 'vitest/browser';
import { CATALOG } from '../../src/games/bilateral/catalog';
import { makeScenario, type Role, type Scenario } from '../../src/games/bilateral/scenario';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { control, must, text } from './helpers.svelte';
import { deleteRun, listRuns } from '../../src/storage/runs';
import { database } from '../../src/ui/state/sim';

export type Input = 'keyboard' | 'touch';

const blender = CATALOG.find((i) => i.id === 'blender');
if (!blender) throw new Error('the catalog has no blender');
/** The blender: list $79, the buyer's value $88.50, the seller's cost $40. */
export const BLENDER: Scenario = makeScenario('class-blender', blender, 88.5, 40, { turnLimit: 12, firstMover: 'seller' });
/** A hardliner that asks $119 (its cost plus the list price) and never moves: it takes any offer at or above that. */
export const FIRM = 'hardliner:anchor=1';
/** An Arena link's setup for the blender; `you`: the seat taken in person. */
export const SETUP = (you: string, seller = FIRM) =>
  `you=${you}&buyer=boulware&seller=${encodeURIComponent(seller)}&item=blender&value=88.5&cost=40&turns=12&first=seller`;

/** A value that must be there (an element's `must`, for any value). */
export function given<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`${what} missing`);
  return value;
}

/** Presses Tab (Shift+Tab going back) until `el` has the focus: the keyboard's own way there. */
export async function tabTo(el: Element, back = false): Promise<void> {
  for (let i = 0; i < 200 && document.activeElement !== el; i++) await userEvent.keyboard(back ? '{Shift>}{Tab}{/Shift}' : '{Tab}');
  expect(document.activeElement).toBe(el);
}

/**
 * A finger's tap on `el`: touchStart and touchEnd at its centre, sent to Chromium as touch input
 * (the page sees a touch pointer, then a click). The test page sits in a frame the runner may
 * scale, so the point is mapped to the top window's pixels.
 */
export async function tap(el: Element): Promise<void> {
  el.scrollIntoView({ block: 'nearest' });
  const frame = given(window.frameElement, 'test frame').getBoundingClientRect();
  const scale = frame.width / innerWidth;
  const box = el.getBoundingClientRect();
  const x = frame.left + (box.left + box.width / 2) * scale;
  const y = frame.top + (box.top + box.height / 2) * scale;
  await cdp().send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  await cdp().send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

/** Text as an on-screen keyboard gives it to the focused field (no key presses). */
export async function insertText(value: string): Promise<void> {
  await cdp().send('Input.insertText', { text: value });
}

export const button = (root: Element, name: string) =>
  must(
    [...root.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );
export const priceInput = (target: HTMLElement) => control<HTMLInputElement>(target, 'Price ($)');

/** Waits for the seat's turn: the move form is there and the price field has the focus. */
export async function yourTurn(target: HTMLElement): Promise<HTMLInputElement> {
  await vi.waitFor(
    () => {
      if (!target.querySelector('.move-form')) throw new Error(`no move form: ${text(target).slice(-1500)}`);
      expect(target.querySelector('.move-form fieldset')?.hasAttribute('disabled')).toBe(false);
      expect(document.activeElement).toBe(priceInput(target));
    },
    { timeout: 10_000 },
  );
  return priceInput(target);
}

/** Types a price and sends the move: Enter from the keyboard, or the text inserted and "Send move" tapped. */
export async function sendPrice(target: HTMLElement, input: Input, price: string): Promise<void> {
  if (input === 'keyboard') return userEvent.keyboard(`${price}{Enter}`);
  await insertText(price);
  await tap(button(target, 'Send move'));
}

export const moves = (events: readonly BilateralEvent[], role: Role) => events.flatMap((e) => (e.type === 'move' && e.actor === role ? [e.move] : []));

/** Whether the whole of `el` is on screen: inside the window and inside every box that clips it. */
export function inView(el: Element): boolean {
  const box = el.getBoundingClientRect();
  if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth) return false;
  for (let a = el.parentElement; a; a = a.parentElement) {
    if (getComputedStyle(a).overflowY === 'visible') continue;
    const clip = a.getBoundingClientRect();
    if (box.top < clip.top - 1 || box.bottom > clip.bottom + 1) return false;
  }
  return true;
}
export const where = (el: Element | null | undefined) => JSON.stringify(el?.getBoundingClientRect());

/** A CSS colour as the page resolves it (`var(--danger)` to `rgb(…)`). */
export function resolvedColour(css: string): string {
  const probe = document.createElement('span');
  probe.style.color = css;
  document.body.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}

/** The Arena games a test file plays are deleted after it; the runs stored before it are kept. */
export function deleteArenaGamesAfterAll(): void {
  let before = new Set<string>();
  beforeAll(async () => {
    before = new Set((await database().runs.toArray()).map((r) => r.id));
  });
  afterAll(async () => {
    for (const run of await listRuns(database())) if (!before.has(run.id) && run.config.kind === 'arena') await deleteRun(database(), run.id);
  });
}
