export * from './stratbox-error.js';
