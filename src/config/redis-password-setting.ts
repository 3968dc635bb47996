/**
 * `TSUKA_REDIS_PASSWORD`: the Redis password given on its own, so that no one has to write it into
 * `TSUKA_STORE_URL` by hand (docker-compose.replicas.yml used to interpolate it there as it was, and
 * a password with `@`, `/`, `#`, `%` or `:` then named another host or no valid URL at all). It is
 * percent-encoded into the URL's password here, once; the Redis client decodes it again.
 * Environment only, like the other settings that guard the store.
 */

/** The store URL with `password` set in it (encoded), or `storeUrl` unchanged when none is given. */
export function storeUrlWithRedisPassword(storeUrl: string | undefined, password: string | undefined, problems: string[]): string | undefined {
  if (password === undefined || password === '') return storeUrl;
  if (storeUrl === undefined || !/^rediss?:\/\//i.test(storeUrl.trim())) {
    problems.push(
      'TSUKA_REDIS_PASSWORD is set but TSUKA_STORE_URL is not a redis:// URL: set TSUKA_STORE_URL=redis://HOST:6379, or unset TSUKA_REDIS_PASSWORD.',
    );
    return storeUrl;
  }
  let url: URL;
  try {
    url = new URL(storeUrl.trim());
  } catch {
    // load-config's own check names a URL it cannot read; nothing to add the password to.
    return storeUrl;
  }
  if (url.password !== '') {
    problems.push('TSUKA_STORE_URL carries a password and TSUKA_REDIS_PASSWORD is set too: keep one (TSUKA_REDIS_PASSWORD needs no escaping).');
    return storeUrl;
  }
  url.password = encodeURIComponent(password);
  return url.toString();
}
