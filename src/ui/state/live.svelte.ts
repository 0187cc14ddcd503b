import { liveQuery } from 'dexie';

/**
 * A stored read that follows the database, as rune values. Dexie's `liveQuery` runs `read` again
 * whenever a range of a table it read is written (in this tab, in another tab, or by the worker),
 * and from scratch when the reactive `inputs` change; the subscription for inputs since replaced is
 * closed, so a late answer to them is dropped. Create it while a component is set up: it is
 * subscribed while the component lives and closed when it goes.
 *
 * `read` may call Dexie and any function that does; another asynchronous API must be wrapped in
 * `Promise.resolve(...)`, or Dexie loses track of the reads after it.
 */
export class LiveRead<I, T> {
  #value = $state.raw<T | undefined>(undefined);
  #error = $state<string | null>(null);
  #settled = $state(false);

  constructor(inputs: () => I, read: (inputs: I) => Promise<T>) {
    $effect(() => {
      const given = inputs();
      // A read that throws answers its message instead, so that the subscription stays on what it
      // had read: the next write there (a damaged record mended or deleted) reads again.
      const answers = liveQuery(async (): Promise<{ value: T } | { error: string }> => {
        try {
          return { value: await read(given) };
        } catch (e) {
          return { error: e instanceof Error ? e.message : String(e) };
        }
      });
      const subscription = answers.subscribe((answer) => {
        if ('value' in answer) this.#value = answer.value;
        this.#error = 'error' in answer ? answer.error : null;
        this.#settled = true;
      });
      return () => subscription.unsubscribe();
    });
  }

  /** The latest answer read: undefined until the first; kept when a later read fails, or until one for new inputs comes. */
  get current(): T | undefined {
    return this.#value;
  }

  /** Whether a first answer has come (a value or an error): until then a page says "Loading…". */
  get settled(): boolean {
    return this.#settled;
  }

  /** Why the latest read failed, or null. */
  get error(): string | null {
    return this.#error;
  }
}
