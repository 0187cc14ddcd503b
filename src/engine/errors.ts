/**
 * Expected failures as values, as zod's issues are: a stable `code` names what went wrong, `data`
 * holds the facts it is about, and the English is derived from both by one table of message
 * functions per area. Code branches on the code and tests assert it; only people read the message.
 * The codes of every area are listed in docs/errors.md.
 */
export interface Problem<C extends string = string, D = unknown> {
  readonly code: C;
  readonly data: D;
  /** The table's English for this code and data. */
  readonly message: string;
}

/** What a code's message reads from: a function of no data, or of one object. */
type MessageFn = ((data: never) => string) | (() => string);

/** The English for each code, from its data: the one place a failure is put into words. */
export type MessageTable = Readonly<Record<string, MessageFn>>;

export type CodeOf<T extends MessageTable> = keyof T & string;

/** The data a code carries: its message function's argument (an empty object for a message without one). */
export type DataOf<T extends MessageTable, C extends CodeOf<T>> = T[C] extends () => string
  ? Record<string, never>
  : T[C] extends (data: infer D) => string
    ? D
    : never;

/** The arguments after the code: none for a code without data. */
export type DataArgs<T extends MessageTable, C extends CodeOf<T>> = T[C] extends () => string ? [] : [data: DataOf<T, C>];

/** Every problem a table makes: a union discriminated by `code`. */
export type ProblemOf<T extends MessageTable> = { [C in CodeOf<T>]: Problem<C, DataOf<T, C>> }[CodeOf<T>];

/** The maker of one table's problems: `problem('price-below-minimum', { field, price, min })`. */
export function problems<T extends MessageTable>(messages: T) {
  return <C extends CodeOf<T>>(code: C, ...args: DataArgs<T, C>): Problem<C, DataOf<T, C>> => {
    const data = (args.length === 0 ? {} : args[0]) as DataOf<T, C>;
    return { code, data, message: (messages[code] as (data: DataOf<T, C>) => string)(data) };
  };
}
