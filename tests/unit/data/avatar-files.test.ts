/**
 * Issue 24: a character's `avatar` may name a local image file, served at /avatars/<name>.png.
 * Written as the attacks and mistakes it must survive: a path out of the data folder (directly or
 * through a symbolic link), a text file named .png, a huge file, a missing one — each a clear
 * problem at load, never fatal, the character keeping its generated picture.
 */
import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import { AVATAR_MAX_BYTES, imageTypeOf } from '../../../src/core/data/avatar-files.js';
import type { DataProblem } from '../../../src/core/data/data-problem.js';
import { DataFileError } from '../../../src/core/errors.js';
import { avatarRoutes } from '../../../src/app/avatar-routes.js';
import { identityOf } from '../../../src/commands/turns/character-selection.js';
import { identityFields } from '../../../src/adapters/slack/identity.js';
import { KNOWN_TOOLS, removeRoster, validRosterFiles, writeRoster } from './roster-fixture.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeRoster));
});

/** The fixture roster with geordi's avatar set to `avatar`, plus `files` (relative to the roster root). */
async function rosterWith(avatar: string, files: Record<string, string | Buffer> = {}) {
  const base = validRosterFiles();
  const root = await writeRoster({ ...base, 'characters/geordi.json': { ...(base['characters/geordi.json'] as object), avatar } });
  roots.push(root);
  for (const [file, content] of Object.entries(files)) await writeFile(path.join(root, file), content);
  const problems: DataProblem[] = [];
  const roster = await loadRoster({ rootDirectory: root, knownTools: KNOWN_TOOLS, onAvatarProblem: (problem) => problems.push(problem) });
  return { root, roster, problems };
}

/** What GET /avatars/geordi.png answers. */
async function served(roster: Awaited<ReturnType<typeof rosterWith>>['roster']) {
  const warnings: unknown[] = [];
  const routes = avatarRoutes(roster, { warn: (...args: unknown[]) => warnings.push(args) } as never);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve) => {
    const response = {
      status: 0,
      headers: {} as Record<string, unknown>,
      writeHead(status: number, headers: Record<string, unknown>) {
        this.status = status;
        this.headers = headers;
        return this;
      },
      end(body?: Buffer) {
        resolve({ status: this.status, headers: this.headers, body: body ?? Buffer.alloc(0) });
      },
    };
    void routes['GET /avatars/geordi.png']!({ method: 'GET' } as IncomingMessage, response as unknown as ServerResponse);
  });
}

describe('a character picture from a local file', () => {
  it('is read next to the data file and served at /avatars/<name>.png with its own type; no platform is given the path', async () => {
    const { roster, problems } = await rosterWith('geordi.png', { 'characters/geordi.png': PNG });
    expect(problems).toEqual([]);
    expect(roster.avatarImages?.get('geordi')).toEqual({ bytes: PNG, contentType: 'image/png' });
    const answer = await served(roster);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/png');
    expect(answer.body.equals(PNG)).toBe(true);
    const identity = identityOf(roster.characters.get('geordi')!, 'https://tsuka.example.com');
    expect(identity.avatarUrl).toBe('https://tsuka.example.com/avatars/geordi.png');
    // Without a public URL, Slack gets the name alone: never a file path as an emoji.
    expect(identityFields(identityOf(roster.characters.get('geordi')!))).toEqual({ username: 'Geordi' });
  });

  it('knows PNG, JPEG, GIF and WebP by their first bytes, and nothing else', () => {
    expect(imageTypeOf(PNG)).toBe('image/png');
    expect(imageTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
    expect(imageTypeOf(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(imageTypeOf(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(imageTypeOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(imageTypeOf(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'))).toBeUndefined();
  });

  it.each([
    ['a text file named .png', 'geordi.png', { 'characters/geordi.png': 'not a picture at all' }, /not a PNG, JPEG, GIF or WebP image/],
    ['a file over 1 MiB', 'big.png', { 'characters/big.png': Buffer.concat([PNG, Buffer.alloc(AVATAR_MAX_BYTES)]) }, /at most 1048576 \(1 MiB\)/],
    ['a missing file', 'gone.png', {}, /cannot be read \(ENOENT\)/],
    ['a path out of the data folder', '../../../../../../etc/passwd.png', {}, /outside the data folder/],
  ])('refuses %s with a clear problem at load, and serves the generated picture instead', async (_case, avatar, files, message) => {
    const { roster, problems } = await rosterWith(avatar, files);
    expect(problems).toEqual([{ file: 'characters/geordi.json', field: '/avatar', message: expect.stringMatching(message) }]);
    expect(problems[0]!.message).toMatch(/keeps its generated picture/);
    expect(roster.characters.has('geordi')).toBe(true);
    expect(roster.avatarImages?.get('geordi')).toBeUndefined();
    const answer = await served(roster);
    expect(answer.headers['content-type']).toBe('image/png');
    expect(answer.body.equals(PNG)).toBe(false);
    expect(answer.body.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('refuses a symbolic link inside the folder that leads out of it', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'tsuka-outside-'));
    roots.push(outside);
    await writeFile(path.join(outside, 'secret.png'), PNG);
    const base = validRosterFiles();
    const root = await writeRoster({ ...base, 'characters/geordi.json': { ...(base['characters/geordi.json'] as object), avatar: 'face.png' } });
    roots.push(root);
    await symlink(path.join(outside, 'secret.png'), path.join(root, 'characters', 'face.png'));
    const problems: DataProblem[] = [];
    const roster = await loadRoster({ rootDirectory: root, knownTools: KNOWN_TOOLS, onAvatarProblem: (problem) => problems.push(problem) });
    expect(problems.map((problem) => problem.message)).toEqual([expect.stringMatching(/leads outside the data folder \(a symbolic link\)/)]);
    expect(roster.avatarImages?.get('geordi')).toBeUndefined();
  });

  it('takes no absolute path or other scheme (the schema says what an avatar may be)', async () => {
    for (const avatar of ['/etc/face.png', 'file:///etc/face.png', 'face.svg']) {
      const error = await rosterWith(avatar).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, avatar).toBeInstanceOf(DataFileError);
      expect((error as DataFileError).problems.map((problem) => problem.field)).toContain('/avatar');
    }
  });
});
