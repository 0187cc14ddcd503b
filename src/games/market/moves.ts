import { z } from 'zod';
import { MessageSchema } from '../../engine/message';

/** The seller's four-part message: which buyer, which product, what price, and a pitch. */
export const SellerMoveSchema = z.object({
  buyer: z.string().max(100),
  product: z.string().max(100),
  price: z.number(),
  message: MessageSchema,
});
export type SellerMove = z.infer<typeof SellerMoveSchema>;

export const ResponseSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('accept') }),
  z.object({ type: z.literal('reject') }),
  z.object({ type: z.literal('counter'), price: z.number() }),
]);
export type Response = z.infer<typeof ResponseSchema>;
export type ResponseType = Response['type'];
export const RESPONSE_TYPES: readonly ResponseType[] = ResponseSchema.options.map((o) => o.shape.type.value);

/** The addressed buyer's answer to the offer in front of it, with an optional message. */
export const BuyerMoveSchema = z.object({
  response: ResponseSchema,
  message: MessageSchema.optional(),
});
export type BuyerMove = z.infer<typeof BuyerMoveSchema>;

export const MarketMoveSchema = z.union([SellerMoveSchema, BuyerMoveSchema]);
export type MarketMove = SellerMove | BuyerMove;

export const MARKET_ROLES = ['seller', 'buyer'] as const;
export const MarketRoleSchema = z.enum(MARKET_ROLES);
/** The two seats: the seller, and the buyer pool (one agent answers for whichever buyer is addressed). */
export type MarketRole = z.infer<typeof MarketRoleSchema>;

export const sellerMove = (buyer: string, product: string, price: number, message = ''): SellerMove => ({ buyer, product, price, message });
export const ACCEPT_OFFER: BuyerMove = { response: { type: 'accept' } };
export const REJECT_OFFER: BuyerMove = { response: { type: 'reject' } };
export const counterOffer = (price: number, message?: string): BuyerMove =>
  message === undefined ? { response: { type: 'counter', price } } : { response: { type: 'counter', price }, message };
