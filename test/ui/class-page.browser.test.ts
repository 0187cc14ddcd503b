/**
 * The teacher's Class page over real IndexedDB and the real worker, at a phone's 390 × 844 and a
 * projector's 1366 × 768, from the keyboard: thirty result links pasted at once give the ranking
 * that thirty files give, and both are the ranking worked out by hand from the games' prices; the
 * same game twice (renamed or not) counts once; a forged bot move is refused as tampered; the
 * teacher's own game is out until ticked in; the class list says who has not handed in.
 */
import { afterAll, afterEach, beforeAll, describe, expect, onTestFinished, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import '../../src/ui/theme.css';
import App from '../../src/ui/App.svelte';
import ClassPage from '../../src/ui/pages/ClassPage.svelte';
import { ClassRoom } from '../../src/ui/state/class-room.svelte';
import { database, useSim } from '../../src/ui/state/sim';
import { SimClient } from '../../src/worker/client';
import type { ToWorker } from '../../src/worker/messages';
import { classExport } from '../../src/ui/class-export';
import { CLASS_SETTINGS_KEY, dayOf } from '../../src/ui/class-set';
import type { SettingRow } from '../../src/storage/db';
import { pct } from '../../src/ui/components/format';
import type { RankingRow } from '../../src/ui/class-export';
import { deleteRun } from '../../src/storage/runs';
import { importRun } from '../../src/storage/transfer';
import { handInKey } from '../../src/storage/hand-in-records';
import { HAND_IN_PATH, linkGame, resultPayload } from '../../src/storage/result-link';
import { LESSON_BOT, classGames, forgedBotMove, studentGame, type StudentGame } from '../support/class-games';
import { CLASS_GAMES_CSV, CLASS_RANKING_CSV, HAND_MADE_GAMES, storeHandMadeGames } from '../support/class-records';
import { freshDb } from '../storage/helpers';
import { qrGrid } from '../../src/ui/qr';
import { insertText, tap } from './arena-seat-helpers';
import { cleanup, control, must, render, text } from './helpers.svelte';

/** A day of its own (noon, local time), so that the test's class is that day's games, whatever else is stored. */
const DAY = new Date(2031, 2, 14, 9).getTime();
const mine = (createdAt: number) => createdAt >= DAY && createdAt < DAY + 3 * 3_600_000;

async function clearMine(): Promise<void> {
  for (const run of await database().runs.toArray()) if (mine(run.createdAt)) await deleteRun(database(), run.id);
}
/**
 * The class's settings as they were before this file (the day, the ticks and the roster its tests
 * choose are saved, and read by the next Class page opened in this browser), put back afterwards.
 */
let settingsBefore: SettingRow | undefined;
beforeAll(async () => {
  await clearMine();
  settingsBefore = await database().settings.get(CLASS_SETTINGS_KEY);
});
afterEach(cleanup);
afterAll(async () => {
  await clearMine();
  if (settingsBefore) await database().settings.put(settingsBefore);
  else await database().settings.delete(CLASS_SETTINGS_KEY);
});

async function linkOf(g: StudentGame): Promise<string> {
  const game = linkGame(g.run, g.row);
  if (!game) throw new Error('not a game with a result link');
  return `${location.origin}/${HAND_IN_PATH}${await resultPayload(game)}`;
}
function given<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`${what} missing`);
  return value;
}
/** The tick box of the listed game whose title starts with `title`. */
const gameBox = (target: HTMLElement, title: string) =>
  must(
    [...target.querySelectorAll<HTMLLIElement>('ul.games li')]
      .find((li) => text(li.querySelector('.what')).startsWith(title))
      ?.querySelector<HTMLInputElement>('input'),
    title,
  );
const button = (root: Element, name: string) =>
  must(
    [...root.querySelectorAll('button')].find((b) => text(b) === name),
    name,
  );

/** Presses Tab until `el` has the focus: the keyboard's own way there. */
async function tabTo(el: Element): Promise<void> {
  for (let i = 0; i < 300 && document.activeElement !== el; i++) await userEvent.keyboard('{Tab}');
  expect(document.activeElement).toBe(el);
}

