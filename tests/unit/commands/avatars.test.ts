/** A face per character (issue 24): a distinct, deterministic picture per name, and which picture each platform is given. */
import { describe, expect, it } from 'vitest';
import { avatarSvg, avatarUrlOf, createAvatarImages } from '../../../src/commands/reply/avatars.js';
import { identityOf } from '../../../src/commands/turns/character-selection.js';
import { identityFields } from '../../../src/adapters/slack/identity.js';
import type { Character } from '../../../src/core/data/types.js';

const character = (name: string, avatar = ':wrench:'): Character => ({
  name,
  aiName: name[0]!.toUpperCase() + name.slice(1),
  displayName: name,
  description: 'x',
  roles: ['developer'],
  activeRole: 'developer',
  trait: 'creative',
  avatar,
});

describe('character pictures', () => {
  it('draws the same picture for the same name and a different one for another name, as a PNG', async () => {
    expect(avatarSvg(character('geordi'))).toBe(avatarSvg(character('geordi')));
    expect(avatarSvg(character('geordi'))).not.toBe(avatarSvg(character('spock')));
    // Two names with the same initial still differ (colour and pattern come from the whole name).
    expect(avatarSvg(character('worf'))).not.toBe(avatarSvg(character('wesley')));
    const images = createAvatarImages();
    const png = await images.png(character('geordi'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(await images.png(character('geordi'))).toBe(png);
  });

  it('escapes what it writes into the SVG', () => {
    expect(avatarSvg({ name: 'x', aiName: '<b' })).toContain('>&lt;</text>');
  });

  it('gives platforms the character URL, else the generated picture under TSUKA_PUBLIC_URL, else nothing', () => {
    expect(avatarUrlOf(character('geordi'), 'https://tsuka.example.com')).toBe('https://tsuka.example.com/avatars/geordi.png');
    expect(avatarUrlOf(character('geordi'), 'https://tsuka.example.com/')).toBe('https://tsuka.example.com/avatars/geordi.png');
    expect(avatarUrlOf(character('geordi'), undefined)).toBeUndefined();
    expect(avatarUrlOf(character('pic', 'https://cdn.example.com/pic.png'), undefined)).toBe('https://cdn.example.com/pic.png');
    expect(identityOf(character('geordi'))).toEqual({ name: 'Geordi', avatar: ':wrench:', avatarPath: '/avatars/geordi.png', character: 'geordi' });
  });

  it('on Slack: icon_url when there is a picture, else the emoji', () => {
    expect(identityFields(identityOf(character('geordi'), 'https://tsuka.example.com'))).toEqual({
      username: 'Geordi',
      icon_url: 'https://tsuka.example.com/avatars/geordi.png',
    });
    expect(identityFields(identityOf(character('geordi')))).toEqual({ username: 'Geordi', icon_emoji: ':wrench:' });
  });
});
