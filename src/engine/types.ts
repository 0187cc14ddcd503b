/**
 * Whether two types describe the same values (each assignable to the other): `const same:
 * Same<z.infer<typeof Schema>, CoreType> = true` fails to compile when a schema and the type it
 * stands for drift apart.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
