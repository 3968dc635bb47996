/** Attachment names come from whoever uploaded the file (issue 23): one harmless segment, never a path. */
import { describe, expect, it } from 'vitest';
import { attachmentKind, inboxPath, INBOX_MAX_NAME_LENGTH, sanitiseFileName } from '../../../src/commands/context/inbox-names.js';

describe('sanitiseFileName', () => {
  it.each([
    ['../../../etc/passwd', 'passwd'],
    ['..\\..\\Windows\\system32\\evil.dll', 'evil.dll'],
    ['..', 'file'],
    ['.bashrc', 'bashrc'],
    ['', 'file'],
    ['report\u0000.pdf\u202e', 'report_.pdf'],
    ['my report (final).txt', 'my_report_final_.txt'],
    ['$(rm -rf ~);.sh', 'rm_-rf_.sh'],
    ['ｅｖｉｌ／name.txt', 'name.txt'],
  ])('%j → %j', (name, expected) => {
    expect(sanitiseFileName(name)).toBe(expected);
  });

  it('cuts a long name to the limit and keeps its extension', () => {
    const safe = sanitiseFileName(`${'a'.repeat(500)}.log`);
    expect(safe.length).toBe(INBOX_MAX_NAME_LENGTH);
    expect(safe.endsWith('.log')).toBe(true);
  });
});

describe('inboxPath', () => {
  it('dates the name inside the inbox and numbers it when the name is taken', async () => {
    const taken = new Set(['.tsuka/inbox/2025-03-04-app.log']);
    expect(await inboxPath('../app.log', new Date('2025-03-04T10:00:00Z'), async (path) => taken.has(path))).toBe('.tsuka/inbox/2025-03-04-app-2.log');
  });
});

describe('attachmentKind', () => {
  it.each([
    ['deploy.log', undefined, 'text'],
    ['data.csv', 'text/csv', 'text'],
    ['config', 'application/json', 'text'],
    ['shot.png', 'image/png', 'image'],
    ['shot.svg', 'image/svg+xml', 'other'],
    ['spec.pdf', 'application/pdf', 'pdf'],
    ['tool.exe', 'application/octet-stream', 'other'],
  ])('%s (%s) is %s', (name, type, kind) => {
    expect(attachmentKind(name, type)).toBe(kind);
  });
});
