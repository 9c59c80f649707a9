export * from './store.js';
export * from './clock.js';
export * from './logger.js';
export * from './authenticator.js';
export * from './secret-box.js';
export * from './exchange-gateway.js';
export * from './rate-limiter.js';
export * from './strategy-runner.js';
