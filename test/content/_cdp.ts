// A small Chrome DevTools Protocol client over Node's built-in WebSocket: launch Debian's
// chromium headless with a fresh profile, attach to one page (flattened sessions), send
// commands, poll the page, save screenshots. No npm package: just the protocol's JSON messages.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';
export const INSTALL_HINT = 'Chromium is missing: run "bash scripts/install_chromium.sh" (Debian package chromium)';

export interface Page {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, any>>;
  evaluate<T = unknown>(expression: string): Promise<T>;
  goto(url: string): Promise<void>;
  waitFor(expression: string, what: string, timeoutMs?: number): Promise<void>;
  screenshot(path: string): Promise<void>;
  setFiles(selector: string, files: string[]): Promise<void>;
}

export interface Browser {
  page: Page;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(INSTALL_HINT);
  const profile = mkdtempSync(join(tmpdir(), 'airlock-chromium-'));
  const child: ChildProcess = spawn(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=1100,800', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not print its DevTools endpoint: ${text.slice(-500)}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before listening: ${text.slice(-500)}`)));
  });
  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: Record<string, any>) => void; reject: (e: Error) => void }>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, any>; error?: { message: string } };
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result ?? {});
  });
  const command = (method: string, params: Record<string, unknown> = {}, sessionId?: string) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    });
  const { targetId } = await command('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await command('Target.attachToTarget', { targetId, flatten: true });
  const send = (method: string, params: Record<string, unknown> = {}) => command(method, params, sessionId as string);
  await send('Page.enable');
  const page: Page = {
    send,
    async evaluate<T>(expression: string) {
      const result = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
      if (result['exceptionDetails']) throw new Error(`Evaluation failed: ${JSON.stringify(result['exceptionDetails']).slice(0, 300)}`);
      return result['result']?.value as T;
    },
    async goto(url) {
      await send('Page.navigate', { url });
    },
    async waitFor(expression, what, timeoutMs = 8000) {
      const started = Date.now();
      for (;;) {
        const ok = await page.evaluate<boolean>(`document.readyState === 'complete' && Boolean(${expression})`).catch(() => false);
        if (ok) return;
        if (Date.now() - started > timeoutMs) {
          const where = await page.evaluate<string>('location.href + " :: " + document.body?.innerText.slice(0, 400)').catch(() => '?');
          throw new Error(`Timed out waiting for ${what}; page is ${where}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async screenshot(path) {
      const { data } = await send('Page.captureScreenshot', { format: 'png' });
      writeFileSync(path, Buffer.from(String(data), 'base64'));
    },
    async setFiles(selector, files) {
      const { root } = await send('DOM.getDocument', { depth: 0 });
      const { nodeId } = await send('DOM.querySelector', { nodeId: root.nodeId, selector });
      if (!nodeId) throw new Error(`No element matches "${selector}"`);
      await send('DOM.setFileInputFiles', { nodeId, files });
    },
  };
  return {
    page,
    async close() {
      socket.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
