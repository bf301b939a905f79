import { createApp } from './server/app.js';
const app = createApp({ solve: (async () => { throw new Error('x'); }) as any, batches: {} as any, webRoot: null });
const res = await app.request('/openapi.json');
process.stdout.write(JSON.stringify(await res.json(), null, 1));
