import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runTournament } from '../../src/core/bilateral/tournament';
import { PRESETS, type Deadline } from '../../src/core/scenario';
import { makeAgent, STRATEGY_NAMES } from '../../src/agents/registry';

/**
 * The engine may be made faster, never different: the event logs of a fixed set of tournaments
 * (every strategy, random included, every preset, both deadline kinds, both first movers) must hash
 * to the fingerprints recorded in event-log-fingerprints.json. A deliberate change to the protocol or
 * a strategy re-records them with `PARLEY_RECORD_FINGERPRINTS=1 npx vitest run <this file>`, and says so
 * in its commit.
 */
const FILE = new URL('./event-log-fingerprints.json', import.meta.url);
const DEADLINES: Record<string, Deadline> = {
  fixed: { kind: 'fixed', turns: 20 },
  uncertain: { kind: 'uncertain', min: 16, max: 24 },
};

async function fingerprint(preset: (typeof PRESETS)[number], deadline: Deadline): Promise<string> {
  const hash = createHash('sha256');
  await runTournament(
    { agents: [...STRATEGY_NAMES], scenariosPerPair: 4, preset, seed: 11, selfPlay: true, deadline },
    makeAgent,
    { onResult: (r) => void hash.update(`${r.id}\n${JSON.stringify(r.events)}\n`) },
  );
  return hash.digest('hex');
}

describe('event logs stay byte-identical', () => {
  it('hashes to the recorded fingerprints for every preset and deadline', async () => {
    const now: Record<string, string> = {};
    for (const preset of PRESETS)
      for (const [name, deadline] of Object.entries(DEADLINES)) now[`${preset}/${name}`] = await fingerprint(preset, deadline);
    if (process.env.PARLEY_RECORD_FINGERPRINTS === '1') writeFileSync(FILE, JSON.stringify(now, null, 2) + '\n');
    const recorded = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string>;
    expect(now).toEqual(recorded);
  });
});