/** The ranking worked out by hand from each game's last event: the student buys, linear sells. */
function expectedRanking(games: readonly StudentGame[]): Omit<RankingRow, 'rank' | 'meanShare' | 'gftGames'>[] {
  const rows = new Map<string, { name: string; kind: 'student' | 'bot'; games: number; deals: number; sum: number; irViolations: number }>();
  const add = (name: string, kind: 'student' | 'bot', share: number, deal: boolean, ir: boolean) => {
    const row = rows.get(`${kind}:${name}`) ?? { name, kind, games: 0, deals: 0, sum: 0, irViolations: 0 };
    row.games += 1;
    row.deals += deal ? 1 : 0;
    row.sum += share;
    row.irViolations += ir ? 1 : 0;
    rows.set(`${kind}:${name}`, row);
  };
  for (const g of games) {
    const { buyerValue: value, sellerCost: cost } = g.row.scenario;
    const end = g.row.events.at(-1);
    const price = end?.type === 'end' && end.outcome.kind === 'deal' ? end.outcome.price : null;
    const student = g.run.name.slice(0, g.run.name.indexOf(': '));
    add(student, 'student', price === null ? 0 : (value - price) / (value - cost), price !== null, price !== null && price > value);
    add(LESSON_BOT, 'bot', price === null ? 0 : (price - cost) / (value - cost), price !== null, price !== null && price < cost);
  }
  return [...rows.values()]
    .map(({ sum, ...row }) => ({ ...row, expectedShare: sum / row.games }))
    .sort((a, b) => b.expectedShare - a.expectedShare || a.name.localeCompare(b.name));
}
function expectRanking(actual: readonly RankingRow[], games: readonly StudentGame[]): void {
  const expected = expectedRanking(games);
  expect(actual.map((r) => [r.rank, r.kind, r.name, r.games, r.deals, r.irViolations])).toEqual(
    expected.map((r, i) => [i + 1, r.kind, r.name, r.games, r.deals, r.irViolations]),
  );
  for (const [i, row] of expected.entries()) expect(actual[i]?.expectedShare ?? NaN).toBeCloseTo(row.expectedShare ?? NaN, 9);
}
/** The ranking table as the page shows it: rank, name, games, expected share. */
const shownRanking = (target: HTMLElement) =>
  [...target.querySelectorAll('table.ranking tbody tr')].map((tr) => {
    const cells = [...tr.querySelectorAll('td')].map((td) => text(td));
    return [cells[0], cells[1], cells[3], cells[5]];
  });

async function openClass(room: ClassRoom): Promise<HTMLElement> {
  const target = render(ClassPage, { room });
  await vi.waitFor(() => expect(room.loaded).toBe(true), { timeout: 10_000 });
  return target;
}
/** The teacher's class is this day's games (the day is offered once a game of it is stored). */
async function chooseDay(target: HTMLElement, room: ClassRoom): Promise<void> {
  const day = control<HTMLSelectElement>(target, 'Day');
  await tabTo(day);
  await userEvent.selectOptions(day, dayOf(DAY));
  await vi.waitFor(() => expect(room.settings.day).toBe(dayOf(DAY)), { timeout: 10_000 });
}
async function pasteAndHandIn(target: HTMLElement, room: ClassRoom, text: string): Promise<void> {
  const box = control<HTMLTextAreaElement>(target, 'Result links');
  await tabTo(box);
  await userEvent.fill(box, text);
  await tabTo(button(target, 'Hand in these links'));
  await userEvent.keyboard('{Enter}');
  await vi.waitFor(() => expect(room.progress).toBeNull(), { timeout: 60_000 });
}
const statuses = (target: HTMLElement) => [...target.querySelectorAll('ol.report li')].map((li) => li.getAttribute('data-status'));
const fitsWidth = () => expect(must(document.scrollingElement).scrollWidth).toBeLessThanOrEqual(innerWidth);

