/** Seeded randomness. The core never calls Math.random(); every draw comes from an Rng passed in. */
import { z } from 'zod';

/** The largest seed: a seed is an unsigned 32-bit word (the generator reads `seed >>> 0`). */
export const MAX_SEED = 2 ** 32 - 1;
/** A seed as every schema, page, share link and command reads it: a whole number from 0 to MAX_SEED. */
export const SeedSchema = z.int().min(0).max(MAX_SEED);
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** Integer uniform in [0, n). */
  int(n: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/** 32-bit string hash (FNV-1a followed by a murmur finaliser) for deriving seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A seed for an independent stream, derived from a base seed and labels (order-independent of play). */
export function deriveSeed(base: number, ...labels: (string | number)[]): number {
  return hashString(`${base}|${labels.join('|')}`);
}

/** sfc32: small, fast and statistically sound; state seeded through splitmix32. */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      words.push((z ^ (z >>> 16)) >>> 0);
    }
    [this.a, this.b, this.c, this.d] = words as [number, number, number, number];
    for (let i = 0; i < 12; i++) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

export function createRng(seed: number): Rng {
  return new Sfc32(seed);
}
