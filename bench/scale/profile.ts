// What the scale harness needs to know of a service: how to start it, how to grow its evidence
// through its real write path, which read routes to time, which read is its heaviest, and what
// its readiness probe is. One profile per service under bench/scale/profiles/.

import type { LoadRequest } from '../lib/load.ts';

/** One read route of the service's route table, as the harness requests it. */
export interface ReadRoute {
  /** "GET /api/resource/{doctype}" and what is asked, e.g. "limit=20". */
  name: string;
  request: LoadRequest;
  /** The status its answer has (default: any below 400), e.g. a refusal that is the answer once a window is full. */
  expectStatus?: number;
}

export interface GrowOutcome {
  /** Business events in the database now. */
  events: number;
  /** Raw request body bytes of all business events sent so far. */
  rawBytes: number;
}

/** What a write load measured: its requests, errors and latency percentiles. */
export interface WriteLoadResult {
  requests: number;
  errors: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export interface ScaleProfile {
  service: string;
  /** What one business event is, e.g. "integration event". */
  businessEvent: string;
  /** The service's entry, started as `node <entry>` with the profile's environment. */
  entry: string;
  /** Its bundle under dist/bin/ (`npm run build`), started instead with --bundle. */
  bundle: string;
  env(dataDir: string): Record<string, string>;
  /** The listener whose listening line gives the URL the reads go to (the first line when absent). */
  listener?: string;
  /**
   * Called before each size is grown and measured, and `teardown` once at the end: peers the
   * service needs (an OpenID provider), fresh credentials, free ports.
   */
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** The database file under the data directory. */
  database(dataDir: string): string;
  /** Sends requests through the service's write path until it holds `target` business events. */
  grow(url: string, target: number): Promise<GrowOutcome>;
  /**
   * The same growth in this process, with the service stopped: the service's own write functions
   * over its database, without HTTP and signatures (much faster for 10^6 and beyond).
   */
  growDirect?(dataDir: string, target: number): Promise<GrowOutcome>;
  /** The read routes to time at each size. */
  reads: ReadRoute[];
  /** The heaviest read a client may ask for, run by 8 clients while readiness is probed. */
  heaviest: ReadRoute;
  /** The readiness (or health) probe. */
  readiness: ReadRoute;
  /**
   * The service's own write load, run against it at each size after the reads (ERP: its
   * performance gate): the issue wants its p95 unchanged as the evidence grows.
   */
  writeLoad?: { name: string; run(url: string, dataDir: string, seconds: number): Promise<WriteLoadResult> };
  /** Starts what the service needs beside it for every size (e.g. the governance it asks), before env() is read. */
  start?(): Promise<void>;
  /** Stops what start() started. */
  stop?(): Promise<void>;
}
