/** Live deployments: the service behind `/api/deployments`, the supervisor that runs them, and their logs. */
export { createDeploymentService, type DeploymentService, type DeploymentServiceDeps } from './deployment-service.js';
export { createDeploymentSupervisor, type DeploymentSupervisor, type DeploymentSupervisorDeps, type DeploymentSupervisorOptions } from './supervisor.js';
export { createDeploymentLogWriter, type DeploymentLogWriter } from './deployment-log.js';
export { toDeploymentView, toOrderView, toLogEntry } from './deployment-views.js';
export {
  runPreflight,
  symbolsMarketType,
  type PreflightCheckName,
  type PreflightOptions,
  type PreflightResult,
  type PreflightSettings,
} from './preflight.js';
