/**
 * The play page's analysis worker: the SDK's worker side (the Wasm engine,
 * `serveAnalysis`), which `verdicts.ts` hands to the SDK's `createAnalyser`.
 */
import { serveAnalysis } from '../../../client-sdk/sdk/analysis-worker.js';

serveAnalysis();
