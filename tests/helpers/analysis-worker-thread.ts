/**
 * The SDK's analysis worker (`serveAnalysis`) in a Node worker thread, for
 * tests/unit/analyser.test.ts: the thread's port adapted to the
 * `addEventListener('message')` of a Web Worker's scope.
 */
import { parentPort } from 'node:worker_threads';
import { serveAnalysis, type AnalysisRequest } from '../../client-sdk/sdk/analysis-worker.js';

const port = parentPort!;
serveAnalysis({
  postMessage: (message) => port.postMessage(message),
  addEventListener: (_type, listener) => port.on('message', (data: AnalysisRequest) => listener({ data })),
});
