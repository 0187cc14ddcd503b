/** The item catalog that ships with Parley: everyday goods from a few dollars to a few thousand. */
export interface CatalogItem {
  readonly id: string;
  readonly name: string;
  readonly category: string;
  readonly listPrice: number;
}

const rows: readonly [string, string, number][] = [
  // [name, category, list price in dollars]
  ['Ballpoint pens (10-pack)', 'office', 4.99],
  ['Sticky notes', 'office', 6.49],
  ['Spiral notebook', 'office', 3.99],
  ['Desk lamp', 'office', 34.0],
  ['Ergonomic office chair', 'office', 329.0],
  ['Standing desk', 'office', 549.0],
  ['Laser printer', 'office', 219.0],
  ['Paperback novel', 'books', 12.99],
  ['Hardcover cookbook', 'books', 29.95],
  ['Illustrated atlas', 'books', 45.0],
  ['Vinyl record', 'music', 24.99],
  ['Acoustic guitar', 'music', 289.0],
  ['Digital piano', 'music', 749.0],
  ['Studio headphones', 'music', 149.0],
  ['Coffee beans (1 kg)', 'groceries', 21.5],
  ['Olive oil (1 l)', 'groceries', 14.75],
  ['Box of chocolates', 'groceries', 18.0],
  ['Bottle of wine', 'groceries', 27.0],
  ['Chef knife', 'kitchen', 89.0],
  ['Cast-iron skillet', 'kitchen', 39.99],
  ['Espresso machine', 'kitchen', 649.0],
  ['Blender', 'kitchen', 79.0],
  ['Stand mixer', 'kitchen', 429.0],
  ['Toaster', 'kitchen', 45.0],
  ['Ceramic mug', 'kitchen', 9.5],
  ['Smartphone', 'electronics', 899.0],
  ['Laptop', 'electronics', 1299.0],
  ['Tablet', 'electronics', 499.0],
  ['4K television', 'electronics', 1099.0],
  ['Wireless earbuds', 'electronics', 179.0],
  ['USB-C cable', 'electronics', 11.99],
  ['Mechanical keyboard', 'electronics', 129.0],
  ['Computer monitor', 'electronics', 359.0],
  ['Mirrorless camera', 'electronics', 1899.0],
  ['Game console', 'electronics', 499.0],
  ['Smartwatch', 'electronics', 399.0],
  ['Sofa', 'furniture', 1499.0],
  ['Dining table', 'furniture', 899.0],
  ['Bookshelf', 'furniture', 149.0],
  ['Queen mattress', 'furniture', 1199.0],
  ['Floor lamp', 'furniture', 69.0],
  ['Area rug', 'furniture', 259.0],
  ['Running shoes', 'clothing', 129.0],
  ['Winter coat', 'clothing', 249.0],
  ['Cotton T-shirt', 'clothing', 15.0],
  ['Leather belt', 'clothing', 39.0],
  ['Wool socks (3 pairs)', 'clothing', 19.99],
  ['Designer handbag', 'clothing', 1850.0],
  ['Mountain bike', 'sports', 1249.0],
  ['Yoga mat', 'sports', 29.0],
  ['Tennis racket', 'sports', 189.0],
  ['Camping tent', 'sports', 299.0],
  ['Kayak', 'sports', 849.0],
  ['Dumbbell set', 'sports', 119.0],
  ['Cordless drill', 'tools', 149.0],
  ['Socket wrench set', 'tools', 79.0],
  ['Lawn mower', 'tools', 449.0],
  ['Tape measure', 'tools', 12.0],
  ['Pressure washer', 'tools', 279.0],
  ['Houseplant', 'home', 24.0],
  ['Scented candle', 'home', 16.0],
  ['Bath towel set', 'home', 49.0],
  ['Robot vacuum', 'home', 399.0],
  ['Air purifier', 'home', 229.0],
  ['Board game', 'toys', 44.99],
  ['Building-block set', 'toys', 99.99],
  ['Jigsaw puzzle', 'toys', 19.99],
  ['Used hatchback car', 'vehicles', 4800.0],
  ['Electric scooter', 'vehicles', 699.0],
  ['Motorcycle helmet', 'vehicles', 219.0],
  ['Antique clock', 'collectibles', 1150.0],
  ['Signed baseball', 'collectibles', 350.0],
  ['Oil painting', 'collectibles', 2400.0],
  ['Diamond ring', 'jewelry', 3200.0],
  ['Silver necklace', 'jewelry', 120.0],
];

export const CATALOG: readonly CatalogItem[] = rows.map(([name, category, listPrice]) => ({
  id: name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/(^-|-$)/g, ''),
  name,
  category,
  listPrice,
}));

/** Quintile boundaries of list price over the catalog: tier k covers (bound[k-2], bound[k-1]]. */
export const TIER_BOUNDS: readonly number[] = (() => {
  const prices = CATALOG.map((i) => i.listPrice).sort((a, b) => a - b);
  return [1, 2, 3, 4].map((q) => prices[Math.ceil((q * prices.length) / 5) - 1] as number);
})();

export type Tier = 1 | 2 | 3 | 4 | 5;
export const TIERS: readonly Tier[] = [1, 2, 3, 4, 5];

/** Price tier (1 cheapest … 5 dearest) of any list price, by the catalog's quintiles. */
export function tierOf(listPrice: number): Tier {
  let tier = 1;
  for (const bound of TIER_BOUNDS) if (listPrice > bound) tier++;
  return tier as Tier;
}
