/**
 * How the command line writes a file: whole or not at all. Text goes to a temporary file beside
 * the destination, unique to this process and this call and created exclusively (so two commands
 * writing one path never share it), which is renamed over the destination at the end and removed
 * on failure. Of two commands writing one path, the last to finish wins, with a complete file.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Where a path really leads: symlinks and `.`/`..` resolved, relative to the working folder. A path
 * that does not exist yet is its folder's real path and its own name (or as given when the folder
 * does not exist either).
 */
export async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const folder = dirname(resolve(path));
    return join(await realpath(folder).catch(() => folder), basename(path));
  }
}

/**
 * Whether two paths name one file: the same device and inode where both exist (hard links and a
 * case-insensitive disk's spellings included), else the same real path.
 */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([stat(a).catch(() => null), stat(b).catch(() => null)]);
  if (x && y) return x.dev === y.dev && x.ino === y.ino;
  return (await realPathOf(a)) === (await realPathOf(b));
}

/** Where a file for `path` goes: its real path, which must not be a folder (a rename could not replace it). */
async function destinationOf(path: string): Promise<string> {
  const destination = await realPathOf(path);
  const info = await stat(destination).catch(() => null);
  if (info?.isDirectory()) throw Object.assign(new Error(`EISDIR: ${path} is a folder`), { code: 'EISDIR' });
  return destination;
}

/** A new file beside `path` that no other process or call can have opened: `PATH.PID-RANDOM.SUFFIX`. */
async function createTemporary(path: string, suffix: string): Promise<{ path: string; handle: FileHandle }> {
  const temporary = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.${suffix}`;
  return { path: temporary, handle: await open(temporary, 'wx') };
}

/** A file written whole: `write` as often as needed, then `commit` (moves it into place) or `abandon`. */
export class OutputFile {
  private closed = false;

  private constructor(
    /** The destination, its symlinks resolved: writing through a link replaces what it points to and keeps the link. */
    readonly path: string,
    private readonly temporary: string,
    private readonly handle: FileHandle,
  ) {}

  /** Creates the temporary file; fails at once when the folder cannot be written. */
  static async open(path: string): Promise<OutputFile> {
    const destination = await destinationOf(path);
    const { path: temporary, handle } = await createTemporary(destination, 'tmp');
    return new OutputFile(destination, temporary, handle);
  }

  async write(text: string): Promise<void> {
    await this.handle.writeFile(text);
  }

  /** Appends another file's bytes. */
  async append(source: string): Promise<void> {
    for await (const chunk of createReadStream(source)) await this.handle.writeFile(chunk as Buffer);
  }

  /** Moves the whole file into place. */
  async commit(): Promise<void> {
    await this.close();
    await rename(this.temporary, this.path);
  }

  /** Removes the temporary file; the destination is left as it was. */
  async abandon(): Promise<void> {
    await this.close().catch(() => undefined);
    await rm(this.temporary, { force: true });
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/**
 * A JSONL file whose first line is known only at the end (a run's header holds its final count):
 * lines stream to a side file as they come, and `finish(head)` writes the head, appends them and
 * moves the whole into place. Both temporary files are this call's own.
 */
export class HeadedJsonlFile {
  private buffer: string[] = [];
  private buffered = 0;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly rowsPath: string,
    private readonly rows: FileHandle,
    private readonly flushAt: number,
  ) {}

  static async open(path: string, flushAt = 1 << 20): Promise<HeadedJsonlFile> {
    const destination = await destinationOf(path);
    const { path: rowsPath, handle } = await createTemporary(destination, 'rows.tmp');
    return new HeadedJsonlFile(destination, rowsPath, handle, flushAt);
  }

  /** Adds one line (ended by its own newline); written once about `flushAt` characters are held. */
  async add(line: string): Promise<void> {
    this.buffer.push(line);
    this.buffered += line.length;
    if (this.buffered >= this.flushAt) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.buffered = 0;
    await this.rows.writeFile(text);
  }

  /** Writes `head` (a line), then the lines added, and moves the whole into place; on failure, removes both temporary files. */
  async finish(head: string): Promise<void> {
    let out: OutputFile | null = null;
    try {
      await this.flush();
      await this.closeRows();
      out = await OutputFile.open(this.path);
      await out.write(head);
      await out.append(this.rowsPath);
      await out.commit();
    } catch (e) {
      await out?.abandon();
      throw e;
    } finally {
      await rm(this.rowsPath, { force: true });
    }
  }

  /** Removes the temporary files after a failure; the destination is left as it was. */
  async abandon(): Promise<void> {
    await this.closeRows().catch(() => undefined);
    await rm(this.rowsPath, { force: true });
  }

  private async closeRows(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.rows.close();
  }
}
