/**
 * Starts the service: configuration from the environment (`config.ts`),
 * then one HTTP front in this process (`FRONTS` 1, server/front.ts), or the
 * primary of several fronts, each a process of its own forked by node:cluster
 * on the same port (server/fronts/primary.ts; docs/operations.md "Several
 * fronts"). The primary loads none of a front's code (no HTTP app, no pool).
 */
import cluster from 'node:cluster';
import { frontConfig, loadConfigOrExit } from './config.js';
import { FRONT_INDEX_VAR, runPrimary } from './fronts/primary.js';

const config = loadConfigOrExit();

if (config.fronts > 1 && cluster.isPrimary) {
  runPrimary(config);
} else {
  const { startFront } = await import('./front.js');
  if (config.fronts === 1) await startFront(config);
  else {
    const index = Number(process.env[FRONT_INDEX_VAR]);
    await startFront(frontConfig(config, index), { index, count: config.fronts });
  }
}
