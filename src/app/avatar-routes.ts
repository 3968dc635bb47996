/**
 * `GET /avatars/<name>.png` for every character of the roster (and the bot's and a person's face for
 * the playground): the generated pictures Discord and
 * Slack fetch under TSUKA_PUBLIC_URL and the playground shows. Public by design (a name's
 * initial and colours, nothing else); each is drawn once and cached by the platforms for a day.
 */
import type { Roster } from '../core/data/types.js';
import type { Logger } from '../core/logger.js';
import { avatarPath, BOT_PICTURE, createAvatarImages, PERSON_PICTURE } from '../commands/reply/avatars.js';
import type { RouteHandler } from './http-server.js';

const ONE_DAY_S = 86_400;

export function avatarRoutes(roster: Roster, logger: Logger): Record<string, RouteHandler> {
  const images = createAvatarImages();
  const routes: Record<string, RouteHandler> = {};
  for (const character of [...roster.characters.values(), BOT_PICTURE, PERSON_PICTURE]) {
    const handler: RouteHandler = (request, response) => {
      // A picture file the character's data names (checked at load), else the generated one.
      const own = roster.avatarImages?.get(character.name);
      (own ? Promise.resolve({ bytes: own.bytes, type: own.contentType }) : images.png(character).then((png) => ({ bytes: png, type: 'image/png' }))).then(
        ({ bytes, type }) => {
          response.writeHead(200, {
            'content-type': type,
            'content-length': bytes.length,
            'cache-control': `public, max-age=${ONE_DAY_S}`,
            'x-content-type-options': 'nosniff',
          });
          response.end(request.method === 'HEAD' ? undefined : bytes);
        },
        (error: unknown) => {
          logger.warn('a character picture could not be drawn', { character: character.name, error });
          response.writeHead(500, { 'content-type': 'text/plain' }).end('the picture could not be drawn');
        },
      );
    };
    routes[`GET ${avatarPath(character.name)}`] = handler;
    routes[`HEAD ${avatarPath(character.name)}`] = handler;
  }
  return routes;
}
