/**
 * The part of autocannon 9's API that bench/http.ts uses (the package ships
 * no types; @types/autocannon describes version 7).
 */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    overallRate?: number;
    requests?: { setupRequest?: (req: Request, context: Record<string, unknown>) => Request; body?: string }[];
  }
  interface Result {
    duration: number;
    latency: Histogram;
    requests: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats?: Record<string, { count: number | string }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
