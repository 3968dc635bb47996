/** `doctor`'s line per character: what it will look like on Discord (issue 40). */
import { describe, expect, it } from 'vitest';
import { discordFaceLines } from '../../../src/cli/doctor-platforms.js';
import type { Character, Roster } from '../../../src/core/data/types.js';

const character = (name: string, aiName: string, avatar: string) => ({ name, aiName, avatar }) as Character;
const roster = (avatarImages?: Roster['avatarImages']): Pick<Roster, 'characters' | 'avatarImages'> => ({
  characters: new Map([
    ['spock', character('spock', 'Spock', 'spock.png')],
    ['geordi', character('geordi', 'Geordi', ':wrench:')],
    ['una', character('una', 'Una', 'https://pictures.example.com/una.png')],
  ]),
  ...(avatarImages ? { avatarImages } : {}),
});

describe('discordFaceLines', () => {
  it("without TSUKA_PUBLIC_URL: a picture file or the generated picture on the character's own webhook; an https avatar keeps its URL", () => {
    const lines = discordFaceLines(roster(new Map([['spock', { bytes: Buffer.from('x'), contentType: 'image/png' as const }]])), undefined);
    expect(lines).toEqual([
      'Discord face of Spock: its picture file spock.png, on a webhook of its own in each channel (no public address needed); in a channel whose 15 webhooks are taken: the name only',
      'Discord face of Geordi: its generated picture, on a webhook of its own in each channel (no public address needed); in a channel whose 15 webhooks are taken: the name with :wrench: only',
      'Discord face of Una: the picture at https://pictures.example.com/una.png (Discord must be able to fetch it)',
    ]);
  });

  it('with TSUKA_PUBLIC_URL: every picture under it (the shared webhook with avatar_url)', () => {
    const lines = discordFaceLines(roster(), 'https://tsuka.example.com/');
    expect(lines.slice(0, 2)).toEqual([
      'Discord face of Spock: the picture at https://tsuka.example.com/avatars/spock.png (Discord must be able to fetch it)',
      'Discord face of Geordi: the picture at https://tsuka.example.com/avatars/geordi.png (Discord must be able to fetch it)',
    ]);
  });
});