describe.each([
  [390, 844],
  [1366, 768],
])('at %i × %i', (width, height) => {
  beforeAll(async () => {
    await page.viewport(width, height);
  });

  test('thirty result links pasted at once give the ranking thirty files give, the one worked out by hand', async () => {
    onTestFinished(clearMine);
    const games = await classGames(30, DAY);
    const links = await Promise.all(games.map(linkOf));
    const room = new ClassRoom();
    const target = await openClass(room);

    // As they come from a chat: one a line, some with words around them.
    await pasteAndHandIn(target, room, links.map((link, i) => (i % 3 === 0 ? `${games[i]?.run.name.split(':')[0]}: ${link} thanks!` : link)).join('\n'));
    expect(statuses(target)).toEqual(games.map(() => 'imported'));
    await chooseDay(target, room);
    expect(text(target.querySelector('[data-testid="hand-in-summary"]'))).toBe('30 handed in: 30 imported.');
    expect(text(target.querySelector('ol.report li'))).toContain('Student 01: human buys');
    await vi.waitFor(() => expect(room.data.games).toHaveLength(30), { timeout: 10_000 });
    expectRanking(room.data.ranking, games);
    const byLinks = shownRanking(target);
    expect(byLinks).toHaveLength(31);
    expect(byLinks.map((r) => r[1])).toEqual(expectedRanking(games).map((r) => r.name));
    expect(byLinks[0]?.[3]).toBe(pct(expectedRanking(games)[0]?.expectedShare ?? NaN, 1));
    fitsWidth();

    // The same thirty games as files, into a browser that has none of them.
    await clearMine();
    await room.load();
    expect(room.data.games).toHaveLength(0);
    const input = must(target.querySelector<HTMLInputElement>('input[type="file"][aria-label="Run files to hand in"]'));
    const picked = new DataTransfer();
    for (const g of games) picked.items.add(new File([g.file], `${g.run.id}.json`, { type: 'application/json' }));
    input.files = picked.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
    await vi.waitFor(() => expect(text(target.querySelector('[data-testid="hand-in-summary"]'))).toBe('30 handed in: 30 imported.'), { timeout: 60_000 });
    await vi.waitFor(() => expect(room.data.games).toHaveLength(30), { timeout: 10_000 });
    expectRanking(room.data.ranking, games);
    expect(shownRanking(target)).toEqual(byLinks);
  });

  test('the same game twice counts once, a forged bot move is refused, the teacher’s game is out until ticked in, the class list says who is missing', async () => {
    onTestFinished(clearMine);
    const games = await classGames(4, DAY + 3_600_000);
    const room = new ClassRoom();
    const target = await openClass(room);
    await pasteAndHandIn(target, room, (await Promise.all(games.map(linkOf))).join(' '));
    expect(statuses(target)).toEqual(['imported', 'imported', 'imported', 'imported']);
    await chooseDay(target, room);

    // The teacher's demo game, played in this browser on the same day (stored, not handed in).
    const demo = await studentGame('Ms Demo', 5, DAY + 3_600_000 + 60_000);
    const stored = await importRun(database(), demo.file, { now: DAY });
    if (!stored.ok) throw new Error(stored.error.message);
    await database().settings.delete(handInKey(stored.value.id));

    const first = given(games[0]);
    const renamed = { ...first, run: { ...first.run, id: 'another-id', name: 'Someone Else: human buys a thing from linear' } };
    const cut = (await linkOf(given(games[1]))).slice(0, -30);
    await pasteAndHandIn(target, room, [await linkOf(first), await linkOf(renamed), await linkOf(forgedBotMove(given(games[2]))), cut].join('\n'));
    expect(statuses(target)).toEqual(['duplicate', 'duplicate', 'tampered', 'malformed']);
    expect(text(target.querySelector('[data-testid="hand-in-summary"]'))).toBe('4 handed in: 2 duplicate, 1 tampered, 1 malformed.');
    const lines = [...target.querySelectorAll('ol.report li')].map((li) => text(li));
    expect(lines[0]).toContain('Already handed in: counted once link 1: “Student 01: human buys');
    expect(lines[1]).toContain('“Someone Else: human buys a thing from linear”');
    expect(lines[2]).toContain('Refused, tampered');
    expect(lines[2]).toContain('Student 03');
    expect(lines[2]).toContain('linear, the seller, would have offered');
    expect(lines[3]).toContain('Refused: cannot be read');

    // Four students and the bot; the demo game is listed, unticked, and ranks no one.
    await vi.waitFor(() => expect(room.entries.some((e) => e.game.runId === stored.value.id)).toBe(true), { timeout: 10_000 });
    expectRanking(room.data.ranking, games);
    expect(text(target.querySelector('[data-testid="class-summary"]'))).toBe('4 games, 5 players.');
    const demoBox = gameBox(target, `Ms Demo buys ${demo.row.scenario.item.name} from linear`);
    expect(text(demoBox.closest('li'))).toContain('played in this browser');
    expect(text(gameBox(target, 'Student 01 buys').closest('li'))).toContain('handed in');
    expect(demoBox.checked).toBe(false);
    await tabTo(demoBox);
    await userEvent.keyboard(' ');
    await vi.waitFor(() => expect(room.data.games).toHaveLength(5), { timeout: 10_000 });
    expectRanking(room.data.ranking, [...games, demo]);
    expect(text(target.querySelector('[data-testid="class-summary"]'))).toBe('5 games, 6 players.');
    await userEvent.keyboard(' ');
    await vi.waitFor(() => expect(room.data.games).toHaveLength(4), { timeout: 10_000 });

    // The class list, pasted: who has handed in and who has not, by name.
    const names = control<HTMLTextAreaElement>(target, 'Class list (one name a line; paste it from your register)');
    await tabTo(names);
    await userEvent.fill(names, 'Student 01\nstudent 02\nStudent 03\nStudent 04\nStudent 05\nGrace Hopper');
    await tabTo(button(target, 'Save the class list'));
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(room.settings.roster).toHaveLength(6), { timeout: 10_000 });
    const list = (id: string) => [...target.querySelectorAll(`[data-testid="${id}"] li`)].map((li) => text(li));
    expect(list('not-handed-in')).toEqual(['Student 05', 'Grace Hopper']);
    expect(list('handed-in')).toEqual(['Student 01', 'student 02', 'Student 03', 'Student 04']);
    expect(target.querySelector('[data-testid="unlisted"]')).toBeNull();
    // Kept for the next lesson: a new page reads the same list.
    const again = new ClassRoom();
    await again.load();
    expect(again.settings.roster).toEqual(['Student 01', 'student 02', 'Student 03', 'Student 04', 'Student 05', 'Grace Hopper']);
    await again.update({ roster: [], day: null });
    fitsWidth();
  });
});

