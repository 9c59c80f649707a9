/**
 * `@stratbox/adapter-ws`: the Stratbox real-time channels (`backtest:<id>:progress`,
 * `deployment:<id>:orders`) over WebSocket, on `ws`, fed by core's EventBus.
 */
export { attachStratboxWs, type StratboxWsServer, type StratboxWsStats, type StratboxForWs } from './attach-stratbox-ws.js';
export { WS_DEFAULTS, type StratboxWsOptions } from './ws-options.js';
export { WS_CLOSE_CODES, WS_PATH } from '@stratbox/core';
