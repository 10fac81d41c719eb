// verify_evidence_chain: checks the hash chains of a service database's evidence tables offline,
// read-only. Exit 0 when every chain verifies, 1 naming the first broken row, 2 when the file is
// missing, is not a database, has no evidence tables, or --table names none of them.
// With --nats and --service it checks the chains replicated to the evidence stream instead
// (docs/replication.md), and with --db as well, that every local head equals the stream's.

import { availableParallelism } from 'node:os';
import {
  AirlockError, isAirlockError, connectNats, createStreamApi, DEFAULT_EVIDENCE_STREAM, defineCommand, EXIT_FAILED, EXIT_OK, listEvidenceTables, main, openDatabaseReadOnly,
  parseNatsUrls, readReplicatedChains, usageError, verifyChainParallel, verifyReplicatedChain, wholeNumberOption,
} from '../src/kernel/index.ts';
import type { ChainVerification } from '../src/kernel/index.ts';

const MAX_DEFAULT_THREADS = 4;

const command = defineCommand({
  name: 'verify_evidence_chain',
  summary: 'Verifies the SHA-256 hash chains of the evidence tables in an Airlock database',
  description: [
    'Each evidence row stores sha256 = SHA-256 of the RFC 8785 canonical JSON of its columns, and the',
    'sha256 of the row before it. The check recomputes every hash in seq order and reports the first',
    'row that does not match. It opens the file read-only and needs no service code: the tables and',
    'their columns come from the _evidence_tables registry in the file itself. Rows are hashed on',
    '--threads worker threads in seq ranges (their hashes are independent); the links between rows',
    'are checked in order, so the answer is that of one walk in seq order.',
  ].join('\n'),
  options: {
    db: { type: 'string', valueName: 'FILE', description: 'The SQLite database file (required)' },
    table: { type: 'string', valueName: 'NAME', description: 'Verify only this evidence table (default: all)' },
    threads: { type: 'string', valueName: 'N', description: `Threads that hash rows (default: the CPUs, at most ${MAX_DEFAULT_THREADS})` },
    nats: { type: 'string', valueName: 'URL[,URL...]', description: 'Verify the chains replicated to the evidence stream on this NATS cluster (with --service)' },
    service: { type: 'string', valueName: 'NAME', description: 'With --nats: the service whose replicated chains to verify' },
    stream: { type: 'string', valueName: 'NAME', description: `With --nats: the evidence stream (default ${DEFAULT_EVIDENCE_STREAM})` },
  },
  async run({ values, json, print, printJson }) {
    if (values.nats !== undefined) return verifyReplicated({ nats: values.nats, service: values.service, stream: values.stream, db: values.db }, { json, print, printJson });
    if (values.service !== undefined) usageError('--service goes with --nats: name the NATS cluster whose stream to verify');
    if (values.db === undefined) usageError('Missing --db FILE: name the database to verify');
    const sqlite = openDatabaseReadOnly(values.db);
    try {
      const registered = listEvidenceTables(sqlite);
      if (registered.length === 0) {
        throw new AirlockError('environment', `Cannot verify "${values.db}": the database has no evidence tables`);
      }
      const chosen = values.table === undefined ? registered : registered.filter((table) => table.name === values.table);
      if (chosen.length === 0) {
        usageError(`Unknown evidence table "${values.table}" in "${values.db}": choose from ${registered.map((table) => table.name).join(', ')}`);
      }
      const threads = values.threads === undefined ? Math.min(availableParallelism(), MAX_DEFAULT_THREADS) : wholeNumberOption('--threads', values.threads);
      const results = [];
      for (const table of chosen) results.push(await verifyChainParallel(sqlite, table, { path: values.db, threads }));
      const ok = results.every((result) => result.ok);
      if (json) printJson({ ok, db: values.db, tables: results });
      else for (const result of results) print(describe(result));
      return ok ? EXIT_OK : EXIT_FAILED;
    } finally {
      sqlite.close();
    }
  },
});

function describe(result: ChainVerification): string {
  if (result.ok) return `${result.table}: ok, ${result.rows} rows, head ${result.head}`;
  return `${result.table}: broken at seq ${result.seq ?? '(none)'}: ${result.reason}`;
}

