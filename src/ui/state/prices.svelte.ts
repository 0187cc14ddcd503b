import type { Price } from '../../engine/cost';
import type { ParleyDb } from '../../storage/db';
import { deletePrice, getPrices, putPrice } from '../../storage/prices';
import { database } from './sim';

/** The user's prices per model spec, read from IndexedDB; changes are written straight back. */
export class PriceBook {
  prices = $state.raw<ReadonlyMap<string, Price>>(new Map());
  /** Why the prices could not be read or written, if they could not. */
  error = $state<string | null>(null);

  constructor(private readonly db: () => ParleyDb = database) {}

  async load(): Promise<void> {
    try {
      this.prices = await getPrices(this.db());
      this.error = null;
    } catch {
      this.error = 'The prices could not be read from this browser’s storage.';
    }
  }

  /** Stores a price; false (with `error` set) when storage refused it, and nothing changes. */
  async set(spec: string, price: Price): Promise<boolean> {
    try {
      await putPrice(this.db(), spec, price);
    } catch {
      this.error = 'The price could not be saved in this browser’s storage.';
      return false;
    }
    this.prices = new Map(this.prices).set(spec, price);
    this.error = null;
    return true;
  }

  async remove(spec: string): Promise<boolean> {
    try {
      await deletePrice(this.db(), spec);
    } catch {
      this.error = 'The price could not be deleted from this browser’s storage.';
      return false;
    }
    const next = new Map(this.prices);
    next.delete(spec);
    this.prices = next;
    this.error = null;
    return true;
  }
}
