import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { CountedTools, startBrowserApp } from '../../fixtures/browser-app';
import { ALL_ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { launchChromium } from '../../utils/chromium';
import { rpcBody, rpcHeaders } from '../../utils/mcp';

/** A front end listed in `http.allowedOrigins` and allowed by the app's CORS. */
const ALLOWED_HOST = 'app.example.test';
/** A front end the app's CORS allows but `http.allowedOrigins` does not list. */
const UNLISTED_HOST = 'unlisted.example.test';
/** A front end the app's CORS does not allow either. */
const STRANGER_HOST = 'stranger.example.test';

/** What the page's script saw: the answer it could read, or the error `fetch` threw. */
type Seen = { status: number; body: string } | { error: string };

/**
 * A page on another origin calls the MCP endpoint with `fetch`, in a real Chromium: the browser
 * preflights the call (its MCP headers are not CORS-safelisted), then sends it. Served when the
 * origin is in `http.allowedOrigins` and the app's CORS; refused with an answer the page can read,
 * naming `http.allowedOrigins`, when CORS allows the origin but the rebinding check does not.
 */
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium([ALLOWED_HOST, UNLISTED_HOST, STRANGER_HOST]);
});

afterAll(() => browser?.close());

describe.each(ALL_ADAPTERS)('a browser page on another origin over %s', (adapter) => {
  let frontEnd: Server;
  let server: TestServer;
  let page: Page;

  beforeAll(async () => {
    frontEnd = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>MCP</title>'),
    );
    await new Promise<void>((listening) => frontEnd.listen(0, '127.0.0.1', listening));
    server = await startBrowserApp(adapter, {
      allowedOrigins: [frontEndOrigin(ALLOWED_HOST)],
      cors: [frontEndOrigin(ALLOWED_HOST), frontEndOrigin(UNLISTED_HOST)],
    });
    page = await browser.newPage();
  });

  afterAll(async () => {
    await page?.close();
    await server?.close();
    await new Promise((closed) => frontEnd?.close(closed));
  });

  function frontEndOrigin(host: string): string {
    return `http://${host}:${(frontEnd.address() as AddressInfo).port}`;
  }

  /** Opens the front end at `host` and calls the `count` tool from its page with `fetch`. */
  async function callFromPage(host: string): Promise<Seen> {
    await page.goto(`${frontEndOrigin(host)}/`);
    return page.evaluate(
      async ({ url, headers, body }): Promise<Seen> => {
        try {
          const response = await fetch(url, { method: 'POST', headers, body });
          return { status: response.status, body: await response.text() };
        } catch (error) {
          return { error: String(error) };
        }
      },
      {
        url: server.url.href,
        headers: rpcHeaders('tools/call', 'count'),
        body: rpcBody('tools/call', { name: 'count', arguments: {} }),
      },
    );
  }

  const runs = () => server.app.get(CountedTools).runs;

  it('serves a page whose origin is in http.allowedOrigins and the app CORS', async () => {
    const before = runs();
    const seen = await callFromPage(ALLOWED_HOST);
    expect(seen).toMatchObject({ status: 200 });
    expect(JSON.parse((seen as { body: string }).body).result.content).toEqual([
      { type: 'text', text: `run ${before + 1}` },
    ]);
    expect(runs()).toBe(before + 1);
  });

  it('refuses a page whose origin is not in http.allowedOrigins with an answer it can read', async () => {
    const before = runs();
    const seen = await callFromPage(UNLISTED_HOST);
    expect(seen).toMatchObject({ status: 403 });
    expect(JSON.parse((seen as { body: string }).body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Forbidden: Origin header not allowed by http.allowedOrigins',
        data: { option: 'http.allowedOrigins' },
      },
    });
    expect(runs()).toBe(before);
  });

  it("leaves a page the app's CORS does not allow nothing to read, and runs nothing", async () => {
    const before = runs();
    const seen = await callFromPage(STRANGER_HOST);
    expect(seen).toEqual({ error: 'TypeError: Failed to fetch' });
    expect(runs()).toBe(before);
  });
});
