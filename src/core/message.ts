/** The free text a move may carry, the same in every game. */
import { z } from 'zod';

/** The longest message a move may carry, in characters. */
export const MAX_MESSAGE_LENGTH = 600;

export const MessageSchema = z.string().max(MAX_MESSAGE_LENGTH);

/** Why a protocol refuses a message for its length, or null when it fits. */
export const messageTooLong = (message: string): string | null =>
  message.length > MAX_MESSAGE_LENGTH ? `message is ${message.length} characters; the limit is ${MAX_MESSAGE_LENGTH}` : null;
