import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/core/tools/private-address.js';
import { classifyWebUrl, createGuardedFetch, type HostLookup } from '../../../src/core/tools/web-risk.js';

const PUBLIC = { level: 'SAFE', reason: 'reads a public web page' } as const;
const PRIVATE_REASON = /^reaches a private or local address/;

/** Resolves from a table and records every name it was asked; unknown names are public. */
function recordingDns(table: Readonly<Record<string, readonly string[]>>): { lookup: HostLookup; asked: string[] } {
  const asked: string[] = [];
  const lookup: HostLookup = async (hostname) => {
    asked.push(hostname);
    return (table[hostname] ?? ['93.184.215.14']).map((address) => ({ address }));
  };
  return { lookup, asked };
}

describe('classifyWebUrl with DNS', () => {
  const dns = recordingDns({
    '169.254.169.254.nip.io': ['169.254.169.254'],
    'localtest.me': ['127.0.0.1', '::1'],
    'mixed.example.test': ['93.184.215.14', '10.1.2.3'],
    'v6-ula.example.test': ['2606:4700::1111', 'fd12:3456::1'],
    'mapped.example.test': ['::ffff:192.168.0.10'],
    'public.example.test': ['93.184.215.14', '2606:4700::1111'],
  });

  it.each([
    ['http://169.254.169.254.nip.io/latest/meta-data/', '169.254.169.254'],
    ['http://localtest.me:11434/api/tags', '127.0.0.1'],
    ['https://mixed.example.test/', '10.1.2.3'],
    ['https://v6-ula.example.test/', 'fd12:3456::1'],
    ['https://mapped.example.test/', '::ffff:192.168.0.10'],
  ])('%s is DANGEROUS because it resolves to %s', async (url, address) => {
    const risk = await classifyWebUrl(url, PUBLIC, { lookup: dns.lookup });
    expect(risk.level).toBe('DANGEROUS');
    expect(risk.reason).toMatch(PRIVATE_REASON);
    expect(risk.reason).toContain(address);
  });

  it('keeps a name SAFE when every address it resolves to is public', async () => {
    expect(await classifyWebUrl('https://public.example.test/a', PUBLIC, { lookup: dns.lookup })).toEqual(PUBLIC);
    expect(dns.asked).toContain('public.example.test');
  });

  it('keeps the literal verdict when the lookup fails or never answers', async () => {
    const failing: HostLookup = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect(await classifyWebUrl('https://docs.example.test/', PUBLIC, { lookup: failing })).toEqual(PUBLIC);
    expect((await classifyWebUrl('http://localhost/', PUBLIC, { lookup: failing })).level).toBe('DANGEROUS');
    const silent: HostLookup = () => new Promise(() => undefined);
    expect(await classifyWebUrl('https://docs.example.test/', PUBLIC, { lookup: silent, lookupTimeoutMs: 5 })).toEqual(PUBLIC);
  });

  it.each([
    'http://[::7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:c0a8:101::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fec0::1]/',
    'http://[fd00::1]:8080/',
    'http://[ff02::1]/',
  ])('recognises the IPv6 form %s as private without asking DNS', async (url) => {
    const before = dns.asked.length;
    expect((await classifyWebUrl(url, PUBLIC, { lookup: dns.lookup })).reason).toMatch(PRIVATE_REASON);
    expect(dns.asked.length).toBe(before);
  });

  it('keeps public IPv6 and IPv4-mapped public addresses SAFE', async () => {
    for (const url of ['http://[2606:4700::1111]/', 'http://[::ffff:8.8.8.8]/', 'http://[64:ff9b::808:808]/', 'http://8.8.8.8/']) {
      expect(await classifyWebUrl(url, PUBLIC, { lookup: dns.lookup }), url).toEqual(PUBLIC);
    }
  });
});

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.20.30.40', true],
    ['100.64.0.1', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['::7f00:1', true],
    ['fe80::1%eth0', true],
    ['not-an-address', true],
    ['93.184.215.14', false],
    ['2606:4700::1111', false],
  ] as const)('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('createGuardedFetch', () => {
  it('refuses a private target before the real fetch is called, and passes public ones through', async () => {
    const fetched: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      fetched.push(String(input));
      return new Response('ok');
    };
    const guarded = createGuardedFetch(fakeFetch, { lookup: recordingDns({ 'localtest.me': ['127.0.0.1'] }).lookup });
    await expect(guarded(new URL('http://localtest.me:11434/api/tags'))).rejects.toThrow(
      /localtest\.me:11434 reaches a private or local address \(localtest\.me:11434 → 127\.0\.0\.1\); refused/,
    );
    await expect(guarded('http://[::7f00:1]/')).rejects.toThrow(/private or local address/);
    expect(fetched).toEqual([]);
    expect(await (await guarded('https://docs.example.test/a')).text()).toBe('ok');
    expect(fetched).toEqual(['https://docs.example.test/a']);
  });
});
