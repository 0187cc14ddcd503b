/**
 * Result links (storage/result-link.ts): a finished Arena game in a URL fragment, read back into
 * the run file it stands for and checked by readRunFile as a file is.
 */
import { describe, expect, it } from 'vitest';
import { readRunFile } from '../../src/storage/run-file';
import { contentKey } from '../../src/storage/content';
import { HAND_IN_PATH, MAX_INFLATED_BYTES, MAX_PAYLOAD_CHARS, linkGame, payloadsIn, readResultPayload, resultPayload } from '../../src/storage/result-link';
import { classGames, forgedBotMove, studentGame } from '../support/class-games';

const payloadOf = async (g: Awaited<ReturnType<typeof studentGame>>) => resultPayload(linkGame(g.run, g.row)!);

describe('a result link', () => {
  it('reads back into a run file that passes the file check and holds the same game', async () => {
    const game = await studentGame('Ada Lovelace', 3, 1_760_000_000_000);
    const read = await readResultPayload(await payloadOf(game));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.name).toBe(game.run.name);
    const checked = readRunFile(read.value.text);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value.run).toEqual(game.run);
    expect(contentKey(checked.value.run, checked.value.rows)).toBe(contentKey(game.run, [game.row]));
  });

  it('is a fragment of base64url characters, a few hundred of them for a lesson game', async () => {
    const games = await classGames(14);
    const lengths = await Promise.all(games.map(async (g) => (await payloadOf(g)).length));
    for (const payload of await Promise.all(games.map(payloadOf))) expect(payload).toMatch(/^[A-Za-z0-9_-]+$/);
    // A file of the same game is three to four times as long.
    for (const [i, g] of games.entries()) expect(lengths[i]).toBeLessThan(g.file.length / 2.5);
    expect(Math.max(...lengths)).toBeLessThan(1200);
  });

  it('keeps the model settings of a game stored without them, and leaves out the defaults', async () => {
    const game = await studentGame('Bo', 1, 5);
    const { llm: _dropped, ...config } = game.run.config as Extract<typeof game.run.config, { kind: 'arena' }>;
    const legacy = { ...game, run: { ...game.run, config } };
    expect(linkGame(game.run, game.row)).not.toHaveProperty('llm');
    const read = await readResultPayload(await payloadOf(legacy));
    const checked = read.ok ? readRunFile(read.value.text) : null;
    expect(checked?.ok && checked.value.run.config).toEqual(config);
  });

  it('with a bot move changed is refused as tampered, as the file is', async () => {
    const forged = forgedBotMove(await studentGame('Cy', 2, 7));
    expect(readRunFile(forged.file)).toMatchObject({ ok: false, error: { kind: 'tampered' } });
    const read = await readResultPayload(await payloadOf(forged));
    expect(read.ok && readRunFile(read.value.text)).toMatchObject({
      ok: false,
      error: { kind: 'tampered', message: expect.stringContaining('linear, the seller, would have offered') },
    });
  });

  it('cut short, mistyped, or not one at all, is refused with a reason, never thrown', async () => {
    const payload = await payloadOf(await studentGame('Di', 4, 9));
    for (const bad of [
      payload.slice(0, payload.length - 40),
      payload.slice(0, 1),
      `${payload.slice(0, 10)}!${payload.slice(11)}`,
      'AAAA',
      btoaUrl('{"hello":1}'),
    ])
      expect(await readResultPayload(bad)).toMatchObject({ ok: false, error: { kind: expect.stringMatching(/^(invalid-file|too-large)$/) } });
    expect(await readResultPayload('A'.repeat(MAX_PAYLOAD_CHARS + 1))).toMatchObject({ ok: false, error: { kind: 'too-large' } });
  });

  it('that unpacks past its limit (a deflate bomb) is refused by size, before it is parsed', async () => {
    // 5 MB of one character deflates to a few kB: a short link that would unpack to far more.
    const bomb = new Uint8Array(5 * 1024 * 1024).fill(0x20);
    const deflated = new Uint8Array(await new Response(new Blob([bomb]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer());
    const payload = Buffer.from(deflated).toString('base64url');
    expect(payload.length).toBeLessThan(MAX_PAYLOAD_CHARS);
    expect(await readResultPayload(payload)).toEqual({
      ok: false,
      error: { kind: 'too-large', message: `the link unpacks to more than ${MAX_INFLATED_BYTES / 2 ** 20} MB` },
    });
  });

  it('from a newer Parley says so', async () => {
    const game = await studentGame('Ed', 5, 11);
    const payload = await resultPayload({ ...linkGame(game.run, game.row)!, v: 2 });
    expect(await readResultPayload(payload)).toMatchObject({ ok: false, error: { kind: 'wrong-version' } });
  });

  it('is found in pasted text: one a line, or among other words', () => {
    const text = `Ada https://school.example/parley/${HAND_IN_PATH}abc-_9\nhttps://x.example/${HAND_IN_PATH}DEF and more ${HAND_IN_PATH}g`;
    expect(payloadsIn(text)).toEqual(['abc-_9', 'DEF', 'g']);
    expect(payloadsIn('no links here #/arena?you=buyer')).toEqual([]);
  });
});

function btoaUrl(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
