/** Prices are dollars; every game rounds them the same way. */
export const roundCents = (price: number): number => Math.round(price * 100) / 100;
