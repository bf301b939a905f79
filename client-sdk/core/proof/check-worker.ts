/**
 * One thread of `checkCertificateParallel` (check.ts): checks step 6 on
 * its range of positions and posts the result.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkRange, type CheckWorkerData } from './check.js';

parentPort!.postMessage(checkRange(workerData as CheckWorkerData));