describe('from the address bar', () => {
  test('a result link opened in this browser opens the Class page and hands its game in; the camera is offered where there is one', async () => {
    onTestFinished(clearMine);
    onTestFinished(() => {
      location.hash = '';
    });
    const game = await studentGame('Student 09', 8, DAY + 2 * 3_600_000);
    location.hash = new URL(await linkOf(game)).hash;
    const target = render(App, {});
    await vi.waitFor(() => expect(target.querySelector('ol.report li')?.getAttribute('data-status')).toBe('imported'), { timeout: 20_000 });
    expect(text(target.querySelector('ol.report li'))).toContain('the opened link: “Student 09: human buys');
    expect(text(target.querySelector('h1'))).toBe('Class');
    // This page is served from localhost, where Chromium gives a page the camera.
    button(target, 'Scan QR codes with the camera');
  });

  test('a QR code held up to the camera is handed in once, however many frames show it', async () => {
    onTestFinished(clearMine);
    const game = await studentGame('Student 10', 9, DAY + 2 * 3_600_000 + 60_000);
    const link = await linkOf(game);
    // The camera: a canvas with the student's code drawn on it, streamed as a camera would be.
    const { modules } = qrGrid(link);
    const scale = 6;
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = modules.length * scale;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d canvas');
    const draw = () => {
      context.fillStyle = '#fff';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.fillStyle = '#000';
      modules.forEach((row, y) => row.forEach((dark, x) => dark && context.fillRect(x * scale, y * scale, scale, scale)));
    };
    draw();
    const stream = canvas.captureStream(10);
    const frames = setInterval(draw, 100);
    const devices = navigator.mediaDevices;
    const getUserMedia = devices.getUserMedia.bind(devices);
    devices.getUserMedia = async () => stream;
    onTestFinished(() => {
      clearInterval(frames);
      devices.getUserMedia = getUserMedia;
    });

    const room = new ClassRoom();
    const target = await openClass(room);
    await tabTo(button(target, 'Scan QR codes with the camera'));
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(target.querySelector('ol.report li')?.getAttribute('data-status')).toBe('imported'), { timeout: 20_000 });
    expect(text(target.querySelector('ol.report li'))).toContain('scanned code 1: “Student 10: human buys');
    await vi.waitFor(() => expect(text(target.querySelector('.scanner [role="status"]'))).toBe("Hold each student's code up to the camera: 1 code read."));
    // Still in view for many more frames: still one game.
    await expect.poll(() => room.entries.filter((e) => e.game.runName.startsWith('Student 10:')).length, { timeout: 5_000 }).toBe(1);
    expect(statuses(target)).toEqual(['imported']);
    await userEvent.keyboard('{Enter}');
    expect(text(button(target, 'Scan QR codes with the camera'))).toBe('Scan QR codes with the camera');
    expect(stream.getTracks().every((t) => t.readyState === 'ended')).toBe(true);
  });
});

