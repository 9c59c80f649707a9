export { createInProcessEventBus, type InProcessEventBusOptions } from './in-process-event-bus.js';
export { deliverEvent } from './deliver-event.js';
export {
  createChannelService,
  createStoreChannelResolvers,
  type ChannelService,
  type ChannelAccess,
  type ChannelResolvers,
  type BacktestChannelResolver,
  type DeploymentChannelResolver,
} from './channel-service.js';
