/** The multi-product market game: scenarios, protocol, events, metrics, matching, tournaments and its GameDef. */
export * from './scenario';
export * from './moves';
export * from './protocol';
export * from './events';
export * from './matching';
export * from './metrics';
export * from './tournament';
export * from './aggregate';
export * from './replay';
export * from './game';
