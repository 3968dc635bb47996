/** Attachments come only from the platform's own hosts, never more than the cap (issue 23); scheme, host and port are checked per hop (issue 41). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadFromPlatform, isPlatformHost } from '../../../src/adapters/shared/download-file.js';

describe('isPlatformHost', () => {
  const slack = 'https://slack.com/api/';
  it.each([
    ['https://files.slack.com/files-pri/T0-F1/log.txt', true],
    ['https://slack.com/files/x', true],
    ['https://slack.com.evil.example/files-pri/x', false],
    ['https://evilslack.com/x', false],
    ['http://files.slack.com/x', false],
    ['https://user:pass@files.slack.com/x', false],
    ['https://files.slack.com:8443/x', false],
    ['https://slack.com:444/files/x', false],
    ['https://files.slack.com:443/x', true],
  ])('%s → %s', (url, allowed) => {
    expect(isPlatformHost(new URL(url), slack)).toBe(allowed);
  });

  it('allows Discord’s CDN hosts given as extra hosts', () => {
    expect(isPlatformHost(new URL('https://cdn.discordapp.com/attachments/1/2/a.log'), 'https://discord.com/api', ['cdn.discordapp.com'])).toBe(true);
    expect(isPlatformHost(new URL('https://cdn.example.com/a.log'), 'https://discord.com/api', ['cdn.discordapp.com'])).toBe(false);
  });
});

describe('downloadFromPlatform', () => {
  let server: Server;
  let base = '';
  const seen: { path: string; authorization?: string }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ path: request.url ?? '', ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
      if (request.url === '/elsewhere') {
        // A redirect off the platform (localhost is another host name than 127.0.0.1).
        response.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/stolen` }).end();
      } else if (request.url === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(5_000));
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('downloads from the API host with the given headers', async () => {
    const { bytes } = await downloadFromPlatform({ url: `${base}/file`, apiUrl: `${base}/api/`, headers: { authorization: 'Bearer xoxb-1' }, maxBytes: 100 });
    expect(Buffer.from(bytes).toString()).toBe('hello');
  });

  it('refuses a redirect off the platform before sending anything there', async () => {
    await expect(
      downloadFromPlatform({ url: `${base}/elsewhere`, apiUrl: `${base}/api/`, headers: { authorization: 'Bearer xoxb-1' }, maxBytes: 100 }),
    ).rejects.toThrow(/not on the platform's own hosts \(localhost/);
    expect(seen.some((request) => request.path === '/stolen')).toBe(false);
  });

  it('refuses another port on the platform’s host, directly or through a redirect, before sending it the token', async () => {
    const headers: (string | undefined)[] = [];
    const other = createServer((request, response) => {
      headers.push(request.headers.authorization);
      response.writeHead(200).end('stolen');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const redirecting = createServer((_request, response) => response.writeHead(302, { location: `${otherBase}/stolen` }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const redirectBase = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    try {
      const download = { apiUrl: `${redirectBase}/api/`, headers: { authorization: 'Bearer xoxb-1' }, maxBytes: 100 };
      await expect(downloadFromPlatform({ ...download, url: `${otherBase}/file` })).rejects.toThrow(/own hosts/);
      await expect(downloadFromPlatform({ ...download, url: `${redirectBase}/file` })).rejects.toThrow(/own hosts \(127\.0\.0\.1:/);
      expect(headers).toEqual([]);
    } finally {
      await Promise.all([other, redirecting].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    }
  });

  it('refuses a file on another host outright', async () => {
    await expect(downloadFromPlatform({ url: 'http://localhost:1/x', apiUrl: `${base}/api/`, maxBytes: 100 })).rejects.toThrow(/own hosts/);
  });

  it('stops reading past the cap', async () => {
    await expect(downloadFromPlatform({ url: `${base}/big`, apiUrl: `${base}/api/`, maxBytes: 1_000 })).rejects.toThrow(/1000-byte limit/);
  });
});
