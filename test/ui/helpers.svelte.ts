/** Mounting components for the browser tests, with reactive props and real core inputs. */
import { flushSync, mount, unmount } from 'svelte';
import { Aggregator, type Standings } from '../../src/games/bilateral/aggregate';
import { playNegotiation, type BilateralAgent } from '../../src/games/bilateral/tournament';
import { makeAgent } from '../../src/games/bilateral/registry';
import { createRng } from '../../src/engine/rng';
import type { Role, Scenario } from '../../src/games/bilateral/scenario';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

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

export const agent = (spec: string, role: Role, seed = 1): BilateralAgent => makeAgent(spec, role, { rng: createRng(seed), jobId: 'ui-test', seed });

export const play = (scenario: Scenario, buyer: BilateralAgent, seller: BilateralAgent) => playNegotiation(scenario, { buyer, seller });

/** A small round-robin through the real tournament runner and aggregator. */
export async function standings(agents: string[], scenariosPerPair = 8): Promise<Standings> {
  const aggregator = new Aggregator();
  await runTournament(bilateralGame, { agents, scenariosPerPair, preset: 'standard', seed: 7, selfPlay: false }, makeAgent, {
    onResult: (r) => aggregator.add(r.buyer, r.seller, r.scenario, r.metrics),
  });
  return aggregator.standings({ samples: 200 });
}

/** Text with runs of whitespace collapsed, as a reader sees it. */
export const text = (el: Element | null | undefined): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

export function must<T extends Element>(el: T | null | undefined, what = 'element'): T {
  if (!el) throw new Error(`${what} not found`);
  return el;
}

/** The control labelled `name` (by its <label for> or an enclosing <label>), its text's whitespace collapsed as the page shows it. */
export function control<T extends HTMLElement>(target: HTMLElement, name: string): T {
  for (const label of target.querySelectorAll('label')) {
    const own = [...label.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent)
      .join('');
    if (own.replace(/\s+/g, ' ').trim() === name && label.control) return label.control as T;
  }
  throw new Error(`no control labelled ${name}`);
}

/** Props whose bindable field is recorded on every write, like a parent's bind:. */
export function bound<K extends string, V>(key: K, initial: V, rest: object = {}) {
  const writes: V[] = [];
  let value = initial;
  const props = {
    ...rest,
    get [key]() {
      return value;
    },
    set [key](next: V) {
      value = next;
      writes.push(next);
    },
  } as Record<K, V>;
  return { props, writes, get: () => value };
}
