/** What each table of a database holds: its rows, by table name. */
export type Rows = Record<string, Record<string, unknown>[]>;

/**
 * Writes database `name` as version 5 of the app left it (market runs in tables of their own),
 * holding `rows`, with the raw IndexedDB API, and returns the version it opened at (Dexie stores
 * version n as n × 10, so 50). It refers to nothing outside its own body, so a page can run it as
 * it is: `page.evaluate(writeRawV5, { name, rows })`.
 */
export async function writeRawV5({ name, rows }: { name: string; rows: Rows }): Promise<number> {
  const open = indexedDB.open(name, 50);
  open.onupgradeneeded = () => {
    const db = open.result;
    db.createObjectStore('runs', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
    db.createObjectStore('settings', { keyPath: 'key' });
    db.createObjectStore('digests', { keyPath: 'id' }).createIndex('[runId+first]', ['runId', 'first']);
    db.createObjectStore('keys', { keyPath: 'provider' });
    db.createObjectStore('batches', { keyPath: 'id' }).createIndex('[runId+first]', ['runId', 'first']);
    db.createObjectStore('marketRuns', { keyPath: 'id' }).createIndex('createdAt', 'createdAt');
    db.createObjectStore('marketBatches', { keyPath: 'id' }).createIndex('[runId+first]', ['runId', 'first']);
    const tx = open.transaction!;
    for (const [table, list] of Object.entries(rows)) for (const row of list) tx.objectStore(table).put(row);
  };
  const db: IDBDatabase = await new Promise((resolve, reject) => {
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  const version = db.version;
  db.close();
  return version;
}
