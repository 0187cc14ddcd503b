/** The free text a move may carry, the same in every game. */
import { z } from 'zod';

/** The longest message a move may carry, in characters. */
export const MAX_MESSAGE_LENGTH = 600;

export const MessageSchema = z.string().max(MAX_MESSAGE_LENGTH);
