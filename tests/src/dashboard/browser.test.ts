/*
 * The dashboard's browser suites, run one after the other in one worker: each drives a headless
 * Chromium against its own example service, and several at once on a small machine starve each
 * other (and would race to rebuild the dashboard's `dist`). Each suite is its own module.
 */
import './browser-timeouts.js';
import './dashboard.suite.js';
import './dashboard-live.suite.js';
import './dashboard-billing-compare.suite.js';
import './dashboard-optimizations.suite.js';
import './dashboard-a11y.suite.js';
import './dashboard-notifications.suite.js';
import './dashboard-verified.suite.js';
import './dashboard-drift.suite.js';
import './dashboard-charts.suite.js';