describe('by touch, on a phone', () => {
  test('links pasted, the teacher’s game ticked in and out, the class list saved, all by taps', async () => {
    await page.viewport(390, 844);
    onTestFinished(clearMine);
    const games = await classGames(3, DAY + 2 * 3_600_000 + 120_000);
    const demo = await studentGame('Ms Demo', 6, DAY + 2 * 3_600_000 + 300_000);
    const stored = await importRun(database(), demo.file, { now: DAY });
    if (!stored.ok) throw new Error(stored.error.message);
    await database().settings.delete(handInKey(stored.value.id));
    const room = new ClassRoom();
    const target = await openClass(room);

    await tap(control(target, 'Result links'));
    await insertText((await Promise.all(games.map(linkOf))).join('\n'));
    await tap(button(target, 'Hand in these links'));
    await vi.waitFor(() => expect(statuses(target)).toEqual(['imported', 'imported', 'imported']), { timeout: 20_000 });
    await chooseDay(target, room);
    await vi.waitFor(() => expect(room.data.games).toHaveLength(3), { timeout: 10_000 });
    expectRanking(room.data.ranking, games);

    const box = gameBox(target, 'Ms Demo buys');
    expect(box.checked).toBe(false);
    await tap(box);
    await vi.waitFor(() => expect(room.data.games).toHaveLength(4), { timeout: 10_000 });
    expectRanking(room.data.ranking, [...games, demo]);
    await tap(gameBox(target, 'Ms Demo buys'));
    await vi.waitFor(() => expect(room.data.games).toHaveLength(3), { timeout: 10_000 });

    await tap(control(target, 'Class list (one name a line; paste it from your register)'));
    await insertText('Student 01\nStudent 02\nStudent 03\nStudent 04');
    await tap(button(target, 'Save the class list'));
    await vi.waitFor(() => expect([...target.querySelectorAll('[data-testid="not-handed-in"] li')].map((li) => text(li))).toEqual(['Student 04']), {
      timeout: 10_000,
    });
    fitsWidth();
    await room.update({ roster: [], day: null });
  });
});

describe("the class's files", () => {
  /** The page's worker, the real one, with every message the page sends it noted on the way. */
  function recordedWorker(): ToWorker[] {
    const sent: ToWorker[] = [];
    useSim(
      new SimClient(() => {
        const worker = new Worker(new URL('../../src/worker/sim.worker.ts', import.meta.url), { type: 'module', name: 'parley-sim' });
        const post = worker.postMessage.bind(worker);
        worker.postMessage = (message: ToWorker) => {
          sent.push(message);
          post(message);
        };
        return worker;
      }),
    );
    onTestFinished(() => useSim(new SimClient()));
    return sent;
  }
  function downloads(): { name: string; href: string }[] {
    const saved: { name: string; href: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ name: this.download, href: this.href });
    });
    onTestFinished(() => click.mockRestore());
    return saved;
  }

  test('are built by the worker from the class the page shows: the CSVs the page itself wrote before, and the JSON', async () => {
    const db = freshDb();
    await storeHandMadeGames(db);
    const sent = recordedWorker();
    const room = new ClassRoom(() => db);
    const target = await openClass(room);
    // Games played in this browser, not handed in: the teacher counts them all.
    await userEvent.click(control(target, 'Every Arena game in this browser, yours too'));
    await vi.waitFor(() => expect(room.data.games).toHaveLength(HAND_MADE_GAMES.length), { timeout: 10_000 });
    const shown = classExport(HAND_MADE_GAMES);
    expect(room.data).toEqual(shown);

    const saved = downloads();
    const fetched = async (i: number) => (await fetch(given(saved[i], 'the download').href)).text();
    await userEvent.click(button(target, 'Games (CSV)'));
    await expect.poll(() => saved.length).toBe(1);
    expect(saved[0]?.name).toMatch(/^parley-class-games-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(await fetched(0)).toBe(CLASS_GAMES_CSV);
    await userEvent.click(button(target, 'Ranking (CSV)'));
    await expect.poll(() => saved.length).toBe(2);
    expect(saved[1]?.name).toMatch(/^parley-class-ranking-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(await fetched(1)).toBe(CLASS_RANKING_CSV);
    await userEvent.click(button(target, 'Export the class (JSON)'));
    await expect.poll(() => saved.length).toBe(3);
    expect(saved[2]?.name).toMatch(/^parley-class-\d{4}-\d{2}-\d{2}\.json$/);
    expect(await fetched(2)).toBe(JSON.stringify(shown, null, 2));

    // Each file was the worker's answer to the class as the page showed it.
    const asked = sent.flatMap((m) => (m.type === 'class.file' ? [m] : []));
    expect(asked.map((m) => m.file)).toEqual(['games', 'ranking', 'json']);
    for (const m of asked) expect(m.data).toEqual(shown);
    expect(target.querySelector('[role="alert"]')).toBeNull();
  });
});
