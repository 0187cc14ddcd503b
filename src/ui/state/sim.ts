import { randomId } from '../../engine/id';
import { SimClient } from '../../worker/client';
import { openDb, type ParleyDb } from '../../storage';

let client: SimClient | null = null;
let db: ParleyDb | null = null;

/** The one simulation worker of this page, started on first use. */
export function sim(): SimClient {
  client ??= new SimClient();
  return client;
}

/** Puts `next` in place of the page's worker client, ending the one there was (tests: a client on a fake clock). */
export function useSim(next: SimClient): void {
  if (client !== next) client?.terminate();
  client = next;
}

/** The page's read side of the database (the worker writes). */
export function database(): ParleyDb {
  db ??= openDb();
  return db;
}

export const newId = (): string => randomId();
