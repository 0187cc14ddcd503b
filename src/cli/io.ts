/** What a command may touch: its output streams, the clock, the environment and a stop signal. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /**
   * Wall-clock milliseconds since the epoch: for progress lines and the dates of a `--jsonl` run,
   * never in what is printed.
   */
  now: () => number;
  /** Environment variables: where remote models' keys come from. */
  env?: Record<string, string | undefined>;
  /** Aborted to stop early (Ctrl-C): a tournament then reports, and writes, what had finished. */
  signal?: AbortSignal;
}

/** The exit status of a command stopped through `Io.signal`, as a shell reports an interrupted one. */
export const EXIT_INTERRUPTED = 130;
