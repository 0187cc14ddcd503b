/** Mounting components for the browser tests, with reactive props and real core inputs. */
import { flushSync, mount, unmount } from 'svelte';
import { Aggregator, type Standings } from '../../src/core/bilateral/aggregate';
import { playNegotiation, runTournament, type BilateralAgent } from '../../src/core/bilateral/tournament';
import { makeAgent } from '../../src/agents/registry';
import { createRng } from '../../src/core/rng';
import type { Role, Scenario } from '../../src/core/scenario';

/** A deeply reactive props object: changing it (or pushing to its arrays) updates the mounted component. */
export function reactive<T extends object>(initial: T): T {
  const state = $state(initial);
  return state;
}

const mounted: (() => void)[] = [];

// mount() is typed differently by tsc (legacy component type) and svelte-check; the tests pass props only.
type AnyComponent = any;

/** Mounts into a fresh div on document.body; `cleanup()` unmounts everything mounted so far. */
export function render(component: AnyComponent, props: object): HTMLDivElement {
  const target = document.createElement('div');
  document.body.append(target);
  const instance = mount(component, { target, props });
  flushSync();
  mounted.push(() => {
    void unmount(instance);
    target.remove();
  });
  return target;
}

export function cleanup(): void {
  for (const undo of mounted.splice(0)) undo();
}

export const agent = (spec: string, role: Role, seed = 1): BilateralAgent =>
  makeAgent(spec, role, { rng: createRng(seed), negotiationId: 'ui-test' });

export const play = (scenario: Scenario, buyer: BilateralAgent, seller: BilateralAgent) =>
  playNegotiation(scenario, { buyer, seller });

/** A small round-robin through the real tournament runner and aggregator. */
export async function standings(agents: string[], scenariosPerPair = 8): Promise<Standings> {
  const aggregator = new Aggregator();
  await runTournament({ agents, scenariosPerPair, preset: 'standard', seed: 7, selfPlay: false }, makeAgent, {
    onResult: (r) => aggregator.add(r.buyer, r.seller, r.scenario.tier, r.metrics),
  });
  return aggregator.standings({ samples: 200 });
}

/** Text with runs of whitespace collapsed, as a reader sees it. */
export const text = (el: Element | null | undefined): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

export function must<T extends Element>(el: T | null | undefined, what = 'element'): T {
  if (!el) throw new Error(`${what} not found`);
  return el;
}
