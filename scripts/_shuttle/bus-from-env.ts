// The bus a shuttle command uses: the same configuration as the messaging services (NATS_URL or
// the embedded bus in $AIRLOCK_DATA_DIR/messaging.sqlite).

import type { Store } from '../../src/kernel/index.ts';
import { readConfig, versionTruth } from '../../src/kernel/index.ts';
import type { Bus } from '../../src/messaging/bus.ts';
import { BUS_SPEC, busConfig, DATA_SPEC } from '../../src/messaging/config.ts';
import { openMessagingDatabase } from '../../src/messaging/database.ts';
import { openBus } from '../../src/messaging/open-bus.ts';

export async function busFromEnv(env: NodeJS.ProcessEnv, name: string): Promise<{ bus: Bus; store: Store; close(): Promise<void> }> {
  const config = busConfig(readConfig({ ...DATA_SPEC, ...BUS_SPEC }, env));
  const store = openMessagingDatabase(config.databasePath);
  try {
    const bus = await openBus(config, { store, name, version: versionTruth() });
    return { bus, store, close: async () => (await bus.close(), await store.close()) };
  } catch (error) {
    await store.close();
    throw error;
  }
}