interface HeadComparison {
  table: string;
  local: { seq: number; sha256: string | null };
  stream: { seq: number; sha256: string | null };
  agree: boolean;
}

/** --nats: the stream's chains of one service verified, and with --db each local head compared with the stream's. */
async function verifyReplicated(
  options: { nats: string; service: string | undefined; stream: string | undefined; db: string | undefined },
  io: { json: boolean; print: (line: string) => void; printJson: (value: unknown) => void },
): Promise<0 | 1> {
  if (options.service === undefined) usageError('Missing --service NAME: name the service whose replicated chains to verify');
  let servers;
  try {
    servers = parseNatsUrls(options.nats);
  } catch (error) {
    usageError(`Invalid --nats: ${(error as Error).message}`);
  }
  const sqlite = options.db === undefined ? undefined : openDatabaseReadOnly(options.db);
  let client;
  try {
    client = await connectNats({ servers, name: 'airlock-verify-evidence', reconnect: { initialMs: 50, maxMs: 1000, jitterMs: 50 } });
  } catch (error) {
    sqlite?.close();
    throw new AirlockError('environment', `Cannot reach the NATS cluster at ${servers.map((s) => s.display).join(', ')}: ${(error as Error).message}`);
  }
  try {
    const stream = options.stream ?? DEFAULT_EVIDENCE_STREAM;
    const api = createStreamApi(client);
    if ((await api.infoWithin(stream, 60_000)) === undefined) throw new AirlockError('environment', `The NATS cluster has no stream "${stream}"`);
    let chains;
    try {
      chains = await readReplicatedChains(api, { stream, service: options.service });
    } catch (error) {
      if (!isAirlockError(error, 'evidence_replication')) throw error;
      if (io.json) io.printJson({ ok: false, service: options.service, stream, error: error.message });
      else io.print(error.message);
      return EXIT_FAILED;
    }
    const results = chains.map(verifyReplicatedChain);
    const heads: HeadComparison[] = [];
    // Heads that agree say nothing of the rows under them: the local chains are verified too.
    const localResults: ChainVerification[] = [];
    if (sqlite !== undefined) {
      const threads = Math.min(availableParallelism(), MAX_DEFAULT_THREADS);
      for (const table of listEvidenceTables(sqlite)) localResults.push(await verifyChainParallel(sqlite, table, { path: options.db!, threads }));
      const names = new Set([...listEvidenceTables(sqlite).map((t) => t.name), ...chains.map((c) => c.table)]);
      for (const table of [...names].sort()) {
        const row = listEvidenceTables(sqlite).some((t) => t.name === table) ? sqlite.prepare(`SELECT seq, sha256 FROM ${table} ORDER BY seq DESC LIMIT 1`).get() : undefined;
        const local = { seq: row === undefined ? 0 : Number(row['seq']), sha256: row === undefined ? null : String(row['sha256']) };
        const chain = chains.find((c) => c.table === table);
        const last = chain?.rows.at(-1);
        const remote = { seq: last?.seq ?? 0, sha256: last?.sha256 ?? null };
        heads.push({ table, local, stream: remote, agree: local.seq === remote.seq && local.sha256 === remote.sha256 });
      }
    }
    const ok = results.every((r) => r.ok) && localResults.every((r) => r.ok) && heads.every((h) => h.agree) && (chains.length > 0 || heads.length > 0);
    if (io.json) io.printJson({ ok, service: options.service, stream, tables: results, ...(sqlite && { db: options.db, local: localResults, heads }) });
    else {
      if (chains.length === 0) io.print(`${stream}: no evidence of service "${options.service}"`);
      for (const result of results) io.print(`stream ${describe(result)}`);
      for (const result of localResults) if (!result.ok) io.print(`local ${describe(result)}`);
      for (const head of heads) {
        io.print(`${head.table}: ${head.agree ? 'heads agree' : 'heads DIFFER'}: local seq ${head.local.seq} ${head.local.sha256 ?? '-'}, stream seq ${head.stream.seq} ${head.stream.sha256 ?? '-'}`);
      }
    }
    return ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    sqlite?.close();
    await client.close();
  }
}

await main(command);
